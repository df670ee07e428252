import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Bus } from '@mf/bus';
import { imageCost, videoCost } from '@mf/catalog';
import {
  billingRpc,
  jobsRpc,
  type InstructReply,
  type JobResultReply,
  type SubmitJobReply,
  type SubmitJobRequest,
} from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { AppError, isAppError, kindOfHttpStatus } from '@mf/errors';
import { probe } from '@mf/media';
import { createStorage, type Storage } from '@mf/storage';
import { FakeBilling, freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../migrations';
import { OpenAiCompatibleClient, PROVIDER_FAILED } from '../src/agent/openai-client';
import { ONE_MEDIA_RULE, VIDEO_PROMPT_LAYOUT } from '../src/agent/system-prompt';
import type { AudioGenerator } from '../src/media/audio';
import { LocalAudioGenerator } from '../src/media/local-audio';
import type { EditorContext, EditorSettings } from '../src/usecases/context';
import { instruct, LLM_NOT_CONFIGURED, TURN_BUSY } from '../src/usecases/instruct.usecase';
import { createProject, getProjectState } from '../src/usecases/projects.usecase';
import {
  callTools,
  say,
  startFakeLlm,
  stepOfTurn,
  toolCall,
  toolResults,
  type FakeLlm,
  type LlmRequest,
  type Script,
} from './support/fake-llm';
import { TEST_SETTINGS } from './support/editor-records';

const run = promisify(execFile);

interface FakeJob {
  id: string;
  user: number;
  request: SubmitJobRequest;
  status: JobResultReply['status'];
  keys: string[];
  error: string | null;
  cost: number;
  cancelledBy?: string;
}

/**
 * The jobs service on the real contract: charges billing (job:<id>), "renders" a real PNG or mp4
 * into storage after a short delay, refunds failures and cancels. `outcome` scripts the next jobs.
 */
class FakeJobs {
  jobs = new Map<string, FakeJob>();
  outcome: 'complete' | 'fail' | 'hang' = 'complete';
  submitStatus: number | null = null;
  /** Refuses the next submits before any charge, as billing does for a key's caps. */
  refusal: AppError | null = null;
  private n = 0;
  constructor(
    private readonly billing: FakeBilling,
    private readonly storage: Storage,
    private readonly dir: string,
  ) {}

  handlers = {
    submit: async (req: SubmitJobRequest): Promise<SubmitJobReply> => {
      if (this.refusal) throw this.refusal;
      const id = `job_fake${++this.n}`;
      const cost =
        req.type === 'image'
          ? imageCost(req.params.num_images)
          : videoCost(req.params.fast, req.params.duration_seconds, req.params.resolution);
      const charged = await this.billing.handlers.charge({
        user_id: req.user_id,
        reference: `job:${id}`,
        amount: cost,
      });
      if (this.submitStatus) {
        await this.billing.handlers.refund({ user_id: req.user_id, reference: `job:${id}` });
        throw new AppError(kindOfHttpStatus(this.submitStatus), { error: 'Upstream provider error' });
      }
      const job: FakeJob = { id, user: req.user_id, request: req, status: 'processing', keys: [], error: null, cost };
      this.jobs.set(id, job);
      const outcome = this.outcome;
      if (outcome !== 'hang') setTimeout(() => void this.finish(job, outcome), 100);
      return {
        job_id: id,
        status: 'processing',
        model: req.type === 'image' ? 'imagegen-2' : 'vidgen-2.0',
        credits_consumed: cost,
        credits_remaining: charged.credits_remaining,
      };
    },
    get: async (): Promise<never> => {
      throw new Error('not used');
    },
    getMany: async (): Promise<never> => {
      throw new Error('not used');
    },
    list: async (): Promise<never> => {
      throw new Error('not used');
    },
    getResult: async (req: { user_id: number; job_id: string }): Promise<JobResultReply> => {
      const job = this.jobs.get(req.job_id);
      if (!job || job.user !== req.user_id) throw AppError.notFound('Job not found');
      return {
        job_id: job.id,
        status: job.status,
        type: job.request.type,
        result_keys: job.status === 'completed' ? job.keys : [],
        error: job.error,
        credits_consumed: job.cost,
      };
    },
    cancel: async (req: { user_id: number; job_id: string; cancelled_by?: string }) => {
      const job = this.jobs.get(req.job_id);
      if (!job || job.user !== req.user_id) throw AppError.notFound('Job not found');
      if (job.status !== 'processing') throw AppError.conflict('Job is not processing');
      job.status = 'cancelled';
      job.cancelledBy = req.cancelled_by;
      await this.billing.handlers.refund({ user_id: job.user, reference: `job:${job.id}` });
      return { job_id: job.id, status: 'cancelled' as const, refunded_credits: job.cost };
    },
    providerCallback: async () => ({ accepted: false }),
    attempts: async () => {
      throw new Error('not used');
    },
    events: async () => {
      throw new Error('not used');
    },
    appendExportEvent: async () => {
      throw new Error('not used');
    },
    recordTestEvent: async () => {
      throw new Error('not used');
    },
  };

  private async finish(job: FakeJob, outcome: 'complete' | 'fail'): Promise<void> {
    if (job.status !== 'processing') return;
    if (outcome === 'fail') {
      job.status = 'failed';
      job.error = 'Reference image could not be fetched';
      await this.billing.handlers.refund({ user_id: job.user, reference: `job:${job.id}` });
      return;
    }
    const isVideo = job.request.type === 'video';
    const seconds = job.request.type === 'video' ? job.request.params.duration_seconds : 0;
    const file = path.join(this.dir, `${job.id}.${isVideo ? 'mp4' : 'png'}`);
    const args = isVideo
      ? [
          '-f',
          'lavfi',
          '-i',
          `testsrc=s=128x72:r=10:d=${seconds}`,
          '-f',
          'lavfi',
          '-i',
          `sine=d=${seconds}`,
          '-c:v',
          'libx264',
          '-pix_fmt',
          'yuv420p',
          '-c:a',
          'aac',
          '-shortest',
        ]
      : ['-f', 'lavfi', '-i', 'color=c=orange:s=96x96', '-frames:v', '1'];
    await run('ffmpeg', ['-v', 'error', ...args, '-y', file]);
    const key = `jobs/${job.id}/${isVideo ? 'video.mp4' : 'image-0.png'}`;
    await this.storage.putFile(key, file, isVideo ? 'video/mp4' : 'image/png');
    job.keys = [key];
    job.status = 'completed';
  }
}

/** Audio that fails when told to, else delegates to the real local generator. */
class SwitchableAudio implements AudioGenerator {
  failing = false;
  constructor(private readonly real: AudioGenerator) {}
  voice(o: Parameters<AudioGenerator['voice']>[0]) {
    return this.failing ? Promise.reject(new Error('tts engine crashed')) : this.real.voice(o);
  }
  music(o: Parameters<AudioGenerator['music']>[0]) {
    return this.failing ? Promise.reject(new Error('synth crashed')) : this.real.music(o);
  }
  sfx(o: Parameters<AudioGenerator['sfx']>[0]) {
    return this.failing ? Promise.reject(new Error('synth crashed')) : this.real.sfx(o);
  }
}

const SETTINGS: EditorSettings = {
  ...TEST_SETTINGS,
  publicBaseUrl: 'https://media.test',
  mediaWaitMs: 20_000,
  mediaPollMs: 50,
  turnLockWaitMs: 20_000,
};

/** The agent against the real database and broker, a scripted model, and fake billing and jobs on the bus. */
describe('editor agent turns', () => {
  let env: TestEnv;
  let db: Knex;
  let bus: Bus;
  let servicesBus: Bus;
  let billing: FakeBilling;
  let jobs: FakeJobs;
  let llm: FakeLlm;
  let audio: SwitchableAudio;
  let ctx: EditorContext;
  let dir: string;
  let png: string;
  let nextUser = 100;

  beforeAll(async () => {
    env = await freshTestEnv();
    db = createDb({ url: env.databaseUrl, schema: 'editor' });
    await migrate(db, 'editor', migrations);
    const logger = silentLogger();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-agent-int-'));
    const storage = createStorage({ driver: 'local', dir: path.join(dir, 'media') });
    png = path.join(dir, 'reference.png');
    await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=green:s=160x90', '-frames:v', '1', '-y', png]);
    billing = new FakeBilling();
    jobs = new FakeJobs(billing, storage, dir);
    servicesBus = new Bus({ url: env.amqpUrl, service: 'fakes', logger });
    await servicesBus.start();
    await servicesBus.serveRpc(billingRpc, billing.handlers);
    await servicesBus.serveRpc(jobsRpc, jobs.handlers);
    bus = new Bus({ url: env.amqpUrl, service: 'editor-agent', logger });
    await bus.start();
    llm = await startFakeLlm(() => say('unused'));
    audio = new SwitchableAudio(
      new LocalAudioGenerator({ ffmpegPath: 'ffmpeg', ffprobePath: 'ffprobe', espeakPath: 'espeak-ng' }),
    );
    ctx = {
      db,
      bus,
      storage,
      logger,
      settings: { ...SETTINGS },
      // "Downloads" a local PNG: the SSRF guard has its own tests.
      download: async (url, dest) => {
        if (url.includes('unreachable')) throw new Error('getaddrinfo ENOTFOUND unreachable.example');
        fs.copyFileSync(png, dest);
        return { contentType: 'image/png', bytes: fs.statSync(dest).size };
      },
      probe: (file) => probe(file, { ffprobePath: 'ffprobe' }),
      llm: new OpenAiCompatibleClient({
        baseUrl: llm.baseUrl,
        model: 'fake',
        apiKey: 'sk-test',
        timeoutMs: 10_000,
        logger,
      }),
      audio,
    };
  });

  afterAll(async () => {
    await llm?.close();
    await bus?.close();
    await servicesBus?.close();
    await db?.destroy();
    await env?.teardown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    ctx.settings = { ...SETTINGS };
    audio.failing = false;
    jobs.outcome = 'complete';
    jobs.submitStatus = null;
    jobs.refusal = null;
  });

  /** A user with credits and a 9:16 project; the script answers this test's model calls. */
  async function setup(credits: number, script: Script) {
    const user = nextUser++;
    billing.balances.set(user, credits);
    const { project } = await createProject(ctx, {
      user_id: user,
      name: 'Test',
      description: null,
      aspect_ratio: '9:16',
    });
    const first = llm.requests.length;
    llm.setScript(script);
    const requests = (): LlmRequest[] => llm.requests.slice(first);
    const say_ = (
      instruction: string,
      extra: { video_id?: string; image_urls?: string[] } = {},
    ): Promise<InstructReply> =>
      instruct(ctx, { user_id: user, api_key_id: 7, project_id: project.id, instruction, image_urls: [], ...extra });
    return { user, project, requests, instruct: say_ };
  }

  async function rejection(p: Promise<unknown>): Promise<AppError> {
    try {
      await p;
    } catch (err) {
      if (isAppError(err)) return err;
      throw err;
    }
    throw new Error('expected a rejection');
  }

  const turnsOf = (videoIdOrProject: string) =>
    db('turns')
      .select('turns.*')
      .join('videos', 'videos.id', 'turns.video_id')
      .where('videos.project_id', videoIdOrProject)
      .orderBy('turns.created_at');

  it('runs the tool calls in order, feeds their results back, and stops when the model answers', async () => {
    const t = await setup(100, (req) =>
      stepOfTurn(req) === 0
        ? callTools(
            [
              toolCall('append_context', { text: 'Brand colour: orange.' }),
              toolCall('set_aspect_ratio', { aspect_ratio: '16:9' }),
            ],
            'On it.',
          )
        : say('I noted the brand colour and switched to 16:9. Anything else?'),
    );
    const reply = await t.instruct('Remember orange and make it landscape');

    expect(reply.assistant_text).toBe('I noted the brand colour and switched to 16:9. Anything else?');
    expect(reply.context_appended).toBe(true);
    expect(reply.aspect_ratio_changed).toBe('16:9');
    expect(reply.media_gen_done).toBe(false);
    expect(reply.assets_created).toEqual([]);
    expect(reply.agent_events.map((e) => (typeof e.name === 'string' ? `${e.type}:${e.name}` : e.type))).toEqual([
      'step',
      'message',
      'tool_call:append_context',
      'tool_result:append_context',
      'tool_call:set_aspect_ratio',
      'tool_result:set_aspect_ratio',
      'step',
      'message',
    ]);
    // The second model call sees both results, in call order, answering each call id.
    const [first, second] = t.requests();
    expect(t.requests()).toHaveLength(2);
    const calls = first.tools.map((tool) => tool.function.name);
    expect(calls).toEqual(
      expect.arrayContaining([
        'generate_image',
        'generate_video',
        'generate_voice',
        'generate_music',
        'generate_sfx',
        'add_clip',
        'move_clip',
        'remove_clip',
        'append_context',
        'set_aspect_ratio',
      ]),
    );
    expect(first.tool_choice).toBe('auto');
    expect(first.authorization).toBe('Bearer sk-test');
    const toolMessages = second.messages.filter((m) => m.role === 'tool');
    const asked = second.messages.find((m) => m.role === 'assistant')!.tool_calls!;
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(asked.map((c) => c.id));
    expect(toolResults(second)).toEqual([
      expect.objectContaining({ ok: true, appended: true }),
      { ok: true, aspect_ratio: '16:9', changed: true },
    ]);

    const state = await getProjectState(ctx, { user_id: t.user, project_id: t.project.id });
    expect(state.project.context_md).toBe('Brand colour: orange.');
    expect(state.project.aspect_ratio).toBe('16:9');
    expect(billing.balance(t.user)).toBe(95);
    const [turn] = await turnsOf(t.project.id);
    expect(turn).toMatchObject({ status: 'done', assistant_text: reply.assistant_text });
    const stored = await db('agent_events').where({ turn_id: turn.id }).orderBy('seq');
    expect(stored.map((r: { event: { type: string } }) => r.event.type)).toEqual(reply.agent_events.map((e) => e.type));
  });

  it('gives the model the timeline, the library, the prompt layout and the earlier turns of the thread', async () => {
    const t = await setup(1000, (req) =>
      stepOfTurn(req) === 0 && /picture/.test(req.messages[req.messages.length - 1].content ?? '')
        ? callTools([toolCall('generate_image', { prompt: 'an orange fox in snow' })])
        : stepOfTurn(req) === 1 && toolResults(req)[0]?.asset_id
          ? callTools([toolCall('add_clip', { track: 'video', asset_id: toolResults(req)[0].asset_id })])
          : say('Done. Shall I continue?'),
    );
    await t.instruct('Make a picture of a fox');
    await t.instruct('What is on the timeline?');
    const last = t.requests()[t.requests().length - 1];
    const system = last.messages[0].content ?? '';
    const state = await getProjectState(ctx, { user_id: t.user, project_id: t.project.id });
    const [asset] = state.assets;
    const [clip] = state.clips;
    expect(system).toContain(VIDEO_PROMPT_LAYOUT);
    expect(system).toContain(`idx 0, clip ${clip.id}, asset ${asset.id} (image), 3 s`);
    expect(system).toMatch(new RegExp(`${asset.id}, image, generated, 96x96, about: an orange fox in snow`));
    expect(system).toContain('At most ONE media generation');
    // The thread: the first turn's instruction and final answer, then the new instruction.
    expect(last.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['user', 'Make a picture of a fox'],
      ['assistant', 'Done. Shall I continue?'],
      ['user', 'What is on the timeline?'],
    ]);
  });

  it('generates an image through the jobs service with every parameter defaulted, then places it', async () => {
    const t = await setup(1000, (req) => {
      const step = stepOfTurn(req);
      if (step === 0) return callTools([toolCall('generate_image', { prompt: 'a lighthouse at dusk' })]);
      if (step === 1)
        return callTools([
          toolCall('add_clip', { track: 'video', asset_id: toolResults(req)[0].asset_id, duration_sec: 2.5 }),
        ]);
      return say('Here is your lighthouse on the timeline. Want a video next?');
    });
    const reply = await t.instruct('A lighthouse image please');

    const job = [...jobs.jobs.values()].find((j) => j.user === t.user)!;
    // Marked as the editor's, with its project: lists and webhooks tell it from the user's own jobs.
    expect(job.request).toMatchObject({
      user_id: t.user,
      api_key_id: 7,
      source: 'editor',
      project_id: t.project.id,
      type: 'image',
      params: { prompt: 'a lighthouse at dusk', image_urls: [], num_images: 1, aspect_ratio: '9:16' },
    });
    expect(Number.isInteger(job.request.params.seed)).toBe(true);
    expect(reply.media_gen_done).toBe(true);
    expect(reply.assets_created).toHaveLength(1);
    const [asset] = reply.assets_created;
    expect(asset).toMatchObject({
      kind: 'image',
      source: 'generated',
      metadata: expect.objectContaining({ job_id: job.id, prompt: 'a lighthouse at dusk', width: 96, height: 96 }),
    });
    expect(asset.url).toMatch(/^https:\/\/media\.test\/media\//);
    expect(reply.clips_created).toEqual([
      expect.objectContaining({ track: 'video', idx: 0, asset_id: asset.id, duration_sec: 2.5, volume: 1 }),
    ]);
    expect(reply.agent_events).toContainEqual(
      expect.objectContaining({
        type: 'media_generation',
        kind: 'image',
        asset_id: asset.id,
        credits: 50,
        job_id: job.id,
      }),
    );
    expect(billing.balance(t.user)).toBe(1000 - 5 - 50);
    const state = await getProjectState(ctx, { user_id: t.user, project_id: t.project.id });
    expect(state.assets).toEqual(reply.assets_created);
    expect(state.clips).toEqual(reply.clips_created);
  });

  it('imports the reference images of an instruction and animates one: the video job gets its public URL', async () => {
    const t = await setup(2000, (req) => {
      const step = stepOfTurn(req);
      const attached = /now in the media library: (ast_\w+)/.exec(
        req.messages[req.messages.length - 1 - step * 2]?.content ?? '',
      );
      if (step === 0 && attached)
        return callTools([
          toolCall('generate_video', {
            prompt: 'Total: 4s / 1 shot(s) / 9:16\nclose-up, slow dolly in',
            duration_seconds: 4,
            resolution: '480p',
            image_asset_id: attached[1],
          }),
        ]);
      if (step === 1)
        return callTools([toolCall('add_clip', { track: 'video', asset_id: toolResults(req)[0].asset_id })]);
      return say('Animated your image. Add music?');
    });
    const reply = await t.instruct('Animate this', { image_urls: ['https://images.example/photo.png'] });

    const [reference, video] = reply.assets_created;
    expect(reference).toMatchObject({
      kind: 'image',
      source: 'upload',
      metadata: expect.objectContaining({ source_url: 'https://images.example/photo.png' }),
    });
    const job = [...jobs.jobs.values()].find((j) => j.user === t.user)!;
    expect(job.request).toMatchObject({
      type: 'video',
      params: {
        image_url: reference.url,
        duration_seconds: 4,
        resolution: '480p',
        aspect_ratio: '9:16',
        fast: false,
        generate_audio: true,
      },
    });
    expect(video).toMatchObject({
      kind: 'video',
      source: 'generated',
      metadata: expect.objectContaining({ duration_sec: expect.any(Number), has_audio: true }),
    });
    expect(reply.clips_created).toEqual([expect.objectContaining({ asset_id: video.id, track: 'video', idx: 0 })]);
    expect(billing.balance(t.user)).toBe(2000 - 5 - 4 * 101);
    const state = await getProjectState(ctx, { user_id: t.user, project_id: t.project.id });
    expect(state.assets).toEqual(reply.assets_created);
  });

  it('makes music and places it under the timeline at a lower volume', async () => {
    const t = await setup(100, (req) => {
      const step = stepOfTurn(req);
      if (step === 0) return callTools([toolCall('generate_music', { prompt: 'calm ambient', duration_sec: 2.5 })]);
      if (step === 1)
        return callTools([
          toolCall('add_clip', { track: 'music', asset_id: toolResults(req)[0].asset_id, start_sec: 0, volume: 0.4 }),
        ]);
      return say('Added a calm bed. Louder?');
    });
    const reply = await t.instruct('Some calm music');
    const [music] = reply.assets_created;
    expect(music).toMatchObject({
      kind: 'audio',
      source: 'music',
      metadata: expect.objectContaining({ prompt: 'calm ambient', seed: expect.any(Number), has_audio: true }),
    });
    expect(Math.abs((music.metadata.duration_sec as number) - 2.5)).toBeLessThanOrEqual(0.1);
    expect(reply.clips_created).toEqual([
      expect.objectContaining({ track: 'music', asset_id: music.id, start_sec: 0, volume: 0.4 }),
    ]);
    expect(reply.agent_events).toContainEqual(
      expect.objectContaining({ type: 'media_generation', kind: 'audio', asset_id: music.id, credits: 20 }),
    );
    expect(billing.balance(t.user)).toBe(75);
  });

  it('stops after agentMaxSteps model calls and answers with the last text', async () => {
    ctx.settings.agentMaxSteps = 3;
    const t = await setup(100, (_req, n) =>
      callTools([toolCall('append_context', { text: `note ${n}` })], `Working (${n})`),
    );
    const reply = await t.instruct('Keep going forever');
    expect(t.requests()).toHaveLength(3);
    expect(reply.agent_events.filter((e) => e.type === 'step')).toHaveLength(3);
    // The last thing the model said, from its third (last allowed) answer.
    expect(reply.assistant_text).toBe(`Working (${llm.requests.indexOf(t.requests()[2])})`);
    const state = await getProjectState(ctx, { user_id: t.user, project_id: t.project.id });
    expect(state.project.context_md.split('\n\n')).toHaveLength(3);
  });

  it('answers with a short apology when the steps run out and the model never said anything', async () => {
    ctx.settings.agentMaxSteps = 2;
    const t = await setup(100, () => callTools([toolCall('remove_clip', { clip_id: 'clp_missing' })]));
    const reply = await t.instruct('Remove it');
    expect(t.requests()).toHaveLength(2);
    expect(reply.assistant_text).toMatch(/could not finish/);
  });

  it('refuses a second media generation in one turn and tells the model so in its next request', async () => {
    const t = await setup(1000, (req) =>
      stepOfTurn(req) === 0
        ? callTools([
            toolCall('generate_voice', { text: 'Welcome aboard.' }),
            toolCall('generate_sfx', { prompt: 'whoosh', duration_sec: 1 }),
          ])
        : stepOfTurn(req) === 1
          ? callTools([toolCall('generate_music', { prompt: 'calm', duration_sec: 3 })])
          : say('I made the voice line; shall I make the whoosh next?'),
    );
    const reply = await t.instruct('A voice line and a whoosh');
    const [, second, third] = t.requests();
    expect(toolResults(second)).toEqual([
      expect.objectContaining({ ok: true, kind: 'audio' }),
      { ok: false, error: ONE_MEDIA_RULE },
    ]);
    expect(toolResults(third)[2]).toEqual({ ok: false, error: ONE_MEDIA_RULE });
    expect(reply.assets_created).toHaveLength(1);
    expect(reply.assets_created[0]).toMatchObject({
      kind: 'audio',
      source: 'tts',
      metadata: expect.objectContaining({ text: 'Welcome aboard.' }),
    });
    expect(reply.agent_events.filter((e) => e.type === 'media_generation')).toEqual([
      expect.objectContaining({ kind: 'audio', credits: 10 }),
    ]);
    expect(reply.agent_events.filter((e) => e.type === 'tool_error').map((e) => e.name)).toEqual([
      'generate_sfx',
      'generate_music',
    ]);
    expect(billing.balance(t.user)).toBe(1000 - 5 - 10);
  });

  it('answers 400 without charging the turn when a reference image is refused, and imports none of the others', async () => {
    const t = await setup(895, () => say('should not be asked'));
    const urls = [
      'https://images.example/ok-1.png',
      'https://images.example/ok-2.png',
      'https://unreachable.example/photo.png',
    ];
    for (let i = 0; i < 4; i++) {
      const err = await rejection(t.instruct('Use these', { image_urls: urls }));
      expect(err.kind).toBe('invalid');
      expect(err.body).toEqual({
        error: 'url could not be fetched: it must be a public https URL of an image, a video or audio',
      });
    }
    expect(billing.balance(t.user)).toBe(895);
    expect(t.requests()).toHaveLength(0);
    expect(await turnsOf(t.project.id)).toHaveLength(0);
    expect((await getProjectState(ctx, { user_id: t.user, project_id: t.project.id })).assets).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'media', 'editor', t.project.id))).toBe(false);
  });

  it('stores no reference image when the turn cannot be paid', async () => {
    const t = await setup(3, () => say('should not be asked'));
    const err = await rejection(t.instruct('Use this', { image_urls: ['https://images.example/ok.png'] }));
    expect(err.kind).toBe('payment_required');
    expect((await getProjectState(ctx, { user_id: t.user, project_id: t.project.id })).assets).toEqual([]);
  });

  it('answers 402 when the turn cannot be paid, and nothing else happens', async () => {
    const t = await setup(4, () => say('should not be asked'));
    const err = await rejection(t.instruct('Hello'));
    expect(err.kind).toBe('payment_required');
    expect(err.body).toEqual({ error: 'Insufficient credits', credits_required: 5, credits_remaining: 4 });
    expect(t.requests()).toHaveLength(0);
    expect(await turnsOf(t.project.id)).toHaveLength(0);
    expect(billing.balance(t.user)).toBe(4);
    // The lock was released: the next turn, once paid for, runs.
    billing.balances.set(t.user, 5);
    llm.setScript(() => say('Hi! What shall we make?'));
    expect((await t.instruct('Hello')).assistant_text).toBe('Hi! What shall we make?');
  });

  it('ends the turn with 402 when a voice line cannot be paid, keeping the turn price', async () => {
    const t = await setup(12, (req) =>
      stepOfTurn(req) === 0 ? callTools([toolCall('generate_voice', { text: 'Hello there' })]) : say('unreachable'),
    );
    const err = await rejection(t.instruct('Say hello'));
    expect(err.kind).toBe('payment_required');
    expect(err.body).toEqual({ error: 'Insufficient credits', credits_required: 10, credits_remaining: 7 });
    expect(t.requests()).toHaveLength(1);
    expect(billing.balance(t.user)).toBe(7);
    const [turn] = await turnsOf(t.project.id);
    expect(turn.status).toBe('failed');
    expect((await getProjectState(ctx, { user_id: t.user, project_id: t.project.id })).assets).toEqual([]);
  });

  it('ends the turn with 402 when the jobs service cannot charge an image', async () => {
    const t = await setup(40, (req) =>
      stepOfTurn(req) === 0 ? callTools([toolCall('generate_image', { prompt: 'a cat' })]) : say('unreachable'),
    );
    const err = await rejection(t.instruct('A cat'));
    expect(err.kind).toBe('payment_required');
    expect(err.body).toEqual({ error: 'Insufficient credits', credits_required: 50, credits_remaining: 35 });
    expect(billing.balance(t.user)).toBe(35);
  });

  it("ends the turn with the key's spend-limit 402 when an image would pass it, keeping the turn price", async () => {
    const spent = { error: 'Spend limit of this API key reached', credits_required: 50, credits_remaining: 20 };
    jobs.refusal = new AppError('payment_required', spent);
    const t = await setup(1000, (req) =>
      stepOfTurn(req) === 0 ? callTools([toolCall('generate_image', { prompt: 'a cat' })]) : say('unreachable'),
    );
    const err = await rejection(t.instruct('A cat'));
    expect(err.kind).toBe('payment_required');
    expect(err.body).toEqual(spent);
    expect(t.requests()).toHaveLength(1);
    expect(billing.balance(t.user)).toBe(995);
    const [turn] = await turnsOf(t.project.id);
    expect(turn.status).toBe('failed');
  });

  it("tells the model a generation refused by the key's concurrent-jobs cap was not charged, and the turn goes on", async () => {
    jobs.refusal = AppError.rateLimited('Too many concurrent jobs for this API key', 5);
    const t = await setup(1000, (req) =>
      stepOfTurn(req) === 0
        ? callTools([toolCall('generate_image', { prompt: 'a cat' })])
        : say('Your key is running too many jobs; try again in a moment.'),
    );
    const reply = await t.instruct('A cat');
    expect(reply.assistant_text).toBe('Your key is running too many jobs; try again in a moment.');
    expect(reply.assets_created).toEqual([]);
    expect(toolResults(t.requests()[1])).toEqual([
      {
        ok: false,
        error: 'the image generation was refused: Too many concurrent jobs for this API key. Nothing was charged.',
      },
    ]);
    expect(billing.balance(t.user)).toBe(995);
    const [turn] = await turnsOf(t.project.id);
    expect(turn.status).toBe('done');
  });

  it('refunds a voice line whose generation fails, not the turn, and tells the model', async () => {
    audio.failing = true;
    const t = await setup(100, (req) =>
      stepOfTurn(req) === 0
        ? callTools([toolCall('generate_voice', { text: 'Hello' })])
        : say('The voice failed; want me to retry next turn?'),
    );
    const reply = await t.instruct('Say hello');
    expect(reply.media_gen_done).toBe(false);
    expect(reply.assets_created).toEqual([]);
    expect(toolResults(t.requests()[1])).toEqual([
      { ok: false, error: 'the voice line could not be generated; its 10 credits were refunded.' },
    ]);
    expect(billing.balance(t.user)).toBe(95);
    const mediaRefunds = [...billing.refunds.entries()].filter(
      ([ref]) => ref.startsWith('media:') && billing.charges.get(ref)?.user === t.user,
    );
    expect(mediaRefunds).toEqual([[expect.stringMatching(/^media:ast_/), 10]]);
    expect(billing.refundsOf('turn:').filter(([ref]) => billing.charges.get(ref)?.user === t.user)).toEqual([]);
  });

  it('lets the model see a failed video job, refunded by jobs, while the turn price stays', async () => {
    jobs.outcome = 'fail';
    const t = await setup(2000, (req) =>
      stepOfTurn(req) === 0
        ? callTools([
            toolCall('generate_video', {
              prompt: 'Total: 4s / 1 shot(s) / 9:16\nwide shot, slow push in',
              duration_seconds: 4,
            }),
          ])
        : say('The video failed and was refunded.'),
    );
    const reply = await t.instruct('Make a 4 s video');
    expect(toolResults(t.requests()[1])).toEqual([
      {
        ok: false,
        error: 'the video generation failed (Reference image could not be fetched); its 908 credits were refunded.',
      },
    ]);
    expect(reply.media_gen_done).toBe(false);
    expect(billing.balance(t.user)).toBe(1995);
  });

  it('cancels (and so refunds) a generation that outlasts mediaWaitMs', async () => {
    jobs.outcome = 'hang';
    ctx.settings.mediaWaitMs = 300;
    const t = await setup(1000, (req) =>
      stepOfTurn(req) === 0 ? callTools([toolCall('generate_image', { prompt: 'slow' })]) : say('It took too long.'),
    );
    await t.instruct('Slow image');
    expect(toolResults(t.requests()[1])).toEqual([
      { ok: false, error: 'the generation took too long and was cancelled; its 50 credits were refunded.' },
    ]);
    const job = [...jobs.jobs.values()].find((j) => j.user === t.user)!;
    expect(job.status).toBe('cancelled');
    // Not the user's doing: the refund's ledger line says the editor cancelled it.
    expect(job.cancelledBy).toBe('editor');
    expect(billing.balance(t.user)).toBe(995);
  });

  it('turns bad arguments, unknown tools and missing clips into tool errors the model can read', async () => {
    const t = await setup(1000, (req) =>
      stepOfTurn(req) === 0
        ? callTools([
            toolCall('generate_video', { prompt: 'x', duration_seconds: 7 }),
            toolCall('move_clip', { clip_id: 'clp_nope', idx: 0 }),
            toolCall('fly_to_moon', {}),
            { id: 'call_raw', type: 'function', function: { name: 'append_context', arguments: '{not json' } },
            toolCall('add_clip', { track: 'video', asset_id: 'ast_missing' }),
            toolCall('generate_image', { prompt: 'ok', sharpness: 3 }),
          ])
        : say('Some of that did not work.'),
    );
    const reply = await t.instruct('Do odd things');
    const results = toolResults(t.requests()[1]);
    expect(results.map((r) => r.error)).toEqual([
      'duration_seconds must be one of 4, 5, 6, 8, 10, 15',
      "clip clp_nope is not on this video's timeline",
      expect.stringMatching(/^unknown tool "fly_to_moon"; available: generate_image, /),
      'arguments are not valid JSON: send one JSON object',
      'Asset not found',
      'unknown argument: sharpness (accepted: prompt, aspect_ratio)',
    ]);
    // None of those was a generation: the turn's one media generation is still available.
    expect(reply.media_gen_done).toBe(false);
    expect(billing.balance(t.user)).toBe(995);
  });

  it('answers 503 without charging when no language model is configured', async () => {
    const t = await setup(100, () => say('unused'));
    const saved = ctx.llm;
    ctx.llm = null;
    try {
      const err = await rejection(t.instruct('Hello'));
      expect(err.kind).toBe('unavailable');
      expect(err.body).toEqual({ error: LLM_NOT_CONFIGURED });
    } finally {
      ctx.llm = saved;
    }
    expect(billing.balance(t.user)).toBe(100);
  });

  it('answers 502 when the language model fails, keeping the turn price and saying nothing of the provider', async () => {
    const t = await setup(100, () => ({ status: 500, body: { error: { message: 'secret upstream detail' } } }));
    const err = await rejection(t.instruct('Hello'));
    expect(err.kind).toBe('upstream_failed');
    expect(err.body).toEqual({ error: PROVIDER_FAILED });
    expect(billing.balance(t.user)).toBe(95);
    const [turn] = await turnsOf(t.project.id);
    expect(turn.status).toBe('failed');
  });

  it('never interleaves two instructions on one video: the second waits for the first', async () => {
    const t = await setup(100, async (req) => {
      await new Promise((r) => setTimeout(r, 150));
      return stepOfTurn(req) < 2
        ? callTools([
            toolCall('append_context', {
              text: `from: ${req.messages.filter((m) => m.role === 'user').pop()!.content}`,
            }),
          ])
        : say('done');
    });
    const [a, b] = await Promise.all([t.instruct('turn A'), t.instruct('turn B')]);
    const span = (r: InstructReply) => [
      Date.parse(r.agent_events[0].at),
      Date.parse(r.agent_events[r.agent_events.length - 1].at),
    ];
    const [[a0, a1], [b0, b1]] = [span(a), span(b)];
    expect(a1 < b0 || b1 < a0).toBe(true);
    // Each turn's model calls are contiguous: no request of one turn falls between two of the other.
    const order = t.requests().map((r) => r.messages.filter((m) => m.role === 'user').pop()!.content);
    expect(order.join(',')).toMatch(
      /^(turn A,turn A,turn A,turn B,turn B,turn B|turn B,turn B,turn B,turn A,turn A,turn A)$/,
    );
    expect(billing.balance(t.user)).toBe(90);
  });

  it('answers 409 when another instruction keeps the video longer than turnLockWaitMs', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let modelCalled: () => void = () => undefined;
    const running = new Promise<void>((r) => (modelCalled = r));
    const t = await setup(100, async () => {
      modelCalled();
      await held;
      return say('finally');
    });
    const first = t.instruct('slow one');
    // The first turn is at its model call, so it holds the video's lock.
    await running;
    ctx.settings.turnLockWaitMs = 200;
    const err = await rejection(t.instruct('impatient'));
    expect(err.kind).toBe('conflict');
    expect(err.body).toEqual({ error: TURN_BUSY });
    release();
    expect((await first).assistant_text).toBe('finally');
    // The refused instruction was not charged.
    expect(billing.balance(t.user)).toBe(95);
  });
});
