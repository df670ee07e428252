import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';
import { waitForJob } from '../support/jobs';
import { openSse, readUntil, type SseEvent } from '../support/sse-client';

const TERMINAL = ['job.completed', 'job.failed', 'job.cancelled'];
const HEARTBEAT_MS = 300;

/**
 * Job progress and the per-user event log (docs/events.md): GET /api/v1/events, the job's stream
 * and the user's stream, resumed with Last-Event-ID, on any gateway replica.
 */
describe('job events: the event log and its server-sent event streams', () => {
  let fleet: Fleet;
  let user: TestUser;

  beforeAll(async () => {
    fleet = await startFleet({ RATE_LIMIT_PER_MINUTE: '100000', SSE_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    user = await userWithKey(fleet, 'video:write,image:write,jobs:read', 50_000);
  }, 240_000);
  afterAll(async () => {
    await fleet?.shutdown();
  });

  /** A video long enough to report progress on the way. */
  const submitVideo = async (key = user.key): Promise<string> => {
    const res = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key,
      body: { prompt: 'a lighthouse in a storm', duration_seconds: 8, resolution: '720p', aspect_ratio: '21:9' },
    });
    expect(res.status).toBe(202);
    return res.body.job_id as string;
  };
  const jobStream = (jobId: string, lastEventId?: string, key = user.key) =>
    openSse(`${fleet.baseUrl}/api/v1/jobs/${jobId}/events`, { key, lastEventId });
  const userStream = (lastEventId?: string, baseUrl = fleet.baseUrl, key = user.key) =>
    openSse(`${baseUrl}/api/v1/events/stream`, { key, lastEventId });
  const isEndOf = (jobId: string) => (e: SseEvent) =>
    TERMINAL.includes(e.event) && (JSON.parse(e.data) as { job_id: string }).job_id === jobId;
  /** The job's events in the log, oldest first. */
  const logOf = async (jobId: string): Promise<Array<{ id: string; type: string; data: { progress: number } }>> => {
    const all: Array<{ id: string; type: string; job_id: string; data: { progress: number } }> = [];
    let after: string | null = null;
    do {
      const res = await api(fleet, 'GET', `/api/v1/events?limit=100${after ? `&after=${after}` : ''}`, {
        key: user.key,
      });
      expect(res.status).toBe(200);
      all.push(...res.body.events);
      after = res.body.next_cursor;
    } while (after);
    return all.filter((e) => e.job_id === jobId);
  };

  it('streams a job from its current state through its progress to job.completed, whose data is the job as GET shows it, then ends', async () => {
    const jobId = await submitVideo();
    const stream = await jobStream(jobId);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toBe('no-cache');
    const events = await readUntil(stream, () => false); // the stream ends by itself
    stream.close();

    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(['job.processing', 'job.progress']).toContain(events[0].event);
    const last = events[events.length - 1];
    expect(last.event).toBe('job.completed');
    const job = (await api(fleet, 'GET', `/api/v1/jobs/${jobId}`, { key: user.key })).body;
    expect(JSON.parse(last.data)).toEqual(job);
    expect(job.progress).toBe(100);
    const ids = events.map((e) => e.id!);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // Every event after the first is the log's, in order; progress figures are percentages that never go back.
    const log = await logOf(jobId);
    expect(ids.slice(1)).toEqual(log.map((e) => e.id).filter((id) => id > ids[0]));
    const progress = log.filter((e) => e.type === 'job.progress').map((e) => e.data.progress);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => Number.isInteger(p) && p >= 0 && p < 100)).toBe(true);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('resumes a dropped job stream with Last-Event-ID: every event once, none missing', async () => {
    const jobId = await submitVideo();
    const first = await jobStream(jobId);
    const before = [await first.next(), await first.next()].filter((e): e is SseEvent => e !== undefined);
    first.close(); // the connection drops
    const resumed = await jobStream(jobId, before[before.length - 1].id);
    const after = await readUntil(resumed, () => false);
    resumed.close();
    const seen = [...before, ...after].map((e) => e.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(after[after.length - 1].event).toBe('job.completed');
    const log = (await logOf(jobId)).map((e) => e.id);
    expect(seen).toEqual(log.filter((id) => id >= before[0].id!));
  });

  it('follows every job of the user on /events/stream, and a resume from any event replays exactly the rest', async () => {
    const stream = await userStream();
    expect(stream.status).toBe(200);
    const a = await submitVideo();
    const b = await submitVideo();
    const ended = new Set<string>();
    const live = await readUntil(stream, (e) => {
      const data = JSON.parse(e.data) as { job_id: string };
      if (TERMINAL.includes(e.event)) ended.add(data.job_id);
      return ended.has(a) && ended.has(b);
    });
    stream.close();
    const jobsSeen = new Set(live.map((e) => (JSON.parse(e.data) as { job_id: string }).job_id));
    expect(jobsSeen).toEqual(new Set([a, b]));
    const log = [...(await logOf(a)), ...(await logOf(b))].map((e) => e.id).sort();
    expect(live.map((e) => e.id)).toEqual(log);

    // From the first event: the rest, once each, in order (the log fills what the stream did not see).
    const resumed = await userStream(live[0].id);
    const rest = await readUntil(resumed, (e) => e.id === live[live.length - 1].id);
    resumed.close();
    expect(rest.map((e) => e.id)).toEqual(live.slice(1).map((e) => e.id));
  });

  it('pages the event log with after and limit, and refuses a cursor that is not an event id', async () => {
    const jobId = await submitVideo();
    await waitForJob(fleet, user.key, jobId);
    const all = await logOf(jobId);
    expect(all[0].type).toBe('job.processing');
    expect(all[all.length - 1].type).toBe('job.completed');

    const first = await api(fleet, 'GET', `/api/v1/events?limit=1`, { key: user.key });
    expect(first.body.events).toHaveLength(1);
    expect(first.body.next_cursor).toBe(first.body.events[0].id);
    const second = await api(fleet, 'GET', `/api/v1/events?limit=1&after=${first.body.next_cursor}`, { key: user.key });
    expect(second.body.events[0].id > first.body.events[0].id).toBe(true);
    expect(first.headers.get('cache-control')).toBe('no-store');

    const bad = await api(fleet, 'GET', '/api/v1/events?after=42', { key: user.key });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'after must be an event id (evt_...)' });
    expect((await api(fleet, 'GET', '/api/v1/events?limit=101', { key: user.key })).status).toBe(400);
    const badResume = await userStream('yesterday');
    expect(badResume.status).toBe(400);
    expect(badResume.body).toEqual({ error: 'Last-Event-ID must be an event id (evt_...)' });
  });

  it("answers 404 for another user's job stream, and shows nobody else's events", async () => {
    const other = await userWithKey(fleet, 'video:write', 5_000);
    const theirs = await submitVideo(other.key);
    const refused = await jobStream(theirs);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: 'Job not found' });
    expect((await jobStream('job_doesNotExist')).status).toBe(404);
    const mine = await api(fleet, 'GET', '/api/v1/events?limit=100', { key: user.key });
    expect(mine.body.events.some((e: { job_id: string }) => e.job_id === theirs)).toBe(false);
  });

  it('limits a key to 10 open streams (the 11th is a 429) and frees a slot when one closes', async () => {
    const limited = await userWithKey(fleet, 'jobs:read');
    const open = [];
    for (let i = 0; i < 10; i++) {
      const s = await userStream(undefined, fleet.baseUrl, limited.key);
      expect(s.status).toBe(200);
      open.push(s);
    }
    const refused = await userStream(undefined, fleet.baseUrl, limited.key);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Too many open event streams for this API key (limit 10)' });
    // Another key of the same service is not affected.
    const elsewhere = await userStream();
    expect(elsewhere.status).toBe(200);
    elsewhere.close();

    open.pop()!.close();
    let again = await userStream(undefined, fleet.baseUrl, limited.key);
    for (let i = 0; i < 50 && again.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 100)); // the server notices the closed connection
      again = await userStream(undefined, fleet.baseUrl, limited.key);
    }
    expect(again.status).toBe(200);
    again.close();
    for (const s of open) s.close();
  });

  it('sends a comment heartbeat on an idle stream', async () => {
    const idle = await userWithKey(fleet, 'jobs:read');
    const stream = await userStream(undefined, fleet.baseUrl, idle.key);
    const next = stream.next(); // no event will come: only heartbeats
    for (let i = 0; i < 100 && stream.comments() < 2; i++) await new Promise((r) => setTimeout(r, HEARTBEAT_MS / 3));
    expect(stream.comments()).toBeGreaterThanOrEqual(2);
    stream.close();
    await next;
  });

  it('delivers every event of a user to a stream on another gateway replica', async () => {
    const replica = await fleet.startReplica('gateway', { SSE_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    try {
      const stream = await userStream(undefined, replica.baseUrl);
      expect(stream.status).toBe(200);
      const jobId = await submitVideo(); // through the first gateway
      const events = await readUntil(stream, isEndOf(jobId));
      stream.close();
      expect(events.map((e) => e.id)).toEqual((await logOf(jobId)).map((e) => e.id));
    } finally {
      await replica.stop();
    }
  });
});
