import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  callTools,
  lastUserText,
  say,
  startFakeLlm,
  stepOfTurn,
  toolCall,
  toolResults,
  type FakeLlm,
  type LlmRequest,
} from '../../services/editor-agent/test/support/fake-llm';
import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';
import { balance, balanceBecomes } from '../support/jobs';
import { downloadAndProbe } from '../support/media';
import { startReferenceServer } from '../support/reference-server';
import { testTls } from '../support/tls';

const ONE_MEDIA_RULE =
  'Only one media generation is allowed per turn. Tell the user what you generated and ask them to confirm before generating more.';
const VOICE_PRICE = 10;

/**
 * The public base URL on https (image-to-video needs an https image URL): a proxy to the gateway
 * that can be told to answer 404 for editor media, so a job fetching a reference image fails.
 */
async function startPublicProxy(): Promise<{
  url: string;
  setTarget: (port: number) => void;
  failEditorMedia: (on: boolean) => void;
  close: () => Promise<void>;
}> {
  const tls = await testTls();
  let target = 0;
  let fail = false;
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    if (fail && req.url?.startsWith('/media/editor/')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setTarget: (port) => (target = port),
    failEditorMedia: (on) => (fail = on),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** What the scripted model does for each instruction of the conversation (keyed by a phrase in it). */
function script(req: LlmRequest) {
  const said = lastUserText(req);
  const step = stepOfTurn(req);
  const results = toolResults(req);
  if (said.includes('streamed lantern')) {
    if (step === 0) return callTools([toolCall('generate_image', { prompt: 'a paper lantern at night' })]);
    if (step === 1)
      return callTools([toolCall('add_clip', { track: 'video', asset_id: results[0].asset_id, duration_sec: 1 })]);
    return say('I made a lantern image and added it. Anything else?');
  }
  if (said.includes('red kite image')) {
    if (step === 0)
      return callTools([toolCall('generate_image', { prompt: 'a red kite over green hills, soft morning light' })]);
    if (step === 1)
      return callTools([toolCall('add_clip', { track: 'video', asset_id: results[0].asset_id, duration_sec: 2 })]);
    return say('I made a red kite image and put it first on the timeline. Shall I make a short video next?');
  }
  if (said.includes('4 second video')) {
    if (step === 0) {
      const prompt =
        'Total: 4s / 1 shot(s) / 9:16\nShot 1: low angle, slow tilt up, a red kite climbs into the sky, 24mm, golden hour\nAudio: wind, kite fabric flapping, NO MUSIC';
      return callTools([toolCall('generate_video', { prompt, duration_seconds: 4 })]);
    }
    if (step === 1) return callTools([toolCall('add_clip', { track: 'video', asset_id: results[0].asset_id })]);
    return say('Done: a 4 s video after the image. Add a voice line?');
  }
  if (said.includes('voice line')) {
    if (step === 0)
      return callTools([
        toolCall('generate_voice', { text: 'Welcome to the kite festival.' }),
        toolCall('append_context', { text: 'Brand colour: red. Tone: joyful.' }),
      ]);
    if (step === 1)
      return callTools([toolCall('add_clip', { track: 'voice', asset_id: results[0].asset_id, start_sec: 0.5 })]);
    return say('Added the voice line and noted the brand colour. Anything else?');
  }
  if (said.includes('square')) {
    if (step === 0) return callTools([toolCall('set_aspect_ratio', { aspect_ratio: '1:1' })]);
    return say('The project is square now. Export?');
  }
  if (said.includes('two images')) {
    if (step === 0)
      return callTools([
        toolCall('generate_image', { prompt: 'a cat flying a kite' }),
        toolCall('generate_image', { prompt: 'a dog flying a kite' }),
      ]);
    return say('I made the cat; shall I make the dog next turn?');
  }
  if (said.includes('Animate')) {
    const attached = /now in the media library: (ast_[A-Za-z0-9]+)/.exec(said);
    if (step === 0 && attached)
      return callTools([
        toolCall('generate_video', {
          prompt: 'slow push in on the photo',
          duration_seconds: 4,
          resolution: '480p',
          image_asset_id: attached[1],
        }),
      ]);
    return say('The animation failed and its credits were refunded. Try again?');
  }
  return say('I am not sure what to do. Could you rephrase?');
}

/** A real multi-turn conversation with the agent, through the gateway, on the real fleet and a scripted model. */
describe('editor agent end to end', () => {
  let fleet: Fleet;
  let llm: FakeLlm;
  let proxy: Awaited<ReturnType<typeof startPublicProxy>>;
  let refs: Awaited<ReturnType<typeof startReferenceServer>>;
  let user: TestUser;
  let projectId: string;
  // Asset and clip ids seen so far, to find what each turn added.
  let knownAssets = new Set<string>();
  let knownClips = new Set<string>();

  beforeAll(async () => {
    llm = await startFakeLlm((req) => script(req));
    proxy = await startPublicProxy();
    refs = await startReferenceServer();
    // Started without a model first (the 503 case); the editor is restarted with one below.
    fleet = await startFleet({
      RATE_LIMIT_PER_MINUTE: '100000',
      ALLOW_PRIVATE_URLS: 'true',
      PUBLIC_BASE_URL: proxy.url,
      MEDIA_POLL_MS: '200',
      VOICE_PRICE: String(VOICE_PRICE),
    });
    proxy.setTarget(fleet.ports.gateway);
    user = await userWithKey(fleet, 'all', 5000);
    const created = await api(fleet, 'POST', '/api/v1/media-studio/projects', {
      key: user.key,
      body: { name: 'Kite festival' },
    });
    expect(created.status).toBe(200);
    projectId = created.body.project.id;
  }, 240_000);

  afterAll(async () => {
    await fleet?.shutdown();
    await Promise.all([llm?.close(), proxy?.close(), refs?.close()]);
  });

  const instruct = (body: Record<string, unknown>, key = user.key) =>
    api(fleet, 'POST', `/api/v1/media-studio/projects/${projectId}/instruct`, { key, body });
  const state = async () =>
    (await api(fleet, 'GET', `/api/v1/media-studio/projects/${projectId}`, { key: user.key })).body;
  const requestsOf = (phrase: string) => llm.requests.filter((r) => lastUserText(r).includes(phrase));

  /** The project now holds exactly what the turn reported, on top of what was there before. */
  async function expectStateMatches(reply: { assets_created: { id: string }[]; clips_created: { id: string }[] }) {
    const s = await state();
    const newAssets = s.assets.filter((a: { id: string }) => !knownAssets.has(a.id));
    const newClips = s.clips.filter((c: { id: string }) => !knownClips.has(c.id));
    expect(newAssets).toEqual(reply.assets_created);
    expect(newClips).toEqual(reply.clips_created);
    knownAssets = new Set(s.assets.map((a: { id: string }) => a.id));
    knownClips = new Set(s.clips.map((c: { id: string }) => c.id));
    return s;
  }

  /** The direct gateway address of a public asset URL (the test process does not trust the proxy's certificate). */
  const direct = (url: string) => url.replace(proxy.url, fleet.baseUrl);

  it('answers 503 while no language model is configured, charging nothing', async () => {
    try {
      const before = await balance(fleet, user.key);
      const res = await instruct({ instruction: 'hello' });
      expect(res.status).toBe(503);
      // The gateway adds a request_id to every 5xx body.
      expect(res.body).toEqual({
        error: 'The language-model provider is not configured on this server',
        request_id: expect.any(String),
      });
      expect(await balance(fleet, user.key)).toBe(before);
    } finally {
      await fleet.stopService('editor-agent');
      await fleet.startService('editor-agent', { LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'fake' });
    }
  }, 120_000);

  it('turn 1: generates an image and places it on the timeline (5 + 50 credits)', async () => {
    const before = await balance(fleet, user.key);
    const res = await instruct({ instruction: 'Make a red kite image and put it on the timeline' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ context_appended: false, aspect_ratio_changed: null, media_gen_done: true });
    expect(res.body.assistant_text).toMatch(/\?$/);
    const [image] = res.body.assets_created;
    expect(image).toMatchObject({
      kind: 'image',
      source: 'generated',
      metadata: expect.objectContaining({
        prompt: 'a red kite over green hills, soft morning light',
        model: 'imagegen-2',
        width: 768,
        height: 1344,
      }),
    });
    expect(res.body.clips_created).toEqual([
      expect.objectContaining({ track: 'video', idx: 0, asset_id: image.id, duration_sec: 2 }),
    ]);
    expect(res.body.agent_events).toContainEqual(
      expect.objectContaining({
        type: 'media_generation',
        kind: 'image',
        asset_id: image.id,
        credits: 50,
        job_id: expect.stringMatching(/^job_/),
      }),
    );
    expect(await balance(fleet, user.key)).toBe(before - 5 - 50);
    // The editor's job is marked as such, with its project: the user's job list tells it from their own.
    const jobId = res.body.agent_events.find((e: { type: string }) => e.type === 'media_generation').job_id;
    const job = (await api(fleet, 'GET', `/api/v1/jobs/${jobId}`, { key: user.key })).body;
    expect(job).toMatchObject({
      status: 'completed',
      source: 'editor',
      project_id: projectId,
      input: { prompt: 'a red kite over green hills, soft morning light', aspect_ratio: '9:16' },
    });
    expect((await api(fleet, 'GET', '/api/v1/jobs?type=image', { key: user.key })).body.jobs[0]).toMatchObject({
      job_id: jobId,
      source: 'editor',
      project_id: projectId,
    });
    await expectStateMatches(res.body);
    const served = await downloadAndProbe(direct(image.url));
    expect(served.probe.video).toMatchObject({ width: 768, height: 1344 });
    // The model got the authorization-free request of a local server, with our model name and tools.
    expect(requestsOf('red kite image')[0]).toMatchObject({
      model: 'fake',
      authorization: undefined,
      tool_choice: 'auto',
    });
  }, 180_000);

  it('turn 2: generates a 4 s video (5 + 908 credits) and appends it after the image', async () => {
    const before = await balance(fleet, user.key);
    const res = await instruct({ instruction: 'Yes, make a 4 second video of the kite taking off' });
    expect(res.status).toBe(200);
    const [video] = res.body.assets_created;
    expect(video).toMatchObject({
      kind: 'video',
      source: 'generated',
      metadata: expect.objectContaining({ model: 'vidgen-2.0', width: 720, height: 1280, has_audio: true }),
    });
    expect(Math.abs(video.metadata.duration_sec - 4)).toBeLessThan(0.1);
    expect(res.body.clips_created).toEqual([expect.objectContaining({ track: 'video', idx: 1, asset_id: video.id })]);
    expect(await balance(fleet, user.key)).toBe(before - 5 - 908);
    await expectStateMatches(res.body);
    // The earlier turn is part of the conversation the model sees.
    const [first] = requestsOf('4 second video');
    expect(first.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(first.messages[2].content).toBe(
      'I made a red kite image and put it first on the timeline. Shall I make a short video next?',
    );
  }, 300_000);

  it('turn 3: adds a real spoken voice line and appends to the context (5 + voice price)', async () => {
    const before = await balance(fleet, user.key);
    const res = await instruct({
      instruction: 'Add a voice line welcoming people, and remember our brand colour is red',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ context_appended: true, media_gen_done: true });
    const [voice] = res.body.assets_created;
    expect(voice).toMatchObject({
      kind: 'audio',
      source: 'tts',
      metadata: expect.objectContaining({ text: 'Welcome to the kite festival.' }),
    });
    expect(res.body.clips_created).toEqual([
      expect.objectContaining({ track: 'voice', idx: 0, asset_id: voice.id, start_sec: 0.5 }),
    ]);
    expect(await balance(fleet, user.key)).toBe(before - 5 - VOICE_PRICE);
    const s = await expectStateMatches(res.body);
    expect(s.project.context_md).toBe('Brand colour: red. Tone: joyful.');
    const served = await downloadAndProbe(direct(voice.url));
    expect(served.probe.audio).toEqual({ codec: 'aac' });
    expect(served.probe.video).toBeUndefined();
    expect(served.probe.duration).toBeGreaterThan(0.5);
  }, 180_000);

  it('turn 4: changes the aspect ratio for 5 credits and nothing else', async () => {
    const before = await balance(fleet, user.key);
    const res = await instruct({ instruction: 'Make it square' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      aspect_ratio_changed: '1:1',
      media_gen_done: false,
      assets_created: [],
      clips_created: [],
    });
    expect(await balance(fleet, user.key)).toBe(before - 5);
    const s = await expectStateMatches(res.body);
    expect(s.project.aspect_ratio).toBe('1:1');
    expect(s.videos.map((v: { aspect_ratio: string }) => v.aspect_ratio)).toEqual(['1:1']);
    // The system message shows the timeline built so far.
    const system = requestsOf('square')[0].messages[0].content ?? '';
    for (const clip of s.clips) expect(system).toContain(`clip ${clip.id}`);
  }, 120_000);

  it('a turn asking for two generations gets one, and the model sees the refusal', async () => {
    const before = await balance(fleet, user.key);
    const res = await instruct({ instruction: 'Make two images: a cat and a dog' });
    expect(res.status).toBe(200);
    expect(res.body.assets_created).toHaveLength(1);
    expect(res.body.assets_created[0].metadata.prompt).toBe('a cat flying a kite');
    const [, second] = requestsOf('two images');
    expect(toolResults(second)).toEqual([
      expect.objectContaining({ ok: true, kind: 'image' }),
      { ok: false, error: ONE_MEDIA_RULE },
    ]);
    expect(await balance(fleet, user.key)).toBe(before - 5 - 50);
    await expectStateMatches(res.body);
  }, 180_000);

  it('a video whose reference image cannot be fetched fails in jobs: its credits come back, the turn price does not', async () => {
    const before = await balance(fleet, user.key);
    proxy.failEditorMedia(true);
    let res: Awaited<ReturnType<typeof instruct>>;
    try {
      res = await instruct({ instruction: 'Animate this photo', image_urls: [`${refs.url}/ref.png`] });
    } finally {
      proxy.failEditorMedia(false);
    }
    expect(res.status).toBe(200);
    expect(res.body.media_gen_done).toBe(false);
    // Only the uploaded reference is new in the library.
    expect(res.body.assets_created).toEqual([expect.objectContaining({ kind: 'image', source: 'upload' })]);
    const [, second] = requestsOf('Animate');
    expect(toolResults(second)).toEqual([
      {
        ok: false,
        error: expect.stringMatching(/^the video generation failed \(.+\); its 404 credits were refunded\.$/),
      },
    ]);
    // The job reads failed in the commit that records its refund as owed; the refund lands a moment
    // later (docs/jobs.md), so under load the turn can answer first.
    expect(await balanceBecomes(fleet, user.key, before - 5)).toBe(before - 5);
    await expectStateMatches(res.body);
  }, 180_000);

  it('answers 402 with credits_required 5 when the balance cannot pay a turn', async () => {
    const poor = await userWithKey(fleet, 'all', 3);
    const created = await api(fleet, 'POST', '/api/v1/media-studio/projects', {
      key: poor.key,
      body: { name: 'Poor' },
    });
    const before = llm.requests.length;
    const res = await api(fleet, 'POST', `/api/v1/media-studio/projects/${created.body.project.id}/instruct`, {
      key: poor.key,
      body: { instruction: 'hello' },
    });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ error: 'Insufficient credits', credits_required: 5, credits_remaining: 3 });
    expect(llm.requests.length).toBe(before);
    expect(await balance(fleet, poor.key)).toBe(3);
  });

  it('streams a turn with Accept: text/event-stream: steps, tool calls, the generation with its progress, then the reply', async () => {
    const res = await fetch(`${fleet.baseUrl}/api/v1/media-studio/projects/${projectId}/instruct`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${user.key}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ instruction: 'Make a streamed lantern image and add it' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .split('\n\n')
      .filter((block) => block.startsWith('event: '))
      .map((block) => {
        const [head, data] = block.split('\ndata: ');
        // Untyped JSON: the test asserts the shape it expects.
        return { type: head.slice('event: '.length), data: JSON.parse(data) };
      });
    const types = events.map((e) => e.type);
    expect(types.at(-1)).toBe('reply');
    expect(types.filter((t) => t === 'reply')).toHaveLength(1);
    const reply = events.at(-1)!.data;
    const jobId = reply.agent_events.find((e: { type: string }) => e.type === 'media_generation').job_id;
    // Every agent event of the reply was streamed, in its order, before it.
    const agentEvents = events.filter((e) => e.type !== 'generation' && e.type !== 'reply').map((e) => e.data);
    expect(agentEvents).toEqual(reply.agent_events);
    expect(types.indexOf('tool_call')).toBeLessThan(types.indexOf('generation'));
    expect(events.find((e) => e.type === 'generation')?.data).toMatchObject({ job_id: jobId, kind: 'image' });
    expect(events.filter((e) => e.type === 'generation' && e.data.status === 'completed')).toEqual([
      { type: 'generation', data: { job_id: jobId, status: 'completed', progress: 100 } },
    ]);
    expect(reply.clips_created).toEqual([expect.objectContaining({ track: 'video', duration_sec: 1 })]);
    await expectStateMatches(reply);
  }, 180_000);

  it('answers a streamed turn it cannot take as JSON, before any stream opens', async () => {
    const res = await fetch(`${fleet.baseUrl}/api/v1/media-studio/projects/${projectId}/instruct`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ instruction: '' }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
