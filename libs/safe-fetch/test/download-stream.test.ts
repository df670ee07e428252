import type { Readable } from 'node:stream';
import { downloadToStream, FetchError, keepAliveDownloadAgents, type DownloadOptions } from '../src';
import { closeAllServers, downloadOptions, startHttpsServer, streamForever, testCertificate } from './harness';

// downloadToStream shares the checks of downloadToBuffer/downloadToFile (download.test.ts, ssrf.test.ts):
// here, what is its own: the body reaches the consumer as it arrives, and whose failure is whose.
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2000, 7)]);

let ca: string;

beforeAll(async () => {
  ca = (await testCertificate()).cert;
});
afterEach(closeAllServers);

function options(overrides: Partial<DownloadOptions> = {}): DownloadOptions {
  return downloadOptions(ca, true, overrides);
}

/** A consumer that reads the whole body and says how it ended (what a storage write sees). */
function collector(): { consume: (body: Readable) => Promise<Buffer>; outcome: () => 'ended' | 'failed' | 'unread' } {
  let outcome: 'ended' | 'failed' | 'unread' = 'unread';
  return {
    consume: async (body) => {
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of body) chunks.push(chunk as Buffer);
      } catch (err) {
        outcome = 'failed';
        throw err;
      }
      outcome = 'ended';
      return Buffer.concat(chunks);
    },
    outcome: () => outcome,
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the download to fail');
    },
    (err: unknown) => err,
  );
}

describe('downloadToStream', () => {
  it("hands the body and the response's content type and URL to the consumer, and resolves its value", async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) });
      res.end(PNG);
    });
    const seen: unknown[] = [];
    const body = await downloadToStream(`${server.origin}/a.png`, options(), async (stream, response) => {
      seen.push(response);
      return collector().consume(stream);
    });
    expect(body.equals(PNG)).toBe(true);
    expect(seen).toEqual([{ contentType: 'image/png', finalUrl: `${server.origin}/a.png` }]);
  });

  it('keeps the connection for the next download on keep-alive agents once the consumer has read the body', async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) });
      res.end(PNG);
    });
    const agents = keepAliveDownloadAgents({ allowPrivate: true, allowHttp: false }, ca);
    try {
      for (const name of ['k1', 'k2', 'k3'])
        await downloadToStream(`${server.origin}/${name}`, options({ agents }), (s) => collector().consume(s));
      expect(server.connections()).toBe(1);
    } finally {
      agents.httpsAgent.destroy();
      agents.httpAgent.destroy();
    }
  });

  it("fails the consumer's read, and the download, when the body grows past maxBytes", async () => {
    let serverSawClose: Promise<void> | undefined;
    const server = await startHttpsServer((_req, res) => {
      serverSawClose = streamForever(res, 'image/png');
    });
    const c = collector();
    const err = await rejection(
      downloadToStream(`${server.origin}/forever`, options({ maxBytes: 300_000 }), c.consume),
    );
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).kind).toBe('too-large');
    expect(c.outcome()).toBe('failed');
    await serverSawClose;
  });

  it("fails the consumer's read with a network error when the connection drops before the body's end", async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length * 2) });
      res.write(PNG, () => res.socket?.destroy());
    });
    const c = collector();
    const err = await rejection(downloadToStream(`${server.origin}/cut`, options(), c.consume));
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).kind).toBe('network');
    expect(c.outcome()).toBe('failed');
  });

  it("fails the consumer's read with a timeout when the body stalls past the time limit", async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.write(PNG); // then stall
    });
    const c = collector();
    const err = await rejection(downloadToStream(`${server.origin}/stall`, options({ timeoutMs: 500 }), c.consume));
    expect((err as FetchError).kind).toBe('timeout');
    expect(c.outcome()).toBe('failed');
  });

  it("rejects with the consumer's own error, as it is, when the consumer fails", async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) });
      res.end(PNG);
    });
    const diskFull = new Error('no space left on device');
    const err = await rejection(downloadToStream(`${server.origin}/a.png`, options(), () => Promise.reject(diskFull)));
    expect(err).toBe(diskFull);
  });

  it('never calls the consumer when the response is refused (an error status)', async () => {
    const server = await startHttpsServer((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    const consume = jest.fn(() => Promise.resolve());
    const err = await rejection(downloadToStream(`${server.origin}/missing`, options(), consume));
    expect((err as FetchError).status).toBe(404);
    expect(consume).not.toHaveBeenCalled();
  });
});
