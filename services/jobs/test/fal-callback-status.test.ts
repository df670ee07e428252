import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@mf/testing';
import { FAL_FAILURE_MESSAGE, FalProvider } from '../src/providers/fal/fal-provider';
import { imageJob } from './support/provider-jobs';

// A status call after fal's callback (hint calledBack): the result is asked for alongside the
// status, and the status still decides. A scripted plain-HTTP queue, so the order of the two
// requests can be held and checked.
const REQUEST_ID = '00000000-0000-4000-8000-00000000abcd';
const BASE = `/fal-ai/imagegen-2/requests/${REQUEST_ID}`;
const RESULT = { images: [{ url: 'https://cdn.fal.test/out.png', content_type: 'image/png' }] };

interface Answer {
  code: number;
  body: unknown;
}

interface ScriptedQueue {
  url: string;
  /** Paths asked, in arrival order. */
  calls: string[];
  status: () => Answer;
  result: () => Answer;
  /** The status answer waits for this (set before the call). */
  holdStatus: Promise<void>;
  close: () => Promise<void>;
}

async function scriptedQueue(): Promise<ScriptedQueue> {
  const q = {
    calls: [] as string[],
    status: (): Answer => ({ code: 200, body: { status: 'COMPLETED' } }),
    result: (): Answer => ({ code: 200, body: RESULT }),
    holdStatus: Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    q.calls.push(path);
    const send = ({ code, body }: Answer) =>
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === `${BASE}/status`) void q.holdStatus.then(() => send(q.status()));
    else if (path === BASE) send(q.result());
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(q, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

describe('FalProvider status after a callback', () => {
  let queue: ScriptedQueue;
  let provider: FalProvider;
  const job = imageJob('called back', {}, { upstreamModel: 'fal-ai/imagegen-2' });

  beforeEach(async () => {
    queue = await scriptedQueue();
    provider = new FalProvider({ queueUrl: queue.url, apiKey: 'k', logger: silentLogger(), timeoutMs: 5000 });
  });
  afterEach(() => queue.close());

  it('asks for the result while the status answer is still on its way, and completes with it', async () => {
    let resultArrived: () => void = () => undefined;
    // The status is answered only once the result has been asked for: asking one after the other would time out.
    queue.holdStatus = new Promise<void>((r) => (resultArrived = r));
    const answer = queue.result;
    queue.result = () => {
      resultArrived();
      return answer();
    };
    const status = await provider.status(REQUEST_ID, job, { calledBack: true });
    expect(status).toEqual({
      state: 'completed',
      outputs: [{ kind: 'url', url: 'https://cdn.fal.test/out.png', contentType: 'image/png' }],
    });
    expect(queue.calls.sort()).toEqual([BASE, `${BASE}/status`].sort());
  });

  it('asks one after the other without the hint (a poll round)', async () => {
    await provider.status(REQUEST_ID, job);
    expect(queue.calls).toEqual([`${BASE}/status`, BASE]);
  });

  it('reports running when the status says so, whatever the early result said', async () => {
    queue.status = () => ({ code: 200, body: { status: 'IN_PROGRESS' } });
    expect(await provider.status(REQUEST_ID, job, { calledBack: true })).toEqual({ state: 'running' });
  });

  it('asks for the result again once the status says COMPLETED when the early one was refused', async () => {
    let results = 0;
    // The first (early) result answer is fal's "still in progress"; the one asked after COMPLETED is the media.
    queue.result = () =>
      ++results === 1 ? { code: 400, body: { detail: 'Request is still in progress' } } : { code: 200, body: RESULT };
    const status = await provider.status(REQUEST_ID, job, { calledBack: true });
    expect(status.state).toBe('completed');
    expect(results).toBe(2);
  });

  it('reports the failure of a request whose result fal refuses, as without the hint', async () => {
    queue.result = () => ({ code: 422, body: { detail: 'content policy' } });
    expect(await provider.status(REQUEST_ID, job, { calledBack: true })).toEqual({
      state: 'failed',
      error: FAL_FAILURE_MESSAGE,
    });
  });
});
