import { api, type Fleet } from './fleet';

/** Polls GET /jobs/:id until the job leaves processing (or the time runs out). */
export async function waitForJob(
  fleet: Pick<Fleet, 'baseUrl'>,
  key: string,
  jobId: string,
  timeoutMs = 90_000,
  // Job bodies are asserted field by field by the tests.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(fleet, 'GET', `/api/v1/jobs/${jobId}`, { key });
    if (res.status !== 200) throw new Error(`GET job ${jobId}: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.status !== 'processing') return res.body;
    if (Date.now() > until) throw new Error(`job ${jobId} still processing after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function balance(fleet: Pick<Fleet, 'baseUrl'>, key: string): Promise<number> {
  const res = await api(fleet, 'GET', '/api/v1/account', { key });
  if (res.status !== 200) throw new Error(`account: ${res.status}`);
  return res.body.credits_remaining as number;
}

/**
 * Waits until the balance is `expected`. A failed job becomes visible in the same commit that
 * records its refund as owed; the refund itself lands a moment later (see docs/jobs.md).
 */
export async function balanceBecomes(
  fleet: Pick<Fleet, 'baseUrl'>,
  key: string,
  expected: number,
  timeoutMs = 15_000,
): Promise<number> {
  const until = Date.now() + timeoutMs;
  let now = await balance(fleet, key);
  while (now !== expected && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    now = await balance(fleet, key);
  }
  return now;
}

/** Polls a condition (a side effect that follows a visible state change). */
export async function eventually(check: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return check();
}

/** Polls a condition, sync or async, until it holds; throws naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
