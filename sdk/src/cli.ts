// The mediaforge CLI: `node --import tsx sdk/src/cli.ts <command>` (or the `mediaforge` bin).
// Reads MEDIAFORGE_API_KEY and MEDIAFORGE_BASE_URL (default http://localhost:8080).
import { checkFlags, didYouMean, int, parseArgs, str, UsageError, type Parsed } from './cli-args';
import { flagsUsage, IMAGE_FIELD_FLAGS, VIDEO_FIELD_FLAGS, wrapUsage } from './cli-fields';
import { IMAGE_PARAM_FLAGS, imageParams, VIDEO_PARAM_FLAGS, videoParams } from './cli-params';
import { MediaforgeClient } from './client';
import { print, submitted } from './cli-submitted';
import { TRIGGER_USAGE, trigger } from './cli-trigger';
import { ledgerCommand, printReport, USAGE_USAGE, usageCommand } from './cli-usage';
import { WEBHOOK_USAGE, webhookCommand } from './cli-webhook';
import { estimateOfImage, estimateOfVideo } from './estimate';
import { ApiError, JobFailedError } from './errors';
import {
  DELIVERED_EVENT_TYPES,
  listen,
  LISTEN_ONLY_EVENT_TYPES,
  LISTEN_SIGNATURE_SCHEMES,
  type ListenSignatureScheme,
} from './cli-listen';
import type { Job, JobEventType, ListJobsParams } from './types';

const USAGE = `Usage: mediaforge <command> [options]

Commands:
  ${wrapUsage(['generate video', ...flagsUsage(VIDEO_FIELD_FLAGS), '[--wait]', '[--out clip.mp4]'], 17)}
  ${wrapUsage(['generate image', ...flagsUsage(IMAGE_FIELD_FLAGS), '[--wait]', '[--out img.png]'], 17)}
  estimate video|image [the generate flags]
                  what that generate would cost, and whether your balance covers it (nothing charged)
  job <id>        show a job (its input included)
  jobs [--status S] [--model M] [--type video|image] [--limit N] [--starting-after ID] [--all]
                  list your jobs, newest first (key scope jobs:read); --all follows every page
  cancel <id>     cancel a processing job
  models          list the models
  account         show the credit balance
${USAGE_USAGE}
${TRIGGER_USAGE}
${WEBHOOK_USAGE}
  listen --forward-to URL [--events job.completed,...] [--signature-scheme stripe|standard]
                  POST each job event to URL exactly as a webhook delivery of it (prints the
                  secret it signs with); job.completed, job.failed, job.cancelled unless --events
                  names others (job.processing and job.progress are sent to listen only);
                  --signature-scheme standard signs with Standard Webhooks headers

Environment: MEDIAFORGE_API_KEY (required), MEDIAFORGE_BASE_URL (default http://localhost:8080).
Output is JSON on stdout; progress and errors go to stderr. --out implies --wait.`;

const COMMANDS = [
  'generate',
  'estimate',
  'job',
  'jobs',
  'cancel',
  'models',
  'account',
  'usage',
  'ledger',
  'trigger',
  'webhook',
  'listen',
  'help',
];
const VIDEO_FLAGS = [...VIDEO_PARAM_FLAGS, 'wait', 'out'];
const IMAGE_FLAGS = [...IMAGE_PARAM_FLAGS, 'wait', 'out'];
const JOBS_FLAGS = ['status', 'model', 'type', 'limit', 'starting-after', 'all'];

/** `jobs`: one page (the API's answer as is), or with --all every matching job as one array. */
async function listJobs(client: MediaforgeClient, p: Parsed): Promise<void> {
  checkFlags(p, JOBS_FLAGS);
  const params: ListJobsParams = {};
  const status = str(p, 'status');
  if (status) params.status = status as ListJobsParams['status'];
  const model = str(p, 'model');
  if (model) params.model = model as ListJobsParams['model'];
  const type = str(p, 'type');
  if (type) params.type = type as ListJobsParams['type'];
  const limit = int(p, 'limit');
  if (limit !== undefined) params.limit = limit;
  const startingAfter = str(p, 'starting-after');
  if (!p.flags.has('all')) {
    print(await client.listJobs({ ...params, ...(startingAfter ? { starting_after: startingAfter } : {}) }));
    return;
  }
  if (startingAfter) throw new UsageError('--all starts from the newest job: leave out --starting-after');
  const jobs: Job[] = [];
  for await (const job of client.listAllJobs(params)) jobs.push(job);
  print({ jobs });
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let p: Parsed;
  try {
    p = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const [cmd, sub] = p.positional;
  if (!cmd || p.flags.has('help') || cmd === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return cmd || p.flags.has('help') ? 0 : 2;
  }
  if (!COMMANDS.includes(cmd)) {
    process.stderr.write(`unknown command: ${cmd}${didYouMean(cmd, COMMANDS)}\n\n${USAGE}\n`);
    return 2;
  }
  const apiKey = env.MEDIAFORGE_API_KEY;
  if (!apiKey) {
    process.stderr.write('MEDIAFORGE_API_KEY is not set\n');
    return 2;
  }
  const client = new MediaforgeClient({
    baseUrl: env.MEDIAFORGE_BASE_URL || 'http://localhost:8080',
    apiKey,
    userAgent: 'mediaforge-cli/0.1.0',
  });
  try {
    switch (cmd) {
      case 'generate': {
        if (sub !== 'video' && sub !== 'image')
          throw new UsageError(`generate what? video or image${sub ? didYouMean(sub, ['video', 'image']) : ''}`);
        // Unknown flags first: a misspelt --prompt must be named as such, not reported as missing.
        checkFlags(p, sub === 'video' ? VIDEO_FLAGS : IMAGE_FLAGS);
        if (sub === 'video') await submitted(client, p, await client.generateVideo(videoParams(p)));
        else await submitted(client, p, await client.generateImage(imageParams(p)));
        return 0;
      }
      case 'estimate': {
        if (sub !== 'video' && sub !== 'image')
          throw new UsageError(`estimate what? video or image${sub ? didYouMean(sub, ['video', 'image']) : ''}`);
        checkFlags(p, sub === 'video' ? VIDEO_PARAM_FLAGS : IMAGE_PARAM_FLAGS);
        const body = sub === 'video' ? estimateOfVideo(videoParams(p)) : estimateOfImage(imageParams(p));
        print(await client.estimate(body));
        return 0;
      }
      case 'job':
        checkFlags(p, []);
        if (!sub) throw new UsageError('job <id>');
        print(await client.getJob(sub));
        return 0;
      case 'jobs':
        await listJobs(client, p);
        return 0;
      case 'cancel':
        checkFlags(p, []);
        if (!sub) throw new UsageError('cancel <id>');
        print(await client.cancelJob(sub));
        return 0;
      case 'models':
        checkFlags(p, []);
        print(await client.listModels());
        return 0;
      case 'listen': {
        checkFlags(p, ['forward-to', 'events', 'signature-scheme']);
        const forwardTo = str(p, 'forward-to');
        if (!forwardTo) throw new UsageError('--forward-to is required');
        const events = str(p, 'events')?.split(',');
        const known = [...DELIVERED_EVENT_TYPES, ...LISTEN_ONLY_EVENT_TYPES] as readonly string[];
        const unknown = events?.find((t) => !known.includes(t));
        if (unknown !== undefined)
          throw new UsageError(`--events: unknown event type ${unknown} (one of ${known.join(', ')})`);
        const scheme = str(p, 'signature-scheme') ?? 'stripe';
        if (!(LISTEN_SIGNATURE_SCHEMES as readonly string[]).includes(scheme))
          throw new UsageError(`--signature-scheme must be one of ${LISTEN_SIGNATURE_SCHEMES.join(', ')}`);
        const stop = new AbortController();
        process.once('SIGINT', () => stop.abort());
        await listen(client, {
          forwardTo,
          events: events as JobEventType[] | undefined,
          scheme: scheme as ListenSignatureScheme,
          signal: stop.signal,
        });
        return 0;
      }
      case 'account':
        checkFlags(p, []);
        print(await client.getAccount());
        return 0;
      case 'usage':
        printReport(await usageCommand(client.usage, p));
        return 0;
      case 'ledger':
        printReport(await ledgerCommand(client.ledger, p));
        return 0;
      case 'trigger':
        print(await trigger(client, p));
        return 0;
      case 'webhook':
        print(await webhookCommand(client.webhook, p));
        return 0;
      default:
        throw new UsageError(`unknown command: ${cmd}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (e instanceof JobFailedError) {
      process.stderr.write(`error: ${e.message}\n`);
      print(e.job);
      return 1;
    }
    if (e instanceof ApiError) {
      process.stderr.write(`error: ${e.name} ${e.message}${e.requestId ? ` (request ${e.requestId})` : ''}\n`);
      return 1;
    }
    process.stderr.write(`error: ${(e as Error).message ?? String(e)}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
