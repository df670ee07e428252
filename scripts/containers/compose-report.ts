/** What the compose test prints about the project's containers: their healthchecks and how they stopped. */
import { docker } from './docker';

const log = (line: string): void => console.log(line);
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * The last healthcheck runs of each container that is not healthy (exit code, how long ago, what the
 * probe printed): why a service stayed unhealthy, in the test's output rather than lost with the
 * project.
 */
export async function logHealthChecks(label: string): Promise<void> {
  const ids = (await docker('ps', '-a', '-q', '--filter', label)).split('\n').filter(Boolean);
  if (!ids.length) return;
  const out = await docker(
    'inspect',
    '--format',
    '{{index .Config.Labels "com.docker.compose.service"}}\t{{if .State.Health}}{{json .State.Health}}{{end}}',
    ...ids,
  );
  for (const line of out.split('\n').filter(Boolean)) {
    const [service, json] = line.split('\t');
    if (!json) continue;
    const health = JSON.parse(json) as {
      Status: string;
      FailingStreak: number;
      Log: { Start: string; End: string; ExitCode: number; Output: string }[];
    };
    if (health.Status === 'healthy') continue;
    log(
      `healthchecks of ${service} (${health.Status}, failing streak ${health.FailingStreak}), the last ${health.Log.length}:`,
    );
    for (const run of health.Log) {
      const took = Date.parse(run.End) - Date.parse(run.Start);
      log(
        `  ${run.Start}  exit ${run.ExitCode} after ${secs(took)}  ${run.Output.trim().slice(0, 200) || '(no output)'}`,
      );
    }
  }
}

/** How long each of the project's containers took to end after `stop` began, and how it ended. */
export async function logStopTimes(label: string, since: number): Promise<string[]> {
  const ids = (await docker('ps', '-a', '-q', '--filter', label)).split('\n').filter(Boolean);
  if (!ids.length) return [];
  const lines = (
    await docker(
      'inspect',
      '--format',
      '{{index .Config.Labels "com.docker.compose.service"}} {{.State.ExitCode}} {{.State.FinishedAt}}',
      ...ids,
    )
  )
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [service, code, finished] = line.split(' ');
      return { service, code: Number(code), ms: Date.parse(finished) - since };
    })
    .filter((c) => c.ms >= 0) // minio-init ended long before
    .sort((a, b) => b.ms - a.ms);
  log('docker compose stop (SIGTERM, SIGKILL after 30 s): each container ended after');
  for (const c of lines)
    log(`  ${c.service.padEnd(20)} ${secs(c.ms).padStart(7)}  exit ${c.code}${c.code === 137 ? ' (killed)' : ''}`);
  return lines.filter((c) => c.code === 137).map((c) => c.service);
}
