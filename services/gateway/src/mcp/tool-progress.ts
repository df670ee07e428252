import type { Job } from '@mf/contracts';
import type { EventHub } from '../core/events/event-hub';

/** One progress notification: MCP requires `progress` to rise with each. */
export interface ProgressReport {
  progress: number;
  total?: number;
  message: string;
}

/** A stage of a followed call: what it does now and, when known, its percent done (0-100). */
export type ProgressStep = (message: string, percent?: number) => void;

/** A heartbeat step: small, so a known percentage stays readable in `progress`. */
const HEARTBEAT_STEP = 0.01;

/**
 * Progress of a long tool call: a heartbeat every `intervalMs` (it resets the client's request
 * timer), and, when `events` is given, the real percentage of each generation the editor runs for
 * the tool's project (`job.progress` events of its `editor` jobs) as soon as it is reported, with
 * total 100; and each stage the work itself reports through `step` (an agent turn's steps, an
 * export's percent rendered). Values only rise (a heartbeat or a stage without a percent adds a hundredth).
 */
export async function withToolProgress<T>(
  opts: {
    toolName: string;
    intervalMs: number;
    report: (r: ProgressReport) => Promise<void>;
    events?: { hub: EventHub; userId: number; projectId?: string };
  },
  work: (step: ProgressStep) => Promise<T>,
): Promise<T> {
  let value = 0;
  let known: { jobId: string; percent: number } | null = null;
  let percentKnown = false;
  const send = (r: ProgressReport) => void opts.report(r).catch(() => undefined); // a lost one only costs a timer reset
  const timer = setInterval(() => {
    value += HEARTBEAT_STEP;
    send(
      known
        ? { progress: value, total: 100, message: `${opts.toolName}: generating ${known.jobId}, ${known.percent}%` }
        : { progress: value, message: `${opts.toolName} still running` },
    );
  }, opts.intervalMs);
  const ev = opts.events;
  const stop = ev?.projectId
    ? ev.hub.subscribe(ev.userId, (e) => {
        if (!e.jobId) return;
        const job = e.data as Job;
        if (job.source !== 'editor' || job.project_id !== ev.projectId || job.progress === null) return;
        known = { jobId: job.job_id, percent: job.progress };
        value = Math.max(value + HEARTBEAT_STEP, job.progress);
        send({ progress: value, total: 100, message: `${opts.toolName}: generating ${job.job_id}, ${job.progress}%` });
      })
    : undefined;
  const step: ProgressStep = (message, percent) => {
    if (percent !== undefined) percentKnown = true;
    value = percent === undefined ? value + HEARTBEAT_STEP : Math.max(value + HEARTBEAT_STEP, percent);
    const total = percentKnown || known ? 100 : undefined;
    send({ progress: value, ...(total && { total }), message: `${opts.toolName}: ${message}` });
  };
  try {
    return await work(step);
  } finally {
    clearInterval(timer);
    stop?.();
  }
}
