import { runCli } from './cli';

describe('admin CLI help', () => {
  const COMMANDS = [
    'user:create',
    'user:role',
    'key:create',
    'key:revoke',
    'key:limits',
    'credits:grant',
    'webhook:set',
    'webhook:clear',
    'webhook:get',
    'webhook:deliveries',
    'usage:report',
    'batch',
  ];

  it.each([['--help'], ['-h'], ['help'], ['credits:grant', '--help']])(
    'prints every command on stdout and exits 0 for %s',
    async (...argv) => {
      const { code, stdout, stderr } = await runCli(argv);
      expect(code).toBe(0);
      expect(stderr).toBeUndefined();
      for (const c of COMMANDS) expect(stdout).toContain(c);
    },
  );

  it('prints the list on stderr with exit 2 for no command or an unknown one', async () => {
    expect(await runCli([])).toEqual({
      code: 2,
      stderr: expect.stringContaining('credits:grant --email E --amount N'),
    });
    const unknown = await runCli(['credits:give']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^unknown command: credits:give\nusage: /);
  });
});
