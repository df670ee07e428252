/**
 * Reads the V8 CPU profiles the fleet writes with BENCH_CPU_PROF=<dir> (one per service, named by
 * the pids.json the fleet writes there) and prints, per service, its busy share and the top
 * functions and packages by self time. Only samples inside window.json ({startUs, endUs}: the
 * bench's measured load, process.hrtime in microseconds, the clock V8 stamps samples with) count,
 * so start-up and shutdown stay out.
 *
 *   node --import tsx bench/lib/cpu-profile.ts <dir|file.cpuprofile> [--top N] [--from S] [--to S]
 *
 * `--from`/`--to` (seconds since each profile started) keep one phase instead of window.json; the
 * busy share of each second is printed to pick it. Without pids.json a profile is named by its file.
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileWindow {
  startUs: number;
  endUs: number;
}

/** Now on the profiles' clock (microseconds). */
export function profileClockUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Records the measured window next to the profiles. */
export function writeProfileWindow(dir: string, window: ProfileWindow): void {
  fs.writeFileSync(path.join(dir, 'window.json'), JSON.stringify(window));
}

/** Records which service each pid is, so the profiles can be named. */
export function writeProfilePids(dir: string, pids: Record<number, string>): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'pids.json'), JSON.stringify(pids));
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** node_modules/<pkg> (scoped too), node:internal, our libs or services, or the special nodes. */
function areaOf(frame: ProfileNode['callFrame']): string {
  if (SPECIAL.has(frame.functionName) && !frame.url) return frame.functionName;
  const url = frame.url;
  const mod = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1];
  if (url.startsWith('node:')) return 'node (internal)';
  const ours = /\/(services\/[^/]+|libs\/[^/]+)\//.exec(url);
  if (ours) return ours[1];
  return url ? 'other' : '(native)';
}

function label(frame: ProfileNode['callFrame']): string {
  const file = frame.url
    ? frame.url.replace(/^.*\/(node_modules|services|libs)\//, '$1/').replace(/^file:\/\//, '')
    : '';
  return `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
}

export interface ServiceProfile {
  name: string;
  /** Milliseconds sampled in the window, and of those not idle. */
  totalMs: number;
  busyMs: number;
  functions: [string, number][];
  areas: [string, number][];
  /** Busy share (0-100) of each second since the profile started, window or not. */
  perSecond: number[];
}

export function summarize(name: string, profile: CpuProfile, window?: ProfileWindow): ServiceProfile {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  let busy = 0;
  const perSecondUs: number[] = [];
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(profile.samples[i]);
    const second = Math.floor((t - profile.startTime) / 1e6);
    if (node && node.callFrame.functionName !== '(idle)') perSecondUs[second] = (perSecondUs[second] ?? 0) + dt;
    if (window && (t < window.startUs || t > window.endUs)) continue;
    if (!node) continue;
    total += dt;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += dt;
    const l = label(node.callFrame);
    fn.set(l, (fn.get(l) ?? 0) + dt);
    const a = areaOf(node.callFrame);
    area.set(a, (area.get(a) ?? 0) + dt);
  }
  const sorted = (m: Map<string, number>) =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / 1000] as [string, number]);
  const perSecond = Array.from(perSecondUs, (us) => Math.round((us ?? 0) / 1e4));
  return { name, totalMs: total / 1000, busyMs: busy / 1000, functions: sorted(fn), areas: sorted(area), perSecond };
}

/** Seconds since a profile started (the --from/--to options). */
export interface PhaseSeconds {
  fromSec: number;
  toSec: number;
}

const readJson = <T>(file: string): T | undefined =>
  fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : undefined;

/**
 * The profiles in `target` (a directory the fleet wrote, or one file), named by pids.json when
 * there is one, each summarised within `phase`, else within the bench's window.json, else whole.
 */
export function readProfiles(target: string, phase?: PhaseSeconds): ServiceProfile[] {
  const isDir = fs.statSync(target).isDirectory();
  const dir = isDir ? target : path.dirname(target);
  const files = isDir ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [path.basename(target)];
  const pids = readJson<Record<string, string>>(path.join(dir, 'pids.json'));
  const benchWindow = readJson<ProfileWindow>(path.join(dir, 'window.json'));
  const out: ServiceProfile[] = [];
  for (const file of files) {
    const pid = /^CPU\.\d+\.\d+\.(\d+)\./.exec(file)?.[1];
    const name = pids ? (pid ? pids[pid] : undefined) : file;
    if (!name) continue;
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const window = phase
      ? { startUs: profile.startTime + phase.fromSec * 1e6, endUs: profile.startTime + phase.toSec * 1e6 }
      : benchWindow;
    out.push(summarize(name, profile, window));
  }
  return out.sort((a, b) => b.busyMs - a.busyMs);
}

function print(profiles: ServiceProfile[], top: number): void {
  const pct = (v: number, of: number) => `${((100 * v) / (of || 1)).toFixed(1)}%`;
  for (const p of profiles) {
    console.log(
      `\n== ${p.name}: busy ${p.busyMs.toFixed(0)} ms of ${p.totalMs.toFixed(0)} ms sampled (${pct(p.busyMs, p.totalMs)})`,
    );
    console.log(`  busy per second: ${p.perSecond.map((share, second) => `${second}:${share}%`).join(' ')}`);
    console.log('  by package (self time, share of busy):');
    for (const [k, v] of p.areas.slice(0, 10)) console.log(`    ${pct(v, p.busyMs).padStart(6)}  ${k}`);
    console.log('  top functions (self time):');
    for (const [k, v] of p.functions.slice(0, top)) console.log(`    ${pct(v, p.busyMs).padStart(6)}  ${k}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  const args = process.argv.slice(2);
  const option = (name: string): number | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args[at + 1]) : undefined;
  };
  const target = args[0];
  const top = option('--top') ?? 15;
  const from = option('--from');
  const to = option('--to');
  const phase = from !== undefined || to !== undefined ? { fromSec: from ?? 0, toSec: to ?? Infinity } : undefined;
  if (!target || target.startsWith('--') || !Number.isInteger(top) || Number.isNaN(from) || Number.isNaN(to)) {
    console.error('usage: cpu-profile.ts <dir|file.cpuprofile> [--top N] [--from S] [--to S]');
    process.exit(2);
  }
  print(readProfiles(target, phase), top);
}
