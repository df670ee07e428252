/**
 * What the container smoke test does through the containerised gateway, as a client would: a user
 * and key from the admin CLI, an image from the local provider fetched from /media, and a one-clip
 * project (that image, imported over https from the reference server) exported to mp4.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probe } from '../../test-e2e/support/media';

export interface FlowDeps {
  baseUrl: string;
  admin: (...args: string[]) => Promise<Record<string, unknown>>;
  /** The https reference server the editor-agent container trusts; serves /ref.png. */
  reference: { url: string };
  log: (line: string) => void;
}

interface Answer {
  status: number;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers, checked field by field
}

/** Where the flow's media ended up: the generated image and the exported video, as the API gave them. */
export interface FlowResult {
  imageUrl: string;
  videoUrl: string;
}

export async function runFlow({ baseUrl, admin, reference, log }: FlowDeps): Promise<FlowResult> {
  const email = `smoke${Date.now()}@example.test`;
  const user = await admin('user:create', '--email', email, '--credits', '1000');
  const key = String((await admin('key:create', '--email', email, '--scopes', 'all', '--name', 'smoke')).key);
  if (!key.startsWith('mf_')) throw new Error(`admin key:create printed no key: ${key}`);
  log(`\nadmin CLI inside the gateway container: user ${String(user.user_id)} with 1000 credits and an all-scopes key`);

  const call = async (method: string, p: string, body?: unknown, timeoutMs = 60_000): Promise<Answer> => {
    const res = await fetch(`${baseUrl}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
  const expectStatus = (what: string, a: Answer, status: number): Answer['body'] => {
    if (a.status !== status) throw new Error(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
    return a.body;
  };

  // --- generate an image with the local provider --------------------------------------------------
  let t = Date.now();
  const sub = expectStatus(
    'generate',
    await call('POST', '/api/v1/image/imagegen/generate', { prompt: 'a container smoke test' }),
    202,
  );
  let job: Answer['body'] = sub;
  while (job.status === 'processing' || job.status === 'queued') {
    if (Date.now() - t > 120_000) throw new Error(`job ${String(sub.job_id)} still ${String(job.status)} after 120 s`);
    await new Promise((r) => setTimeout(r, 500));
    job = expectStatus('poll', await call('GET', `/api/v1/jobs/${String(sub.job_id)}`), 200);
  }
  if (job.status !== 'completed')
    throw new Error(`job ${String(sub.job_id)} ended ${String(job.status)}: ${JSON.stringify(job.error)}`);
  const imageUrl = String(job.result.images[0]);
  const image = await fetch(imageUrl);
  const png = Buffer.from(await image.arrayBuffer());
  if (
    image.status !== 200 ||
    !png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  ) {
    throw new Error(`GET ${imageUrl}: ${image.status}, ${png.length} bytes, not a PNG`);
  }
  log(
    `image job ${String(sub.job_id)}: ${String(sub.credits_consumed)} credits, completed in ${((Date.now() - t) / 1000).toFixed(1)} s; ${png.length} bytes of PNG from ${new URL(imageUrl).pathname}`,
  );

  // --- a one-clip project, exported ------------------------------------------------------------
  t = Date.now();
  const studio = '/api/v1/media-studio/projects';
  const { project } = expectStatus(
    'create project',
    await call('POST', studio, { name: 'Container smoke', aspect_ratio: '16:9' }),
    200,
  );
  const { asset } = expectStatus(
    'import asset',
    await call('POST', `${studio}/${String(project.id)}/assets`, { url: `${reference.url}/ref.png` }),
    200,
  );
  expectStatus(
    'add clip',
    await call('POST', `${studio}/${String(project.id)}/clips`, {
      track: 'video',
      asset_id: asset.id,
      duration_sec: 2,
    }),
    200,
  );
  const exported = expectStatus(
    'export',
    await call('POST', `${studio}/${String(project.id)}/export`, {}, 300_000),
    200,
  );
  if (exported.video_clip_count !== 1) throw new Error(`export: ${JSON.stringify(exported)}`);
  const video = await fetch(String(exported.video_url));
  const mp4 = Buffer.from(await video.arrayBuffer());
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-smoke-')), 'export.mp4');
  fs.writeFileSync(file, mp4);
  try {
    const probed = await probe(file);
    if (video.status !== 200 || probed.video?.codec !== 'h264' || Math.abs(probed.duration - 2) > 0.1) {
      throw new Error(`GET ${String(exported.video_url)}: ${video.status}, ${JSON.stringify(probed)}`);
    }
    log(
      `project ${String(project.id)}: one 2 s clip exported in ${((Date.now() - t) / 1000).toFixed(1)} s; ` +
        `${mp4.length} bytes, ${probed.video.width}x${probed.video.height} h264, ${probed.duration.toFixed(2)} s, from ${new URL(String(exported.video_url)).pathname}`,
    );
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
  return { imageUrl, videoUrl: String(exported.video_url) };
}
