import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import type { Job } from '@mf/contracts';
import { formatEvent, SseResponse } from './sse-response';

/** Just enough of an express Response: what was written, what is still buffered, and how it ended. */
class FakeResponse extends EventEmitter {
  statusCode = 0;
  headers: Record<string, string> = {};
  written: string[] = [];
  writableLength = 0;
  ended = false;
  destroyed = false;
  socket = { setNoDelay: () => undefined };
  status(code: number) {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  flushHeaders() {}
  write(chunk: string) {
    this.written.push(chunk);
    return true;
  }
  end() {
    this.ended = true;
    this.emit('close');
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

const job = { job_id: 'job_a', status: 'processing', progress: 40 } as unknown as Job;

describe('SseResponse', () => {
  it('sends the event-stream headers and each event as event, id and the Job as JSON data', () => {
    const res = new FakeResponse();
    const sse = new SseResponse(res as unknown as Response, { heartbeatMs: 60_000, maxBufferedBytes: 1024 });
    sse.send({ id: 'evt_0000000000000001', type: 'job.progress', jobId: 'job_a', data: job });
    sse.end();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.written).toEqual([`event: job.progress\nid: evt_0000000000000001\ndata: ${JSON.stringify(job)}\n\n`]);
    expect(res.ended).toBe(true);
    expect(sse.closed).toBe(true);
  });

  it('leaves out the id line of an event without one (a job older than the event log)', () => {
    expect(formatEvent({ id: '', type: 'job.completed', jobId: 'job_a', data: job })).toBe(
      `event: job.completed\ndata: ${JSON.stringify(job)}\n\n`,
    );
  });

  it('drops a reader that lets more than the bound pile up unread, instead of buffering without end', () => {
    const res = new FakeResponse();
    const sse = new SseResponse(res as unknown as Response, { heartbeatMs: 60_000, maxBufferedBytes: 1024 });
    let closed = 0;
    sse.onClose(() => closed++);
    res.writableLength = 512; // the client reads nothing: the socket's buffer only grows
    sse.send({ id: 'evt_0000000000000001', type: 'job.progress', jobId: 'job_a', data: job });
    expect(res.destroyed).toBe(false);
    res.writableLength = 2048;
    sse.send({ id: 'evt_0000000000000002', type: 'job.progress', jobId: 'job_a', data: job });
    expect(res.destroyed).toBe(true);
    expect(closed).toBe(1);
    sse.send({ id: 'evt_0000000000000003', type: 'job.progress', jobId: 'job_a', data: job });
    expect(res.written).toHaveLength(2);
  });
});
