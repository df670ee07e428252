import { PassThrough } from 'node:stream';
import { BATCH_LINE_ERROR, runBatch } from './batch';
import type { AdminSession, CliResult } from './cli';

/** A session that answers from a table and records what it was asked, in order. */
function scriptedSession(answers: Record<string, CliResult>): AdminSession & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    run: (argv) => {
      asked.push(argv);
      return Promise.resolve(answers[argv[0]] ?? { code: 2, stderr: `unknown command: ${argv[0]}` });
    },
    close: () => Promise.resolve(),
  };
}

async function batch(session: AdminSession, lines: string[]): Promise<{ exit: number; answers: unknown[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString()));
  input.end(lines.join('\n'));
  const exit = await runBatch(input, output, session);
  return {
    exit,
    answers: text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown),
  };
}

describe('admin batch', () => {
  it('answers each command with one JSON line, in order, and exits 0 when all succeed', async () => {
    const session = scriptedSession({
      'user:create': { code: 0, stdout: '{"user_id":7,"email":"a@example.test"}\n' },
      'usage:report': { code: 0, stdout: 'user_id,credits\n7,10\n' },
      'webhook:set': { code: 0, stdout: '{"url":"https://x.test"}\n', stderr: 'the endpoint did not answer' },
    });
    const run = await batch(session, [
      '["user:create","--email","a@example.test"]',
      '',
      '["usage:report","--csv"]',
      '["webhook:set","--key-id","1","--url","https://x.test"]',
    ]);
    expect(run).toEqual({
      exit: 0,
      answers: [
        { exit: 0, result: { user_id: 7, email: 'a@example.test' } },
        { exit: 0, text: 'user_id,credits\n7,10\n' },
        { exit: 0, result: { url: 'https://x.test' }, warnings: ['the endpoint did not answer'] },
      ],
    });
    expect(session.asked).toEqual([
      ['user:create', '--email', 'a@example.test'],
      ['usage:report', '--csv'],
      ['webhook:set', '--key-id', '1', '--url', 'https://x.test'],
    ]);
  });

  it('answers a failed command, a line that is not an array of strings and a nested batch with errors, goes on, and exits 1', async () => {
    const session = scriptedSession({
      'key:revoke': { code: 1, stderr: 'error: no such key' },
      'user:create': { code: 0, stdout: '{"user_id":8}\n' },
    });
    const run = await batch(session, [
      '["key:revoke","--id","9"]',
      'key:revoke --id 9',
      '["key:revoke", 9]',
      '["batch"]',
      '["user:create","--email","b@example.test"]',
    ]);
    expect(run).toEqual({
      exit: 1,
      answers: [
        { exit: 1, error: 'no such key' },
        { exit: 2, error: BATCH_LINE_ERROR },
        { exit: 2, error: BATCH_LINE_ERROR },
        { exit: 2, error: 'batch cannot run inside a batch' },
        { exit: 0, result: { user_id: 8 } },
      ],
    });
    expect(session.asked.map((a) => a[0])).toEqual(['key:revoke', 'user:create']);
  });
});
