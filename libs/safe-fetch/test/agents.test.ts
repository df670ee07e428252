import axios, { type AxiosInstance } from 'axios';
import { guardedAgents, UnsafeUrlError, type SafeFetchPolicy } from '../src';
import { closeAllServers, startHttpServer, type LocalServer } from './harness';

// guardedAgents on their own, as a webhook sender would use them: no assertFetchableUrl first, so
// every refusal here comes from the agents at connect time.

afterEach(closeAllServers);

function webhookClient(policy: SafeFetchPolicy): AxiosInstance {
  return axios.create({ ...guardedAgents(policy), proxy: false, maxRedirects: 0, timeout: 5000 });
}

async function hookReceiver(): Promise<LocalServer> {
  return startHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204);
      res.end();
    });
  });
}

/** The UnsafeUrlError behind an axios failure (axios wraps socket errors, keeping them as `cause`). */
async function refusal(promise: Promise<unknown>): Promise<UnsafeUrlError> {
  const err: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(axios.isAxiosError(err)).toBe(true);
  const cause = (err as Error).cause;
  expect(cause).toBeInstanceOf(UnsafeUrlError);
  return cause as UnsafeUrlError;
}

describe('guardedAgents', () => {
  it('refuses to connect to a loopback IP literal, which never goes through DNS lookup', async () => {
    const receiver = await hookReceiver();
    const client = webhookClient({ allowPrivate: false, allowHttp: true });
    const err = await refusal(client.post(`http://127.0.0.1:${receiver.port}/hook`, { event: 'done' }));
    expect(err.reason).toBe('private-address');
    expect(receiver.connections()).toBe(0);
  });

  it('refuses to connect to a name that resolves to loopback', async () => {
    const receiver = await hookReceiver();
    const client = webhookClient({ allowPrivate: false, allowHttp: true });
    const err = await refusal(client.post(`http://localhost:${receiver.port}/hook`, { event: 'done' }));
    expect(err.reason).toBe('private-address');
    expect(receiver.connections()).toBe(0);
  });

  it("refuses a name whose DNS answer is private, asking the policy's resolver at connect time", async () => {
    const receiver = await hookReceiver();
    const resolve = jest.fn(async () => ['10.0.0.7']);
    const client = webhookClient({ allowPrivate: false, allowHttp: true, resolve });
    const err = await refusal(client.post(`http://hooks.test:${receiver.port}/hook`, {}));
    expect(err.reason).toBe('private-address');
    expect(err.message).toContain('10.0.0.7');
    expect(resolve).toHaveBeenCalledWith('hooks.test');
    expect(receiver.connections()).toBe(0);
  });

  it('refuses plain http when the policy is https only', async () => {
    const receiver = await hookReceiver();
    const client = webhookClient({ allowPrivate: true, allowHttp: false });
    const err = await refusal(client.post(`${receiver.origin}/hook`, {}));
    expect(err.reason).toBe('scheme');
    expect(receiver.connections()).toBe(0);
  });

  it('delivers to a private address when the policy allows it (local development)', async () => {
    const receiver = await hookReceiver();
    const client = webhookClient({ allowPrivate: true, allowHttp: true });
    const res = await client.post(`http://localhost:${receiver.port}/hook`, { event: 'done' });
    expect(res.status).toBe(204);
    expect(receiver.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /hook']);
  });
});
