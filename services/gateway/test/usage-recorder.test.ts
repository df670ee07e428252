import { createDb, migrate, type Knex } from '@mf/db';
import { createTestDatabase, silentLogger, type TestDatabase } from '@mf/testing';
import { migrations } from '../migrations';
import { insertApiKey } from '../src/core/repositories/api-keys.repository';
import type { UsageRecord } from '../src/core/repositories/usage.repository';
import { insertUser } from '../src/core/repositories/users.repository';
import { USAGE_BATCH_ROWS, UsageRecorder } from '../src/core/usage/usage-recorder';

const HOUR = 3_600_000;

/** Usage records against the real database: batched, nothing lost on a graceful stop. */
describe('UsageRecorder', () => {
  let database: TestDatabase;
  let db: Knex;
  let n = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({ url: database.url, schema: 'gateway', poolMax: 4 });
    await migrate(db, 'gateway', migrations);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const newKey = async () => {
    const user = await insertUser(db, { email: `u${n++}@example.test`, password_hash: null });
    const key = await insertApiKey(db, {
      user_id: user.id,
      name: '',
      prefix: `mf_live_${n}`,
      key_hash: `hash-${n}-${Date.now()}`,
      scopes: ['models:read'],
    });
    return { userId: user.id, keyId: key.id };
  };

  const usageRow = (k: { userId: number; keyId: number }, i: number): UsageRecord => ({
    api_key_id: k.keyId,
    user_id: k.userId,
    method: i % 2 ? 'POST' : 'GET',
    path: `/api/v1/jobs/job_${i}?q="quoted"\\back`,
    status: 200 + (i % 300),
    duration_ms: i,
    request_id: `req-${i}`,
    created_at: new Date(Date.UTC(2030, 0, 1, 0, 0, 0, i % 1000)),
  });

  const stored = async (keyIds: number[]) =>
    db('usage')
      .select('api_key_id', 'user_id', 'method', 'path', 'status', 'duration_ms', 'request_id', 'created_at')
      .whereIn('api_key_id', keyIds)
      .orderBy('id');

  const lastUsed = async (keyIds: number[]) =>
    (await db('api_keys').select('last_used_at').whereIn('id', keyIds)).map((r) => r.last_used_at);

  it('writes buffered records on the tick, in order and unchanged, and stamps their keys as used', async () => {
    const a = await newKey();
    const b = await newKey();
    const recorder = new UsageRecorder(db, silentLogger(), HOUR);
    const rows = [usageRow(a, 1), usageRow(b, 2), usageRow(a, 3)];
    rows.forEach((r) => recorder.record(r));
    expect(await stored([a.keyId, b.keyId])).toEqual([]);
    await recorder.flush();
    expect(await stored([a.keyId, b.keyId])).toEqual(rows);
    expect(await lastUsed([a.keyId, b.keyId])).toEqual([expect.any(Date), expect.any(Date)]);
    await recorder.stop();
  });

  it('writes a burst larger than a batch and whatever is still buffered when stopped (graceful shutdown)', async () => {
    const k = await newKey();
    const recorder = new UsageRecorder(db, silentLogger(), HOUR);
    const rows = Array.from({ length: USAGE_BATCH_ROWS * 2 + 345 }, (_, i) => usageRow(k, i));
    rows.forEach((r) => recorder.record(r));
    await recorder.stop();
    expect(await stored([k.keyId])).toEqual(rows);
  });

  it('keeps the records when the database refuses a batch and writes them with the next one', async () => {
    const k = await newKey();
    const recorder = new UsageRecorder(db, silentLogger(), HOUR);
    recorder.record(usageRow(k, 1));
    await db.raw('ALTER TABLE usage RENAME TO usage_away');
    try {
      await recorder.flush();
    } finally {
      await db.raw('ALTER TABLE usage_away RENAME TO usage');
    }
    expect(await stored([k.keyId])).toEqual([]);
    recorder.record(usageRow(k, 2));
    await recorder.stop();
    expect(await stored([k.keyId])).toEqual([usageRow(k, 1), usageRow(k, 2)]);
  });
});
