import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createWebhookPoster } from '../src/delivery/webhook-poster';

// The poster's connections: kept for the next delivery to the same host, and what happens when a
// receiver closes a kept one just as it is reused (a plain local server, so each socket is seen).

interface SeenRequest {
  socket: number;
  body: string;
  /** Whether the server answered it (false: it dropped the connection instead). */
  answered: boolean;
}

interface Server {
  url: string;
  seen: SeenRequest[];
  /** Sockets accepted so far. */
  sockets: Socket[];
  /** Decides, per request, whether to drop the connection instead of answering. */
  drop: (socketIndex: number, requestOnSocket: number) => boolean;
  close: () => Promise<void>;
}

async function startServer(): Promise<Server> {
  const sockets: Socket[] = [];
  const served = new Map<Socket, number>();
  const s: Omit<Server, 'url' | 'close'> = { seen: [], sockets, drop: () => false };
  const server = http.createServer((req, res) => {
    const socket = req.socket;
    const index = sockets.indexOf(socket);
    const n = (served.get(socket) ?? 0) + 1;
    served.set(socket, n);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const drop = s.drop(index, n);
      s.seen.push({ socket: index, body, answered: !drop });
      if (drop) socket.destroy();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign<Omit<Server, 'url' | 'close'>, Pick<Server, 'url' | 'close'>>(s, {
    url: `http://127.0.0.1:${port}/hook`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  });
}

const post = createWebhookPoster({ policy: { allowHttp: true, allowPrivate: true }, timeoutMs: 2000 });
const headers = { 'Content-Type': 'application/json', 'X-Service-Event': 'job.completed' };

describe('webhook poster connections', () => {
  let server: Server;
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(() => server.close());

  it('sends consecutive deliveries to one receiver on one kept connection', async () => {
    for (const n of [1, 2, 3]) {
      expect(await post(server.url, `{"n":${n}}`, headers)).toEqual({ kind: 'response', status: 200, body: 'ok' });
    }
    expect(server.sockets).toHaveLength(1);
    expect(server.seen.map((r) => r.body)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it('sends again on a new connection, within the attempt, when the receiver drops a kept connection as it is reused', async () => {
    await post(server.url, '{"n":1}', headers);
    // The kept connection is dropped on its next request, before any answer (a receiver closing it while idle).
    server.drop = (_socket, requestOnSocket) => requestOnSocket > 1;
    expect(await post(server.url, '{"n":2}', headers)).toEqual({ kind: 'response', status: 200, body: 'ok' });
    expect(server.seen).toEqual([
      { socket: 0, body: '{"n":1}', answered: true },
      { socket: 0, body: '{"n":2}', answered: false },
      { socket: 1, body: '{"n":2}', answered: true },
    ]);
  });

  it('reports a connection dropped on a new connection as the failed attempt, without sending again', async () => {
    server.drop = () => true;
    expect(await post(server.url, '{"n":1}', headers)).toEqual({
      kind: 'failure',
      refused: false,
      error: 'connection reset',
    });
    expect(server.seen).toHaveLength(1);
  });

  it('reports the failure when every kept connection and then a new one is dropped', async () => {
    await post(server.url, '{"n":1}', headers);
    server.drop = () => true;
    expect(await post(server.url, '{"n":2}', headers)).toMatchObject({ kind: 'failure', error: 'connection reset' });
    // Once on the kept connection, once on a new one: a new connection's failure is not sent again.
    expect(server.seen.map((r) => r.socket)).toEqual([0, 0, 1]);
  });

  it('closes a kept connection that stays idle for a second', async () => {
    await post(server.url, '{"n":1}', headers);
    const [socket] = server.sockets;
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const started = Date.now();
    await closed;
    expect(Date.now() - started).toBeGreaterThan(500);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await post(server.url, '{"n":2}', headers)).toMatchObject({ status: 200 });
    expect(server.sockets).toHaveLength(2);
  });
});
