// Argument parsing of the mediaforge CLI: flags, their values, and the messages of a mistyped one.
import { VALUELESS_FIELD_FLAGS } from './cli-fields';

export interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
}

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

const BOOLEAN_FLAGS = new Set(['wait', 'help', 'all', 'csv', ...VALUELESS_FIELD_FLAGS]);

export function parseArgs(argv: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h') flags.set('help', true);
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) flags.set(name, a.slice(eq + 1));
      else if (BOOLEAN_FLAGS.has(name)) flags.set(name, true);
      else {
        const v = argv[i + 1];
        // A flag followed by another flag has no value of its own (`--promt --wait`): keep it
        // valueless, so an unknown name is reported as unknown rather than as missing a value.
        if (v === undefined || v.startsWith('--')) flags.set(name, true);
        else {
          flags.set(name, v);
          i++;
        }
      }
    } else positional.push(a);
  }
  return { positional, flags };
}

/** Edit distance (insertions, deletions, substitutions, adjacent swaps): how far a typo is from a name. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known name closest to `given`, if it is close enough to be what was meant (like git's "did you mean"). */
export function closest(given: string, known: readonly string[]): string | undefined {
  // A unique abbreviation (--dur for --duration) is what was meant.
  const extended = known.filter((name) => given.length >= 3 && name.startsWith(given.toLowerCase()));
  if (extended.length === 1) return extended[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const distance = editDistance(given.toLowerCase(), name);
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  // Two edits for names of five letters or more, one for shorter ones: --promt, --durration, --ot.
  const allowed = Math.min(2, Math.max(1, Math.floor((best?.length ?? 0) / 4)));
  return bestDistance <= allowed ? best : undefined;
}

/** " (did you mean --prompt?)" or "". */
export function didYouMean(given: string, known: readonly string[], prefix = ''): string {
  const guess = closest(given, known);
  return guess ? ` (did you mean ${prefix}${guess}?)` : '';
}

/** Refuses any flag the command does not take, naming it and the flag that was probably meant. */
export function checkFlags(p: Parsed, allowed: readonly string[]): void {
  for (const k of p.flags.keys()) {
    if (k === 'help' || allowed.includes(k)) continue;
    const options = allowed.length
      ? ` Options of this command: ${allowed.map((a) => `--${a}`).join(', ')}.`
      : ' This command takes no options.';
    throw new UsageError(`unknown option --${k}${didYouMean(k, allowed, '--')}.${options}`);
  }
}

export function str(p: Parsed, name: string): string | undefined {
  const v = p.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

export function int(p: Parsed, name: string): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be an integer`);
  return Number(v);
}
