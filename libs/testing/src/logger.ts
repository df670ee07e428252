import pino from 'pino';

/** A logger for tests: silent unless TEST_LOG_LEVEL asks otherwise. */
export function silentLogger(): pino.Logger {
  return pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}

/** A logger that keeps every line it writes (info and up) as an object, for tests that expect a log line. */
export function recordingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}
