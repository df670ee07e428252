import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ROUTING_KEYS } from '@mf/contracts';
import { outputKey } from '../src/domain/job';
import { findJob } from '../src/repositories/jobs.repository';
import { advanceDueJobs } from '../src/usecases/poll-round.usecase';
import type { JobsContext } from '../src/usecases/context';
import { getJob } from '../src/usecases/read-jobs.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { startHarness, type Harness } from './support/jobs-harness';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(64 * 1024, 7)]);

/** A download that hands `chunks` to the write, then fails with `failure` if given (a dropped connection). */
function fakeDownload(chunks: Buffer[], failure?: Error): { fn: JobsContext['downloadResult']; urls: string[] } {
  const urls: string[] = [];
  const fn: JobsContext['downloadResult'] = (url, write) => {
    urls.push(url);
    async function* body(): AsyncGenerator<Buffer> {
      for (const chunk of chunks) {
        yield chunk;
        await new Promise((r) => setImmediate(r)); // the next chunk "arrives" later
      }
      if (failure) throw failure;
    }
    return write(Readable.from(body()));
  };
  return { fn, urls };
}

/** Every file under dir (recursively), relative to it. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

describe('a result at a URL goes straight from the download into storage', () => {
  let h: Harness;
  let user = 700;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  async function processingJob(): Promise<{ userId: number; jobId: string }> {
    user++;
    h.billing.balances.set(user, 50);
    const { job_id } = await submitJob(h.ctx, {
      user_id: user,
      api_key_id: 1,
      type: 'image',
      params: { prompt: 'p', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 1 },
    });
    await h.db('jobs').update({ next_poll_at: h.db.fn.now() }).where({ id: job_id });
    return { userId: user, jobId: job_id };
  }

  it("completes the job with the body stored under the attempt's key, with the content type the provider named", async () => {
    const { userId, jobId } = await processingJob();
    const download = fakeDownload([PNG.subarray(0, 1000), PNG.subarray(1000)]);
    h.ctx.downloadResult = download.fn;
    h.provider.next = () => ({
      state: 'completed',
      outputs: [{ kind: 'url', url: 'https://cdn.upstream.test/out.webp', contentType: 'image/webp' }],
    });
    await advanceDueJobs(h.ctx, 50);

    expect(download.urls).toEqual(['https://cdn.upstream.test/out.webp']);
    const job = await getJob(h.ctx, { user_id: userId, job_id: jobId });
    expect(job.status).toBe('completed');
    const key = outputKey(jobId, 'image', 0);
    expect(await h.ctx.storage.stat(key)).toMatchObject({ size: PNG.length, contentType: 'image/webp' });
    const stored: Buffer[] = [];
    for await (const chunk of await h.ctx.storage.get(key)) stored.push(chunk as Buffer);
    expect(Buffer.concat(stored).equals(PNG)).toBe(true);
    const events = await h.db('outbox').where({ job_id: jobId, routing_key: ROUTING_KEYS.jobCompleted });
    expect(events).toHaveLength(1);
  });

  it('stores nothing, leaves no partial file, and polls the job again later when the download fails midway', async () => {
    const { userId, jobId } = await processingJob();
    h.ctx.downloadResult = fakeDownload([PNG.subarray(0, 1000)], new Error('connection reset')).fn;
    h.provider.next = () => ({
      state: 'completed',
      outputs: [{ kind: 'url', url: 'https://cdn.upstream.test/x.png' }],
    });
    await advanceDueJobs(h.ctx, 50);

    expect((await getJob(h.ctx, { user_id: userId, job_id: jobId })).status).toBe('processing');
    expect(await h.ctx.storage.stat(outputKey(jobId, 'image', 0))).toBeNull();
    expect(filesUnder(path.join(h.mediaDir, 'objects', 'jobs', jobId))).toEqual([]);
    expect(filesUnder(path.join(h.mediaDir, 'tmp'))).toEqual([]);
    const row = await findJob(h.db, jobId);
    expect(row?.poll_failures).toBe(1);
    expect(row!.next_poll_at!.getTime()).toBeGreaterThan(Date.now());
    expect(await h.db('outbox').where({ job_id: jobId, routing_key: ROUTING_KEYS.jobCompleted })).toHaveLength(0);

    // The next poll downloads it whole: the job completes then.
    h.ctx.downloadResult = fakeDownload([PNG]).fn;
    await h.db('jobs').update({ next_poll_at: h.db.fn.now() }).where({ id: jobId });
    await advanceDueJobs(h.ctx, 50);
    expect((await getJob(h.ctx, { user_id: userId, job_id: jobId })).status).toBe('completed');
    expect(await h.ctx.storage.stat(outputKey(jobId, 'image', 0))).toMatchObject({ size: PNG.length });
  });
});
