import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { REPO_ROOT, type ServiceForm } from '@mf/fleet';

/**
 * The admin CLI for tests: one long-lived `admin batch` process per fleet (services/gateway/src/admin/batch.ts)
 * instead of a process per command. Tests create hundreds of users and keys; each process start loads
 * the gateway's bundle and joins the database and the broker, which on two cores is most of a test's
 * time. Commands are answered in the order they were written.
 */
interface Waiter {
  args: string[];
  resolve: (result: Record<string, unknown>) => void;
  reject: (err: Error) => void;
}

interface BatchLine {
  exit: number;
  result?: Record<string, unknown>;
  text?: string;
  error?: string;
}

export function adminEntry(form: ServiceForm): string[] {
  return form === 'compiled'
    ? [`${REPO_ROOT}/services/gateway/dist/admin.js`]
    : ['--import', 'tsx', `${REPO_ROOT}/services/gateway/src/admin/cli.ts`];
}

class AdminBatch {
  private child: ChildProcess | undefined;
  private waiting: Waiter[] = [];
  private stderr = '';

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly form: ServiceForm,
  ) {}

  run(args: string[]): Promise<Record<string, unknown>> {
    const child = this.child ?? this.start();
    return new Promise((resolve, reject) => {
      this.waiting.push({ args, resolve, reject });
      child.stdin!.write(`${JSON.stringify(args)}\n`);
    });
  }

  /** Ends the batch (its stdin) and waits for it to exit; killed if it has not within 10 s. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  private start(): ChildProcess {
    const child = spawn(process.execPath, [...adminEntry(this.form), 'batch'], {
      cwd: REPO_ROOT,
      env: this.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    readline.createInterface({ input: child.stdout }).on('line', (line) => this.answer(line));
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      const why = `the admin batch exited (${signal ?? code}): ${this.stderr}`;
      for (const w of this.waiting.splice(0)) w.reject(new Error(`admin ${w.args.join(' ')} failed: ${why}`));
    });
    return child;
  }

  private answer(line: string): void {
    const w = this.waiting.shift();
    if (!w) return;
    const a = JSON.parse(line) as BatchLine;
    if (a.exit === 0) w.resolve(a.result ?? { text: a.text });
    else w.reject(new Error(`admin ${w.args.join(' ')} failed (exit ${a.exit}): ${a.error}`));
  }
}

const batches = new Map<string, AdminBatch>();
const keyOf = (env: NodeJS.ProcessEnv, form: ServiceForm): string => `${form} ${env.DATABASE_URL} ${env.AMQP_URL}`;

/** The fleet's admin CLI command runner (one batch per database, broker and form, started on first use). */
export function adminBatchFor(
  env: NodeJS.ProcessEnv,
  form: ServiceForm,
): (args: string[]) => Promise<Record<string, unknown>> {
  return (args) => {
    const key = keyOf(env, form);
    let batch = batches.get(key);
    if (!batch) batches.set(key, (batch = new AdminBatch(env, form)));
    return batch.run(args);
  };
}

/** Ends the batch of one fleet (before its services stop), or of every fleet (after a test file). */
export async function closeAdminBatches(env?: NodeJS.ProcessEnv): Promise<void> {
  const keys = [...batches.keys()].filter((k) => !env || k.endsWith(` ${env.DATABASE_URL} ${env.AMQP_URL}`));
  await Promise.all(keys.map((k) => batches.get(k)!.close()));
  for (const k of keys) batches.delete(k);
}
