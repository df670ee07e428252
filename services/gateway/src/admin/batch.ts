import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { AdminSession, CliResult } from './cli';

/**
 * `admin batch`: many commands over one database and broker connection, for provisioning scripts
 * (and the end-to-end tests, which create hundreds of users): one command per line on stdin, a JSON
 * array of its words (`["user:create","--email","a@example.com"]`), answered in order by one JSON
 * line each on stdout: `{"exit":0,"result":{...}}` (`"text"` for --csv), or `{"exit":1|2,"error":"..."}`;
 * a command's warnings ride along as `"warnings"`. Blank lines are skipped. The batch exits 1 when
 * any command failed, 0 otherwise.
 */
export const BATCH_LINE_ERROR = 'each line must be a JSON array of strings: a command and its flags';

export interface BatchAnswer {
  exit: number;
  result?: unknown;
  text?: string;
  error?: string;
  warnings?: string[];
}

function words(line: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    return Array.isArray(parsed) && parsed.every((w) => typeof w === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** What one command's result becomes as a batch line. */
export function batchAnswer({ code, stdout, stderr }: CliResult): BatchAnswer {
  if (code !== 0) return { exit: code, error: (stderr ?? '').replace(/^error: /, '') };
  const out = stdout ?? '';
  let answer: BatchAnswer;
  try {
    answer = { exit: 0, result: JSON.parse(out) as unknown };
  } catch {
    answer = { exit: 0, text: out };
  }
  return stderr ? { ...answer, warnings: stderr.split('\n') } : answer;
}

export async function runBatch(input: Readable, output: Writable, session: AdminSession): Promise<number> {
  let failed = false;
  const answer = (a: BatchAnswer): void => {
    if (a.exit !== 0) failed = true;
    output.write(`${JSON.stringify(a)}\n`);
  };
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    const argv = words(line);
    if (!argv) answer({ exit: 2, error: BATCH_LINE_ERROR });
    else if (argv[0] === 'batch') answer({ exit: 2, error: 'batch cannot run inside a batch' });
    else answer(batchAnswer(await session.run(argv)));
  }
  return failed ? 1 : 0;
}
