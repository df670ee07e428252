import { Client } from 'pg';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { balance } from '../support/jobs';

/** Every validation message of the contract over real HTTP: 400, the exact message, nothing charged. */
describe('submit validation', () => {
  let fleet: PooledFleet;
  let user: TestUser;

  beforeAll(async () => {
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'all', 1000);
  });
  afterAll(async () => {
    // Nothing charged and no job created by any of them.
    expect(await balance(fleet, user.key)).toBe(1000);
    const db = new Client({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
    try {
      // The fleet is shared: count this user's jobs only.
      expect(
        (await db.query('SELECT count(*)::int AS n FROM jobs.jobs WHERE user_id = $1', [user.userId])).rows[0].n,
      ).toBe(0);
    } finally {
      await db.end();
    }
  });

  const video = '/api/v1/video/vidgen-2/generate';
  const image = '/api/v1/image/imagegen/generate';

  it.each([
    ['prompt is required (non-empty string)', video, { duration_seconds: 5 }],
    ['prompt is required (non-empty string)', image, { prompt: '' }],
    ['prompt too long (max 4000 chars)', video, { prompt: 'x'.repeat(4001) }],
    ['prompt too long (max 4000 chars)', image, { prompt: 'x'.repeat(4001) }],
    ['duration_seconds must be one of 4, 5, 6, 8, 10, 15', video, { prompt: 'p', duration_seconds: 7 }],
    ['duration_seconds must be one of 4, 5, 6, 8, 10, 15', video, { prompt: 'p', duration_seconds: '5' }],
    ['aspect_ratio must be one of 16:9, 9:16, 1:1, 4:3, 3:4, 21:9', video, { prompt: 'p', aspect_ratio: '2:3' }],
    ['resolution must be one of 480p, 720p', video, { prompt: 'p', resolution: '1080p' }],
    ['image_url must be a https URL', video, { prompt: 'p', image_url: 'http://example.com/a.png' }],
    [
      'fast mode supports text-to-video only (no image_url)',
      video,
      { prompt: 'p', fast: true, image_url: 'https://example.com/a.png' },
    ],
    ['image_urls items must be https URLs', image, { prompt: 'p', image_urls: ['ftp://example.com/a.png'] }],
    ['num_images must be 1-4', image, { prompt: 'p', num_images: 5 }],
    ['Invalid JSON body', video, '{"prompt": "unterminated'],
    ['Invalid JSON body', image, '{]'],
  ])('answers 400 "%s" (%s)', async (message, path, body) => {
    const res = await api(fleet, 'POST', path, { key: user.key, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: message });
  });

  it('names an unknown field instead of silently using a default', async () => {
    const res = await api(fleet, 'POST', video, { key: user.key, body: { prompt: 'p', duration: 10 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^unknown field: duration/);
  });
});
