/**
 * Prints the top self-time entries of a V8 .cpuprofile (as written by `node --cpu-prof`, e.g. by
 * BENCH_CPU_PROF=<dir> on the bench fleet): by function, and by where the code lives (a package
 * under node_modules, node's internals, or a file of ours). Idle time is left out; percentages are
 * of the busy samples.
 *
 *   node --import tsx bench/lib/profile-top.ts <file.cpuprofile|dir> [--top N]
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

/** Self time per function and per place, busiest first (idle excluded). */
function topSelfTime(profile: CpuProfile, n: number): { busyMs: number; fns: TopEntry[]; places: TopEntry[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const fnMs = new Map<string, number>();
  const placeMs = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
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

function print(file: string, n: number): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const { busyMs, fns, places } = topSelfTime(profile, n);
  const line = (e: TopEntry) => `  ${e.ms.toFixed(0).padStart(7)} ms ${(e.share * 100).toFixed(1).padStart(5)}%  ${e.label}`;
  console.log(`${file}: ${(busyMs / 1000).toFixed(1)} s busy`);
  console.log(` self time by function (top ${n}):`);
  fns.forEach((e) => console.log(line(e)));
  console.log(` self time by place (top ${n}):`);
  places.forEach((e) => console.log(line(e)));
}

function main(): void {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const n = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  const target = args.find((a, i) => !a.startsWith('--') && i !== topAt + 1);
  if (!target || !Number.isInteger(n) || n < 1) {
    console.error('usage: node --import tsx bench/lib/profile-top.ts <file.cpuprofile|dir> [--top N]');
    process.exit(2);
  }
  const files = fs.statSync(target).isDirectory()
    ? fs
        .readdirSync(target, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => path.join(target, f))
    : [target];
  files.forEach((f) => print(f, n));
}

main();
