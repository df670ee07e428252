/**
 * The baseline server, run as its own process (like a service): bare express 5 and a pg Pool on
 * the same database, nothing else (no auth, no logging, no validation, no broker).
 *
 *   GET  /row/:id   one row by primary key (BARE_ROW_TABLE, default jobs.jobs), as JSON
 *   POST /submit    inserts one row into bench.submits and answers 202 {job_id}
 *
 * Env: DATABASE_URL, BARE_POOL_MAX (10, the services' pool size), BARE_ROW_TABLE. Prints
 * {"port":N} on stdout once listening on 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { express, type Request, type Response } from './deps';

const table = process.env.BARE_ROW_TABLE ?? 'jobs.jobs';
if (!/^[a-z_]+\.[a-z_]+$/.test(table)) throw new Error('BARE_ROW_TABLE must be schema.table');
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.BARE_POOL_MAX ?? 10) });

const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '1mb' }));

app.get('/row/:id', async (req: Request, res: Response) => {
  const { rows } = await pool.query(`SELECT * FROM ${table} WHERE id = $1`, [req.params.id]);
  if (rows.length === 0) return void res.status(404).json({ error: 'not found' });
  res.json(rows[0]);
});

app.post('/submit', async (req: Request, res: Response) => {
  const id = `job_${randomUUID().replace(/-/g, '')}`;
  await pool.query('INSERT INTO bench.submits (id, body) VALUES ($1, $2)', [id, req.body]);
  res.status(202).json({ job_id: id, status: 'processing' });
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
});
