/**
 * A mixed client load against the gateway: submits that complete, fail upstream, are refused by
 * the provider, are cancelled (some racing their completion) or left to time out, from several
 * users at once. Every answer is recorded, so the checks afterwards can hold the fleet to what it
 * told its clients. Requests go to the gateway over plain HTTP; while a service is down some get
 * errors or no answer at all, and that is recorded too.
 */

/** What a submit is meant to exercise; the fake fal reads the marker in the prompt. */
export type Scenario = 'complete' | 'fail' | 'provider-refuses' | 'cancel' | 'cancel-race' | 'time-out';

const MARKERS: Record<Scenario, string> = {
  complete: '',
  fail: ' [fal:fail]',
  'provider-refuses': ' [fal:submit-error]',
  cancel: ' [fal:never]',
  'cancel-race': '',
  'time-out': ' [fal:never]',
};

/**
 * With two routes (a Replicate fake first, the fal fake second), what the first route does: take and
 * finish the job itself, or refuse it at submit or fail it after taking it, so the fal route runs it
 * (the scenario's fal marker then decides). Jobs that must not finish stay on Replicate forever, or
 * fall through to fal and stay there.
 */
const FIRST_ROUTE: Record<Scenario, string[]> = {
  complete: ['', ' [rep:submit-error]', ' [rep:fail]'],
  fail: [' [rep:fail]', ' [rep:submit-429]'],
  'provider-refuses': [' [rep:submit-error]'],
  cancel: [' [rep:never]', ' [rep:fail]'],
  'cancel-race': ['', ' [rep:fail]'],
  'time-out': [' [rep:never]', ' [rep:submit-error]'],
};

/** Weights of each scenario in the mix (out of their sum). */
const MIX: [Scenario, number][] = [
  ['complete', 45],
  ['fail', 12],
  ['provider-refuses', 8],
  ['cancel', 15],
  ['cancel-race', 15],
  ['time-out', 5],
];

export interface LoadUser {
  key: string;
  userId: number;
}

/** One client request and what came back: an HTTP status, or no answer (`unreachable`/`timeout`). */
export interface Outcome {
  phase: string;
  user: number;
  scenario: Scenario;
  op: 'submit' | 'cancel';
  /** The last answer (a submit is retried with its Idempotency-Key while the answer is unknown). */
  status: number | 'unreachable' | 'timeout';
  /** How many times it was sent. */
  attempts: number;
  jobId?: string;
}

/** Answers after which a client cannot know whether its submit happened, so it retries with the same key. */
const UNKNOWN = new Set<Outcome['status']>([503, 'unreachable', 'timeout']);
const SUBMIT_ATTEMPTS = 4;

export interface LoadOptions {
  baseUrl: string;
  users: LoadUser[];
  /** Concurrent clients. */
  clients: number;
  /** Pause between one client's requests, ms. */
  pauseMs: number;
  /** A client gives up on an answer after this long, ms. */
  requestTimeoutMs: number;
  seed: number;
  /** Two routes: prompts also carry the first route's (Replicate fake's) markers. */
  twoRoutes?: boolean;
}

export interface Load {
  outcomes: Outcome[];
  /** Labels the requests sent from now on (the fault being injected). */
  setPhase: (phase: string) => void;
  /** Stops sending and waits for the requests (and scheduled cancels) still in flight. */
  stop: () => Promise<void>;
}

/** mulberry32: a repeatable mix for a given seed (the run prints its seed). */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick(rand: () => number): Scenario {
  const total = MIX.reduce((s, [, w]) => s + w, 0);
  let r = rand() * total;
  for (const [scenario, weight] of MIX) {
    if ((r -= weight) < 0) return scenario;
  }
  return 'complete';
}

async function call(
  baseUrl: string,
  method: string,
  path: string,
  key: string,
  timeoutMs: number,
  body?: unknown,
  idempotencyKey?: string,
): Promise<{ status: Outcome['status']; json: Record<string, unknown> | null }> {
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: Record<string, unknown> | null = null;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* an error page from a dying process: the status is what counts */
    }
    return { status: res.status, json };
  } catch (err) {
    const name = (err as Error).name;
    return { status: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable', json: null };
  }
}

export function startLoad(opts: LoadOptions): Load {
  const outcomes: Outcome[] = [];
  const rand = seededRandom(opts.seed);
  const inFlight = new Set<Promise<void>>();
  let phase = 'warm-up';
  let running = true;
  let n = 0;

  const track = (p: Promise<void>): void => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  const cancelLater = (user: number, scenario: Scenario, jobId: string, delayMs: number, label: string): void => {
    track(
      (async () => {
        await new Promise((r) => setTimeout(r, delayMs));
        const { status } = await call(
          opts.baseUrl,
          'DELETE',
          `/api/v1/jobs/${jobId}`,
          opts.users[user].key,
          opts.requestTimeoutMs,
        );
        outcomes.push({ phase: label, user, scenario, op: 'cancel', status, attempts: 1, jobId });
      })(),
    );
  };

  const submitOne = async (): Promise<void> => {
    const user = Math.floor(rand() * opts.users.length);
    const scenario = pick(rand);
    const label = phase;
    const video = rand() < 0.25;
    const id = n++;
    const first = opts.twoRoutes ? FIRST_ROUTE[scenario][Math.floor(rand() * FIRST_ROUTE[scenario].length)] : '';
    const prompt = `load ${id} ${scenario}${MARKERS[scenario]}${first}`;
    const path = video ? '/api/v1/video/vidgen-2/generate' : '/api/v1/image/imagegen/generate';
    const body = video ? { prompt, duration_seconds: 4, resolution: '480p' } : { prompt };
    // What a careful client does: one Idempotency-Key per logical request, retried while the outcome is unknown.
    const idempotencyKey = `load-${opts.seed}-${id}`;
    let attempts = 0;
    let answer: Awaited<ReturnType<typeof call>>;
    do {
      if (attempts > 0) await new Promise((r) => setTimeout(r, 500 + rand() * 1000));
      answer = await call(
        opts.baseUrl,
        'POST',
        path,
        opts.users[user].key,
        opts.requestTimeoutMs,
        body,
        idempotencyKey,
      );
      attempts++;
    } while (UNKNOWN.has(answer.status) && attempts < SUBMIT_ATTEMPTS);
    const { status, json } = answer;
    const jobId = typeof json?.job_id === 'string' ? json.job_id : undefined;
    outcomes.push({ phase: label, user, scenario, op: 'submit', status, attempts, jobId });
    if (status !== 202 || !jobId) return;
    // A cancel of a job that never ends; or one sent about when the job completes (either may win).
    if (scenario === 'cancel') cancelLater(user, scenario, jobId, 200 + rand() * 1500, label);
    if (scenario === 'cancel-race') cancelLater(user, scenario, jobId, rand() * 600, label);
  };

  const client = async (): Promise<void> => {
    while (running) {
      await submitOne();
      await new Promise((r) => setTimeout(r, opts.pauseMs * (0.5 + rand())));
    }
  };
  const clients = Array.from({ length: opts.clients }, () => client());

  return {
    outcomes,
    setPhase: (p) => {
      phase = p;
    },
    stop: async () => {
      running = false;
      await Promise.all(clients);
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
