/** `docker compose` (the v2 plugin) on one project: the repository's docker-compose.yml plus the test's override. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export interface ComposeProject {
  /** `docker compose <args>` on the project; resolves stdout, rejects with stderr. */
  run: (...args: string[]) => Promise<string>;
  /** State and health per service container (`docker compose ps -a`). */
  states: () => Promise<{ service: string; state: string; health: string; exitCode: number }[]>;
  name: string;
}

export function composeProject(opts: {
  name: string;
  repoRoot: string;
  files: string[];
  envFile: string;
}): ComposeProject {
  const base = [
    'compose',
    '--project-name',
    opts.name,
    '--project-directory',
    opts.repoRoot,
    '--env-file',
    opts.envFile,
    ...opts.files.flatMap((f) => ['-f', f]),
  ];
  const run = async (...args: string[]): Promise<string> => {
    try {
      const { stdout } = await execFileP('docker', [...base, ...args], {
        maxBuffer: 64 * 1024 * 1024,
        // Only what compose needs: no variable of this shell leaks into the interpolation.
        env: { PATH: process.env.PATH, HOME: process.env.HOME, DOCKER_BUILDKIT: '0' },
      });
      return stdout.trim();
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`docker compose ${args.slice(0, 2).join(' ')} ...: ${(e.stderr || e.message).trim()}`);
    }
  };
  const states = async (): Promise<{ service: string; state: string; health: string; exitCode: number }[]> => {
    const out = await run('ps', '-a', '--format', 'json');
    // One JSON object per line (compose 2.21 and later), or one array (earlier).
    const rows = (
      out.startsWith('[')
        ? JSON.parse(out)
        : out
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
    ) as {
      Service: string;
      State: string;
      Health: string;
      ExitCode: number;
    }[];
    return rows.map((r) => ({ service: r.Service, state: r.State, health: r.Health, exitCode: r.ExitCode }));
  };
  return { run, states, name: opts.name };
}
