import pino from 'pino';

/** A logger for tests: silent unless TEST_LOG_LEVEL asks otherwise. */
export function silentLogger(): pino.Logger {
  return pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}
