/**
 * Admin CLI: `npm run --silent admin -- <command> [flags]`. Prints one JSON object on stdout;
 * on failure a clear message on stderr and exit code 1 (2 for usage errors).
 */
import { parseArgs } from 'node:util';
import { Bus } from '@mf/bus';
import { createDb, migrate, type Knex } from '@mf/db';
import { isAppError } from '@mf/errors';
import { createLogger } from '@mf/logger';
import { migrations } from '../../migrations';
import { runBatch } from './batch';
import { loadGatewayConfig } from '../config';
import { keyRevocations } from '../core/auth/key-revocations';
import { createApiKey, revokeApiKey } from '../core/usecases/api-keys.usecase';
import { validateOperatorReportQuery } from '../core/reports/operator-report-query';
import { operatorReport, writeOperatorReportCsv } from '../core/reports/operator-report.usecase';
import { changeKeyLimits } from '../core/usecases/key-limits.usecase';
import { createUser, grantCredits, requireUserByEmail, ROLES, setUserRole } from '../core/usecases/users.usecase';
import { clearWebhook, getWebhook, listWebhookDeliveries, setWebhook } from '../core/usecases/webhooks.usecase';

class UsageError extends Error {}

/** A command's answer printed as it is (CSV), instead of as one JSON object. */
class PlainText {
  constructor(readonly text: string) {}
}

const USAGE = `usage: npm run --silent admin -- <command> [flags]   (--help: this list)
  user:create   --email E [--password P] [--credits N]   -> {user_id, email}
  user:role     --email E --role admin|user              -> {user_id, email, role}
  key:create    --email E --scopes s1,s2|all [--name N]  -> {id, key, prefix, scopes}
  key:revoke    --id N                                   -> {id, revoked_at}
  key:limits    --id N [--spend-limit N|none] [--max-concurrent-jobs N|none]
                (credits per calendar month; jobs at once; none = no limit; a flag left out keeps its value; no flag: a read) -> {api_key_id, spend_limit, max_concurrent_jobs, spent_this_period, active_jobs}
  credits:grant --email E --amount N                     -> {credits_remaining}
  webhook:set        --key-id N --url U                  -> {url, secret?} (secret only when newly generated)
  webhook:clear      --key-id N                          -> {cleared}
  webhook:get        --key-id N                          -> {url, created_at, updated_at, failing_since, disabled_at}
  webhook:deliveries --key-id N [--limit N]              -> {deliveries: [...]}
  usage:report  [--from D] [--to D] [--by user|model|provider] [--credit-value USD] [--csv]
                (range [from, to), default this month (UTC); by user when not said; credit value
                default CREDIT_VALUE_USD) -> {from, to, by, credit_value, rows: [...], totals}, or CSV
  batch         (stdin: one command per line as a JSON array of its words, e.g. ["key:revoke","--id","7"];
                one connection for all) -> one JSON line per command: {exit, result|text|error, warnings?}`;

interface Ctx {
  db: Knex;
  bus: () => Promise<Bus>;
  /** A warning for stderr; the command still succeeds. */
  warn: (message: string) => void;
  /** --csv was given. */
  csv: boolean;
  creditValueUsd: number;
}

type Flags = Record<string, string | undefined>;

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function positiveInt(value: string, name: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${name} must be a positive integer`);
  return Number(value);
}

function atMost(n: number, max: number, name: string): number {
  if (n > max) throw new UsageError(`--${name} must be at most ${max}`);
  return n;
}

/** A limit flag: left out = unchanged (undefined), `none` = no limit (null). */
function limitFlag(value: string | undefined): number | string | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  return /^\d+$/.test(value) ? Number(value) : value;
}

const commands: Record<string, (flags: Flags, ctx: Ctx) => Promise<object>> = {
  'usage:report': async (flags, ctx) => {
    const ask = validateOperatorReportQuery({ from: flags.from, to: flags.to, by: flags.by });
    if (!ask.ok) throw new UsageError(`--${ask.error}`);
    const creditValue = flags['credit-value'] === undefined ? ctx.creditValueUsd : Number(flags['credit-value']);
    if (!Number.isFinite(creditValue) || creditValue < 0 || !/^\d/.test(flags['credit-value'] ?? '0'))
      throw new UsageError('--credit-value must be a number of US dollars, 0 or more');
    const report = await operatorReport({ db: ctx.db, bus: await ctx.bus() }, ask.value, creditValue);
    if (!ctx.csv) return report;
    let text = '';
    await writeOperatorReportCsv(report, {
      write: (chunk) => {
        text += chunk;
        return Promise.resolve();
      },
    });
    return new PlainText(text);
  },
  'user:create': async (flags, ctx) => {
    const credits =
      flags.credits === undefined ? undefined : flags.credits === '0' ? 0 : positiveInt(flags.credits, 'credits');
    // Reach billing before creating anything, so a stopped billing leaves no half-made user.
    const bus = credits ? await ctx.bus() : undefined;
    const user = await createUser(ctx.db, { email: need(flags, 'email'), password: flags.password });
    if (credits && bus) await grantCredits(bus, user.id, credits, `grant:user-create-${user.id}`, 'initial credits');
    return { user_id: user.id, email: user.email };
  },
  'user:role': async (flags, ctx) => {
    const role = need(flags, 'role');
    if (!(ROLES as readonly string[]).includes(role))
      throw new UsageError(`--role must be one of: ${ROLES.join(', ')}`);
    const user = await setUserRole(ctx.db, need(flags, 'email'), role);
    return { user_id: user.id, email: user.email, role: user.role };
  },
  'key:create': async (flags, ctx) => {
    const user = await requireUserByEmail(ctx.db, need(flags, 'email'));
    const k = await createApiKey(ctx.db, user.id, need(flags, 'scopes').split(','), flags.name ?? '');
    return { id: k.id, key: k.key, prefix: k.prefix, scopes: k.scopes };
  },
  'key:revoke': async (flags, ctx) => {
    const id = positiveInt(need(flags, 'id'), 'id');
    // The running gateways cache keys: they are told through the broker (key-revocations.ts).
    const broadcast = keyRevocations({ bus: ctx.bus, logger: createLogger('admin-cli', 'silent') });
    let told = true;
    const result = await revokeApiKey(ctx.db, { announce: async (key) => (told = await broadcast.announce(key)) }, id);
    if (!told)
      ctx.warn(
        'warning: the key is revoked, but the broker could not be reached to tell the running gateways: they may accept it until their key cache expires (KEY_CACHE_TTL_MS)',
      );
    return result;
  },
  'key:limits': async (flags, ctx) =>
    changeKeyLimits({ db: ctx.db, bus: await ctx.bus() }, positiveInt(need(flags, 'id'), 'id'), {
      spend_limit: limitFlag(flags['spend-limit']),
      max_concurrent_jobs: limitFlag(flags['max-concurrent-jobs']),
    }),
  'credits:grant': async (flags, ctx) => {
    const user = await requireUserByEmail(ctx.db, need(flags, 'email'));
    const amount = positiveInt(need(flags, 'amount'), 'amount');
    return { credits_remaining: await grantCredits(await ctx.bus(), user.id, amount, undefined, 'admin grant') };
  },
  'webhook:set': async (flags, ctx) =>
    setWebhook(ctx.db, await ctx.bus(), positiveInt(need(flags, 'key-id'), 'key-id'), need(flags, 'url')),
  'webhook:clear': async (flags, ctx) =>
    clearWebhook(ctx.db, await ctx.bus(), positiveInt(need(flags, 'key-id'), 'key-id')),
  'webhook:get': async (flags, ctx) =>
    getWebhook(ctx.db, await ctx.bus(), positiveInt(need(flags, 'key-id'), 'key-id')),
  'webhook:deliveries': async (flags, ctx) =>
    listWebhookDeliveries(
      ctx.db,
      await ctx.bus(),
      positiveInt(need(flags, 'key-id'), 'key-id'),
      flags.limit === undefined ? undefined : atMost(positiveInt(flags.limit, 'limit'), 500, 'limit'),
    ),
};

const HELP = new Set(['--help', '-h', 'help']);
/** Every flag a command may take (all strings; --csv aside). */
const FLAG_NAMES = [
  ...['email', 'password', 'credits', 'scopes', 'name', 'id', 'amount', 'key-id', 'url', 'limit', 'role'],
  ...['spend-limit', 'max-concurrent-jobs', 'from', 'to', 'by', 'credit-value'],
];

/** What one command printed and its exit code. */
export interface CliResult {
  code: number;
  stdout?: string;
  stderr?: string;
}

/** A command line read: either answered already (help, usage error) or a handler to run with its flags. */
type ParsedCommand =
  | { answered: CliResult }
  | { answered?: undefined; handler: (flags: Flags, ctx: Ctx) => Promise<object>; flags: Flags; csv: boolean };

function parseCommand(argv: string[]): ParsedCommand {
  const [command, ...rest] = argv;
  // Asking for help is not a mistake: the command list on stdout, exit 0 (also `<command> --help`).
  if (command === undefined) return { answered: { code: 2, stderr: USAGE } };
  if (HELP.has(command) || rest.some((a) => a === '--help' || a === '-h'))
    return { answered: { code: 0, stdout: `${USAGE}\n` } };
  const handler = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!handler) return { answered: { code: 2, stderr: `unknown command: ${command}\n${USAGE}` } };
  const csv = rest.includes('--csv');
  try {
    const flags = parseArgs({
      args: rest.filter((a) => a !== '--csv'),
      options: Object.fromEntries(FLAG_NAMES.map((name) => [name, { type: 'string' as const }])),
      strict: true,
    }).values;
    return { handler, flags, csv };
  } catch (err) {
    return { answered: { code: 2, stderr: `${(err as Error).message}\n${USAGE}` } };
  }
}

/**
 * The database and broker connections commands run on: opened once, for one command or for a whole
 * batch (admin/batch.ts); the schema is migrated before the first command, the broker joined only
 * by the first command that needs it.
 */
export interface AdminSession {
  run(argv: string[]): Promise<CliResult>;
  close(): Promise<void>;
}

export function openAdminSession(): AdminSession {
  const config = loadGatewayConfig();
  const logger = createLogger('admin-cli', 'silent');
  const db = createDb({ url: config.DATABASE_URL, schema: 'gateway', poolMax: 2 });
  let migrated: Promise<unknown> | undefined;
  let bus: Bus | undefined;
  const busStarted = async (): Promise<Bus> => {
    bus ??= new Bus({
      url: config.AMQP_URL,
      service: 'admin-cli',
      logger,
      rpcTimeoutMs: config.RPC_TIMEOUT_MS,
      maxConnectAttempts: 3,
      reconnectMinMs: 300,
    });
    await bus.start();
    return bus;
  };
  return {
    async run(argv) {
      const parsed = parseCommand(argv);
      if (parsed.answered) return parsed.answered;
      const warnings: string[] = [];
      try {
        await (migrated ??= migrate(db, 'gateway', migrations));
        const result = await parsed.handler(parsed.flags, {
          db,
          csv: parsed.csv,
          creditValueUsd: config.CREDIT_VALUE_USD,
          warn: (message) => warnings.push(message),
          bus: busStarted,
        });
        const stdout = result instanceof PlainText ? result.text : `${JSON.stringify(result)}\n`;
        return { code: 0, stdout, ...(warnings.length ? { stderr: warnings.join('\n') } : {}) };
      } catch (err) {
        if (err instanceof UsageError) return { code: 2, stderr: `${err.message}\n${USAGE}` };
        const message = isAppError(err)
          ? err.kind === 'unavailable'
            ? 'a service did not answer: are billing, jobs and webhook-dispatcher running?'
            : err.body.error
          : (err as Error).message;
        return { code: 1, stderr: `error: ${message}` };
      }
    },
    async close() {
      await bus?.close(1000);
      await db.destroy();
    },
  };
}

/** One command: its own connections, closed when it is done. */
export async function runCli(argv: string[]): Promise<CliResult> {
  const parsed = parseCommand(argv);
  if (parsed.answered) return parsed.answered;
  const session = openAdminSession();
  try {
    return await session.run(argv);
  } finally {
    await session.close();
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'batch') {
    if (argv.length > 1) {
      process.stderr.write(`batch takes no flags: its commands come on stdin\n${USAGE}\n`);
      return 2;
    }
    const session = openAdminSession();
    try {
      return await runBatch(process.stdin, process.stdout, session);
    } finally {
      await session.close();
    }
  }
  const { code, stdout, stderr } = await runCli(argv);
  if (stdout) process.stdout.write(stdout);
  if (stderr) process.stderr.write(`${stderr}\n`);
  return code;
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => process.exit(code));
