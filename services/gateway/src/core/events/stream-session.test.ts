import type { Job, JobEventType } from '@mf/contracts';
import { EventHub } from './event-hub';
import type { LiveEvent, StreamEvent } from './live-event';
import { MAX_PENDING_EVENTS, runStream, type StreamSink } from './stream-session';

const USER = 7;
const id = (n: number) => `evt_${String(n).padStart(16, '0')}`;

function job(jobId: string, status: Job['status'] = 'processing', progress: number | null = null): Job {
  return {
    job_id: jobId,
    status,
    model: 'ImageGen 2',
    type: 'image',
    credits_consumed: 50,
    created_at: '2026-01-01T00:00:00.000Z',
    completed_at: status === 'processing' ? null : '2026-01-01T00:00:05.000Z',
    result: null,
    error: null,
    input: { prompt: 'p', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 1 },
    source: 'api',
    project_id: null,
    progress,
  };
}

const event = (n: number, type: JobEventType, jobId = 'job_a'): LiveEvent => ({
  id: id(n),
  type,
  jobId,
  userId: USER,
  data: job(jobId, type === 'job.completed' ? 'completed' : 'processing'),
});

class Sink implements StreamSink {
  sent: StreamEvent[] = [];
  ended = false;
  get closed() {
    return this.ended;
  }
  send(e: StreamEvent) {
    this.sent.push(e);
  }
  end() {
    this.ended = true;
  }
}

/** A log that, while it is being read, lets live events arrive (the race a resume must survive). */
function logOf(events: LiveEvent[], duringRead: () => void = () => {}) {
  return async function* (q: { after?: string; jobId?: string }): AsyncGenerator<StreamEvent> {
    duringRead();
    for (const e of events) if ((!q.after || e.id > q.after) && (!q.jobId || e.jobId === q.jobId)) yield e;
  };
}

describe('runStream', () => {
  it('resumes after Last-Event-ID from the log, then live, with no gap and no duplicate when both overlap', async () => {
    const hub = new EventHub();
    const log = [1, 2, 3, 4].map((n) => event(n, 'job.progress'));
    const sink = new Sink();
    // Events 4 and 5 arrive live while the log (which already holds 4) is read.
    const readLog = logOf(log, () => {
      hub.publish(event(4, 'job.progress'));
      hub.publish(event(5, 'job.progress'));
    });
    await runStream({ hub, readLog }, { userId: USER, after: id(2) }, sink);
    hub.publish(event(6, 'job.progress'));
    hub.publish(event(5, 'job.progress')); // a broker redelivery
    expect(sink.sent.map((e) => e.id)).toEqual([id(3), id(4), id(5), id(6)]);
  });

  it("starts a job's stream with its current state under its latest event id, and ends after the terminal event", async () => {
    const hub = new EventHub();
    const sink = new Sink();
    const current = job('job_a', 'processing', 40);
    await runStream(
      { hub, readLog: logOf([event(1, 'job.processing'), event(2, 'job.progress')]) },
      { userId: USER, job: current },
      sink,
    );
    expect(sink.sent).toEqual([{ id: id(2), type: 'job.progress', jobId: 'job_a', data: current }]);
    hub.publish(event(3, 'job.progress', 'job_b')); // another job of the same user
    hub.publish(event(4, 'job.completed'));
    hub.publish(event(5, 'job.progress'));
    expect(sink.sent.map((e) => e.type)).toEqual(['job.progress', 'job.completed']);
    expect(sink.ended).toBe(true);
    expect(hub.size).toBe(0);
  });

  it("ends at once a job's stream resumed after its terminal event", async () => {
    const hub = new EventHub();
    const sink = new Sink();
    const log = [event(1, 'job.processing'), event(2, 'job.completed')];
    await runStream({ hub, readLog: logOf(log) }, { userId: USER, job: job('job_a', 'completed'), after: id(2) }, sink);
    expect(sink.sent).toEqual([]);
    expect(sink.ended).toBe(true);
  });

  it('sends only live events to a user stream opened without Last-Event-ID, every job of the user', async () => {
    const hub = new EventHub();
    const sink = new Sink();
    await runStream({ hub, readLog: logOf([event(1, 'job.processing')]) }, { userId: USER }, sink);
    hub.publish(event(2, 'job.processing', 'job_b'));
    hub.publish({ ...event(3, 'job.processing', 'job_c'), userId: USER + 1 });
    hub.publish(event(4, 'job.completed', 'job_b'));
    expect(sink.sent.map((e) => [e.id, e.jobId])).toEqual([
      [id(2), 'job_b'],
      [id(4), 'job_b'],
    ]);
    expect(sink.ended).toBe(false);
  });

  it('drops a stream whose held live events pile up beyond the bound while the log is read', async () => {
    const hub = new EventHub();
    const sink = new Sink();
    const flood = () => {
      for (let n = 10; n < 10 + MAX_PENDING_EVENTS + 1; n++) hub.publish(event(n, 'job.progress'));
    };
    await runStream({ hub, readLog: logOf([], flood) }, { userId: USER, after: id(1) }, sink);
    expect(sink.ended).toBe(true);
    expect(hub.size).toBe(0);
  });
});
