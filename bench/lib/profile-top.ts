/**
 * Prints the top self-time entries of a V8 .cpuprofile (as written by `node --cpu-prof`, e.g. by
 * BENCH_CPU_PROF=<dir> on the bench fleet): by function, and by where the code lives (a package
 * under node_modules, node's internals, or a file of ours). Idle time is left out; percentages are
 * of the busy samples.
 *
 *   node --import tsx bench/lib/profile-top.ts <file.cpuprofile|dir> [--top N] [--from S] [--to S]
 *
 * It also prints how busy the process was in each second of the profile, so `--from`/`--to`
 * (seconds since the profile started) can keep just one phase of a bench (e.g. leave out start-up).
 */
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: the package, node's internals, V8's pseudo-frames, or our file. */
function whereOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:internals';
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/((?:services|libs|bench)\/.+)$/.exec(url.replace(/^file:\/\//, ''));
  return ours ? ours[1] : url;
}

interface TopEntry {
  label: string;
  ms: number;
  share: number;
}

interface Window {
  fromSec: number;
  toSec: number;
}

/** Busy share of each second of the profile, e.g. `0:94% 1:100% 2:37%`. */
function timeline(profile: CpuProfile): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const busy: number[] = [];
  let t = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    const s = Math.floor(t / 1e6);
    const idle = byId.get(id)?.functionName === '(idle)';
    busy[s] = (busy[s] ?? 0) + (idle ? 0 : (profile.timeDeltas[i] ?? 0));
  });
  return Array.from(busy, (us, s) => `${s}:${Math.round((us ?? 0) / 1e4)}%`).join(' ');
}

/** Self time per function and per place, busiest first (idle excluded), within the window. */
function topSelfTime(
  profile: CpuProfile,
  n: number,
  window: Window,
): { busyMs: number; fns: TopEntry[]; places: TopEntry[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const fnMs = new Map<string, number>();
  const placeMs = new Map<string, number>();
  let busyUs = 0;
  let t = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    t += us;
    if (t < window.fromSec * 1e6 || t >= window.toSec * 1e6) return;
    if (!frame || frame.functionName === '(idle)') return;
    busyUs += us;
    const place = whereOf(frame.url, frame.functionName);
    const fn = `${frame.functionName || '(anonymous)'} ${place}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    fnMs.set(fn, (fnMs.get(fn) ?? 0) + us);
    placeMs.set(place, (placeMs.get(place) ?? 0) + us);
  });
  const top = (m: Map<string, number>): TopEntry[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([label, us]) => ({ label, ms: us / 1000, share: busyUs ? us / busyUs : 0 }));
  return { busyMs: busyUs / 1000, fns: top(fnMs), places: top(placeMs) };
}

function print(file: string, n: number, window: Window): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const { busyMs, fns, places } = topSelfTime(profile, n, window);
  const line = (e: TopEntry) =>
    `  ${e.ms.toFixed(0).padStart(7)} ms ${(e.share * 100).toFixed(1).padStart(5)}%  ${e.label}`;
  const range =
    Number.isFinite(window.toSec) || window.fromSec > 0 ? `, seconds ${window.fromSec}-${window.toSec}` : '';
  console.log(`${file}: ${(busyMs / 1000).toFixed(1)} s busy${range}`);
  console.log(` busy per second: ${timeline(profile)}`);
  console.log(` self time by function (top ${n}):`);
  fns.forEach((e) => console.log(line(e)));
  console.log(` self time by place (top ${n}):`);
  places.forEach((e) => console.log(line(e)));
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string): number | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args[at + 1]) : undefined;
  };
  const n = option('--top') ?? 25;
  const window = { fromSec: option('--from') ?? 0, toSec: option('--to') ?? Infinity };
  const target = args.find((a, i) => !a.startsWith('--') && (i === 0 || !args[i - 1].startsWith('--')));
  if (!target || !Number.isInteger(n) || n < 1 || Number.isNaN(window.fromSec) || Number.isNaN(window.toSec)) {
    console.error(
      'usage: node --import tsx bench/lib/profile-top.ts <file.cpuprofile|dir> [--top N] [--from S] [--to S]',
    );
    process.exit(2);
  }
  const files = fs.statSync(target).isDirectory()
    ? fs
        .readdirSync(target, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => path.join(target, f))
    : [target];
  files.forEach((f) => print(f, n, window));
}

main();
