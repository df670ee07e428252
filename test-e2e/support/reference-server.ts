import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { testTls } from './tls';

/**
 * An https server on 127.0.0.1 serving a real PNG at /ref.png (and any `files` given, by path; a
 * file's `delayMs` holds its answer that long, as a slow origin does, and its `held` until that
 * settles: a fetch that stays in flight as long as a test needs), with the test CA the fleet
 * trusts (NODE_EXTRA_CA_CERTS, set by startFleet from test-e2e/support/tls.ts).
 */
export async function startReferenceServer(
  files: Record<string, { file: string; contentType: string; delayMs?: number; held?: Promise<void> }> = {},
): Promise<{ url: string; requests: () => string[]; close: () => Promise<void> }> {
  const tls = await testTls();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-ref-'));
  const png = path.join(dir, 'ref.png');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=640x480:rate=1',
    '-frames:v',
    '1',
    '-y',
    png,
  ]);
  const seen: string[] = [];
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    seen.push(req.url ?? '');
    const extra = files[req.url ?? ''];
    if (req.url === '/ref.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      fs.createReadStream(png).pipe(res);
    } else if (extra) {
      void (extra.held ?? Promise.resolve()).then(() =>
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(200, { 'content-type': extra.contentType });
          fs.createReadStream(extra.file).pipe(res);
        }, extra.delayMs ?? 0),
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    requests: () => [...seen],
    // A held answer's connection is cut rather than waited for.
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
