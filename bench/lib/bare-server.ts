/**
 * The baseline server, run as its own process (like a service): bare express 5 and a pg Pool on
 * the same database, nothing else (no auth, no logging, no validation, no broker).
 *
 *   GET  /row/:id   one row by primary key (BARE_ROW_TABLE, default jobs.jobs), as JSON
 *   POST /submit    inserts one row into bench.submits and answers 202 {job_id}
 *   POST /submit-job  the submit's fair floor: one transaction inserting a job row (bench.jobs, a
 *                   copy of jobs.jobs) and debiting the balance (bench.balances, a copy of
 *                   billing.balances; 402 when short), then one HTTPS POST to the provider
 *                   (BARE_PROVIDER_URL, key BARE_PROVIDER_KEY) on a keep-alive agent, then 202
 *
 * Env: DATABASE_URL, BARE_POOL_MAX (10, the services' pool size), BARE_ROW_TABLE, BARE_USER_ID,
 * BARE_PROVIDER_URL, BARE_PROVIDER_KEY (NODE_EXTRA_CA_CERTS to trust the provider). Prints
 * {"port":N} on stdout once listening on 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { escapeIdentifier, Pool } from 'pg';
import { express, type Request, type Response } from './deps';

const table = process.env.BARE_ROW_TABLE ?? 'jobs.jobs';
if (!/^[a-z_]+\.[a-z_]+$/.test(table)) throw new Error('BARE_ROW_TABLE must be schema.table');
const [rowSchema, rowTable] = table.split('.');
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.BARE_POOL_MAX ?? 10) });

const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '1mb' }));

app.get('/row/:id', async (req: Request, res: Response) => {
  const { rows } = await pool.query(
    `SELECT * FROM ${escapeIdentifier(rowSchema)}.${escapeIdentifier(rowTable)} WHERE id = $1`,
    [req.params.id],
  );
  if (rows.length === 0) return void res.status(404).json({ error: 'not found' });
  res.json(rows[0]);
});

app.post('/submit', async (req: Request, res: Response) => {
  const id = `job_${randomUUID().replace(/-/g, '')}`;
  await pool.query('INSERT INTO bench.submits (id, body) VALUES ($1, $2)', [id, req.body]);
  res.status(202).json({ job_id: id, status: 'processing' });
});

const providerAgent = new https.Agent({ keepAlive: true });
const JOB_COST = 50;

/** One POST to the provider, answered JSON; resolves its status and parsed body. */
function providerSubmit(body: unknown): Promise<{ status: number; body: unknown }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${process.env.BARE_PROVIDER_URL}/fal-ai/imagegen-2`,
      {
        method: 'POST',
        agent: providerAgent,
        headers: {
          authorization: `Key ${process.env.BARE_PROVIDER_KEY}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

app.post('/submit-job', async (req: Request, res: Response) => {
  const id = `job_${randomUUID().replace(/-/g, '')}`;
  const userId = Number(process.env.BARE_USER_ID);
  const db = await pool.connect();
  let credits: number;
  try {
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO bench.jobs (id, user_id, api_key_id, type, model_id, upstream_model, params, cost, status, provider, deadline_at)
       VALUES ($1, $2, 1, 'image', 'imagegen-2', 'fal-ai/imagegen-2', $3, $4, 'processing', 'fal', now() + interval '1 hour')`,
      [id, userId, req.body, JOB_COST],
    );
    const debit = await db.query<{ credits: string }>(
      'UPDATE bench.balances SET credits = credits - $2, updated_at = now() WHERE user_id = $1 AND credits >= $2 RETURNING credits',
      [userId, JOB_COST],
    );
    if (debit.rows.length === 0) {
      await db.query('ROLLBACK');
      return void res.status(402).json({ error: 'Insufficient credits' });
    }
    await db.query('COMMIT');
    credits = Number(debit.rows[0].credits);
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    db.release();
  }
  const upstream = await providerSubmit(req.body);
  if (upstream.status !== 200) return void res.status(502).json({ error: 'provider refused' });
  res.status(202).json({
    job_id: id,
    status: 'processing',
    model: 'imagegen-2',
    credits_consumed: JOB_COST,
    credits_remaining: credits,
    poll_url: `/api/v1/jobs/${id}`,
  });
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
});
