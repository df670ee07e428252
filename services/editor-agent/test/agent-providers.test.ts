import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { AppError } from '@mf/errors';
import { probe } from '@mf/media';
import { downloadToFile } from '@mf/safe-fetch';
import { silentLogger } from '@mf/testing';
import { OpenAiCompatibleClient, PROVIDER_FAILED } from '../src/agent/openai-client';
import { UpstreamAudioGenerator } from '../src/media/upstream-audio';
import { callTools, say, startFakeLlm, toolCall, type FakeLlm } from './support/fake-llm';

async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server) =>
  new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

/** The OpenAI-compatible client against a scripted server. */
describe('OpenAI-compatible LLM client', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm(() => say('hi'));
  });
  afterAll(() => llm.close());

  const client = (over: Partial<ConstructorParameters<typeof OpenAiCompatibleClient>[0]> = {}) =>
    new OpenAiCompatibleClient({
      baseUrl: `${llm.baseUrl}/`,
      model: 'fake-model',
      timeoutMs: 2000,
      logger: silentLogger(),
      ...over,
    });
  const tools = [
    {
      type: 'function' as const,
      function: { name: 'noop', description: 'does nothing', parameters: { type: 'object', properties: {} } },
    },
  ];

  it('posts model, messages, tools and tool_choice auto to /chat/completions with the bearer key, and returns the tool calls', async () => {
    llm.setScript(() => callTools([toolCall('noop', { a: 1 }, 'call_x')], 'thinking'));
    const { message } = await client({ apiKey: 'sk-secret' }).complete([{ role: 'user', content: 'go' }], tools);
    const req = llm.requests[llm.requests.length - 1];
    expect(req).toMatchObject({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'go' }],
      tools,
      tool_choice: 'auto',
      authorization: 'Bearer sk-secret',
    });
    expect(message).toEqual({
      role: 'assistant',
      content: 'thinking',
      tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'noop', arguments: '{"a":1}' } }],
    });
  });

  it('sends no Authorization header without a key and no tools field without tools', async () => {
    llm.setScript(() => say('plain'));
    const { message } = await client().complete([{ role: 'user', content: 'hi' }], []);
    const req = llm.requests[llm.requests.length - 1];
    expect(req.authorization).toBeUndefined();
    expect(req.tools).toEqual([]);
    expect(req.tool_choice).toBeUndefined();
    expect(message).toEqual({ role: 'assistant', content: 'plain' });
  });

  it('accepts tool-call arguments sent as an object and tool calls without id (some Ollama versions)', async () => {
    // Deliberately off-spec (no id or type, arguments as an object): cast past the ChatMessage type.
    llm.setScript(
      () =>
        ({
          role: 'assistant',
          content: null,
          tool_calls: [{ function: { name: 'noop', arguments: { b: 2 } } }],
        }) as never,
    );
    const { message } = await client().complete([{ role: 'user', content: 'x' }], tools);
    expect(message.tool_calls).toEqual([
      { id: 'call_0', type: 'function', function: { name: 'noop', arguments: '{"b":2}' } },
    ]);
  });

  it.each([
    ['a 500', () => ({ status: 500, body: { error: { message: 'boom sk-secret' } } })],
    ['a 401', () => ({ status: 401 })],
    ['a reply without choices', () => ({ status: 200, body: { choices: [] } })],
    ['a timeout', async () => new Promise<never>((r) => setTimeout(() => r(say('late') as never), 3000))],
  ])('turns %s into the contract 502 without provider details', async (_what, script) => {
    // A 200 without choices is not expressible as a ChatMessage: the cast lets the fake send it.
    llm.setScript(script);
    const err = await failure(
      client({ apiKey: 'sk-secret', timeoutMs: 500 }).complete([{ role: 'user', content: 'x' }], tools),
    );
    expect(err.kind).toBe('upstream_failed');
    expect(err.body).toEqual({ error: PROVIDER_FAILED });
  });

  it('turns an unreachable server into the contract 502', async () => {
    const err = await failure(
      new OpenAiCompatibleClient({
        baseUrl: 'http://127.0.0.1:9/v1',
        model: 'm',
        timeoutMs: 1000,
        logger: silentLogger(),
      }).complete([{ role: 'user', content: 'x' }], []),
    );
    expect(err.body).toEqual({ error: PROVIDER_FAILED });
  });
});

/** AUDIO_PROVIDER=upstream against a tiny fake audio service. */
describe('upstream audio generator', () => {
  let dir: string;
  let audioFile: string;
  let server: Server;
  let base: string;
  const seen: { body: Record<string, unknown>; authorization?: string }[] = [];
  let mode: 'ok' | 'error' | 'no-url' | 'not-audio' = 'ok';

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-upstream-'));
    audioFile = path.join(dir, 'tone.m4a');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=f=440:d=1.5', '-c:a', 'aac', '-y', audioFile]);
    const app = express();
    app.use(express.json());
    app.post('/make', (req, res) => {
      seen.push({ body: req.body as Record<string, unknown>, authorization: req.headers.authorization });
      if (mode === 'error') return void res.status(500).json({ error: 'upstream internals' });
      if (mode === 'no-url') return void res.json({ ok: true });
      res.json({ url: `${base}/${mode === 'not-audio' ? 'page.html' : 'tone.m4a'}` });
    });
    app.get('/tone.m4a', (_req, res) => res.type('audio/mp4').send(fs.readFileSync(audioFile)));
    app.get('/page.html', (_req, res) => res.type('text/html').send('<html></html>'));
    ({ server, url: base } = await listen(app));
  });
  afterAll(async () => {
    await close(server);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const gen = () =>
    new UpstreamAudioGenerator({
      url: `${base}/make`,
      apiKey: 'audio-key',
      timeoutMs: 2000,
      // The real guarded download, with private addresses and http allowed for this local fake.
      download: (url, dest, accept) =>
        downloadToFile(url, dest, {
          allowPrivate: true,
          allowHttp: true,
          maxBytes: 1e7,
          timeoutMs: 5000,
          maxRedirects: 0,
          accept,
        }),
      probe: (file) => probe(file, { ffprobePath: 'ffprobe' }),
    });

  it('posts kind, prompt, duration and seed with the bearer key, and downloads the returned audio', async () => {
    mode = 'ok';
    const out = await gen().music({ prompt: 'calm', durationSec: 1.5, seed: 9, outFile: path.join(dir, 'music.m4a') });
    expect(seen[seen.length - 1]).toEqual({
      body: { kind: 'music', prompt: 'calm', duration_sec: 1.5, seed: 9 },
      authorization: 'Bearer audio-key',
    });
    expect(out.contentType).toBe('audio/mp4');
    expect(Math.abs(out.durationSec - 1.5)).toBeLessThan(0.1);
    await gen().voice({ text: 'Hi', voice: 'female', outFile: path.join(dir, 'voice.m4a') });
    expect(seen[seen.length - 1].body).toEqual({ kind: 'voice', text: 'Hi', voice: 'female' });
  });

  it.each([
    ['an error status', 'error', /audio upstream request failed \(500\)/],
    ['a reply without url', 'no-url', /without a url/],
    ['a url that is not audio', 'not-audio', /not accepted/],
  ] as const)('fails on %s without leaking the upstream body', async (_what, m, message) => {
    mode = m;
    const err = await gen()
      .sfx({ prompt: 'boom', durationSec: 1, seed: 1, outFile: path.join(dir, `sfx-${m}.m4a`) })
      .then(
        () => null,
        (e: Error) => e,
      );
    expect(err?.message).toMatch(message);
    expect(err?.message).not.toContain('upstream internals');
  });
});
