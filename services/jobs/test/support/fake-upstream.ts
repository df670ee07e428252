import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import axios from 'axios';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Provider, ProviderJob, ProviderStatus } from '../../src/providers/provider';
import { makeCertificates, makeMedia } from './fake-fal';

/** One HTTP call a fake upstream received. */
export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, string | undefined>;
}

export interface FakeServer {
  /** http(s)://127.0.0.1:<port> */
  url: string;
  /** The CA to trust (https fakes only). */
  caPem?: string;
  calls: RecordedCall[];
  media: { mp4: string; png: string };
  server: http.Server;
  close(): Promise<void>;
}

/**
 * The common part of the upstream fakes: an express app on a free port (https with a throwaway CA,
 * or plain http like a server on the LAN), every call recorded, a real sample mp4 and png to serve.
 */
export async function startFakeServer(
  opts: { tls: boolean; mediaDir?: string; json?: boolean },
  mount: (app: Express, base: () => string) => void,
): Promise<FakeServer> {
  const ownDir = await mkdtemp(path.join(tmpdir(), 'fake-upstream-'));
  const media = await makeMedia(opts.mediaDir ?? path.join(tmpdir(), 'mf-fake-media'));
  const calls: RecordedCall[] = [];
  const app = express();
  app.disable('x-powered-by');
  if (opts.json !== false) app.use(express.json({ limit: '5mb' }));
  app.use((req: Request, _res: Response, next: NextFunction) => {
    calls.push({
      method: req.method,
      path: req.path,
      query: { ...(req.query as Record<string, unknown>) },
      body: req.body as unknown,
      headers: { authorization: req.headers.authorization, 'content-type': req.headers['content-type'] },
    });
    next();
  });
  let base = '';
  mount(app, () => base);
  let server: http.Server;
  let caPem: string | undefined;
  if (opts.tls) {
    const tls = await makeCertificates();
    caPem = tls.caPem;
    server = https.createServer({ key: tls.key, cert: tls.cert }, app);
  } else {
    server = http.createServer(app);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  base = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    caPem,
    calls,
    media,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(ownDir, { recursive: true, force: true });
    },
  };
}

/** Markers in a prompt choose a fake's behaviour: `[<prefix>:<name>]`. */
export function markersIn(prompt: unknown, prefix: string): Set<string> {
  return new Set(
    typeof prompt === 'string'
      ? [...prompt.matchAll(new RegExp(`\\[${prefix}:([a-z0-9-]+)\\]`, 'g'))].map((m) => m[1])
      : [],
  );
}

/** Rejects calls without `Authorization: Bearer <key>` (when a key is set). */
export function bearer(key: string | undefined, body: unknown = { detail: 'Unauthenticated' }) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (key && req.headers.authorization !== `Bearer ${key}`) return void res.status(401).json(body);
    next();
  };
}

/** A webhook as a fake sent it, or as a receiver got it: the signature headers and the raw body. */
export interface Webhook {
  headers: Record<string, string>;
  body: string;
}

/** Posts a webhook as upstreams do (they do not wait to see whether it arrived) and records it in `sent`. */
export function sendWebhook(
  sent: (Webhook & { url: string })[],
  url: string,
  headers: Record<string, string>,
  body: string,
): void {
  sent.push({ url, headers, body });
  axios.post(url, body, { headers, timeout: 2000, validateStatus: () => true }).catch(() => undefined);
}

/** A local endpoint for provider webhooks: `${url}` receives them, each kept with its raw body. */
export async function startWebhookReceiver(): Promise<{
  url: string;
  received: Webhook[];
  first(): Promise<Webhook>;
  close(): Promise<void>;
}> {
  const received: Webhook[] = [];
  const app = express().post('/cb', express.text({ type: () => true }), (req, res) => {
    received.push({ headers: req.headers as Record<string, string>, body: req.body as string });
    res.status(204).end();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`,
    received,
    first: async () => {
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      if (!received.length) throw new Error('no webhook arrived');
      return received[0];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls a provider until the request leaves running (at most `max` polls); every answer, in order. */
export async function pollUntilSettled(
  provider: Provider,
  requestId: string,
  job: ProviderJob,
  max = 10,
): Promise<ProviderStatus[]> {
  const seen: ProviderStatus[] = [];
  for (let i = 0; i < max; i++) {
    const s = await provider.status(requestId, job);
    seen.push(s);
    if (s.state !== 'running') break;
  }
  return seen;
}
