import http from 'node:http';
import { MediaforgeClient, NotFoundError, type Job } from './index';

const job = (status: Job['status'], progress: number | null = null): Job => ({
  job_id: 'job_1',
  status,
  model: 'VidGen 2.0',
  type: 'video',
  credits_consumed: 100,
  created_at: '2026-01-01T00:00:00.000Z',
  completed_at: status === 'processing' ? null : '2026-01-01T00:01:00.000Z',
  result: status === 'completed' ? { video: 'https://x.test/media/jobs/job_1/video.mp4' } : null,
  error: null,
  input: {
    prompt: 'p',
    image_url: null,
    fast: false,
    duration_seconds: 5,
    aspect_ratio: '16:9',
    resolution: '720p',
    generate_audio: true,
    seed: 1,
  },
  source: 'api',
  project_id: null,
  progress,
});
const block = (type: string, id: string, data: Job) => `event: ${type}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

/** An event-stream server: each connection gets the next script (what to write, then end or drop). */
async function sseServer(scripts: Array<{ write: string[]; then: 'end' | 'drop' | 'stay' } | { status: number }>) {
  const seen: http.IncomingHttpHeaders[] = [];
  const srv = http.createServer((req, res) => {
    seen.push(req.headers);
    const s = scripts[Math.min(seen.length, scripts.length) - 1];
    if ('status' in s && s.status === 204) {
      res.writeHead(204).end();
      return;
    }
    if ('status' in s) {
      res.writeHead(s.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Job not found' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const w of s.write) res.write(w);
    // A drop once what was written has left this process (the client has it, then the connection dies).
    if (s.then === 'end') res.end();
    else if (s.then === 'drop') res.write('', () => res.destroy());
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  return {
    client: new MediaforgeClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'mf_test', maxRetries: 0 }),
    seen,
    close: () => {
      srv.closeAllConnections();
      return new Promise<void>((r) => srv.close(() => r()));
    },
  };
}

describe('event streams', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it("yields a job's events with their ids, types and Job data, and ends after the terminal one", async () => {
    const s = await sseServer([
      {
        write: [
          ': heartbeat\n\n',
          block('job.processing', 'evt_0000000000000001', job('processing')),
          block('job.progress', 'evt_0000000000000002', job('processing', 40)),
          block('job.completed', 'evt_0000000000000003', job('completed')),
        ],
        then: 'stay',
      },
    ]);
    close = s.close;
    const events = [];
    for await (const e of s.client.jobs.stream('job_1')) events.push(e);
    expect(events.map((e) => [e.id, e.type, e.data.progress])).toEqual([
      ['evt_0000000000000001', 'job.processing', null],
      ['evt_0000000000000002', 'job.progress', 40],
      ['evt_0000000000000003', 'job.completed', null],
    ]);
    expect(s.seen[0].accept).toBe('text/event-stream');
    expect(s.seen[0].authorization).toBe('Bearer mf_test');
  });

  it('reconnects after a dropped connection with Last-Event-ID, so nothing is missed or repeated', async () => {
    const s = await sseServer([
      { write: [block('job.progress', 'evt_0000000000000007', job('processing', 10))], then: 'drop' },
      { write: [block('job.completed', 'evt_0000000000000009', job('completed'))], then: 'stay' },
    ]);
    close = s.close;
    const ids = [];
    for await (const e of s.client.jobs.stream('job_1', { reconnectBaseMs: 1 })) ids.push(e.id);
    expect(ids).toEqual(['evt_0000000000000007', 'evt_0000000000000009']);
    expect(s.seen[1]['last-event-id']).toBe('evt_0000000000000007');
  });

  it('ends a resumed stream the server answers 204 (nothing after Last-Event-ID), without reconnecting', async () => {
    const s = await sseServer([{ status: 204 }]);
    close = s.close;
    const ids = [];
    for await (const e of s.client.jobs.stream('job_1', { lastEventId: 'evt_0000000000000009', reconnectBaseMs: 1 }))
      ids.push(e.id);
    expect(ids).toEqual([]);
    expect(s.seen).toHaveLength(1);
  });

  it("rejects with NotFoundError for a job that is not the key owner's", async () => {
    const s = await sseServer([{ status: 404 }]);
    close = s.close;
    const it = s.client.jobs.stream('job_1');
    await expect(it.next()).rejects.toBeInstanceOf(NotFoundError);
  });

  it('waits for a job on its stream: every event reaches onPoll, and no polling happens', async () => {
    const s = await sseServer([
      {
        write: [
          block('job.progress', 'evt_0000000000000001', job('processing', 55)),
          block('job.completed', 'evt_0000000000000002', job('completed')),
        ],
        then: 'stay',
      },
    ]);
    close = s.close;
    const progress: Array<number | null> = [];
    const done = await s.client.waitForJob('job_1', { onPoll: (j) => progress.push(j.progress) });
    expect(done.status).toBe('completed');
    expect(progress).toEqual([55, null]);
    expect(s.seen).toHaveLength(1);
  });
});
