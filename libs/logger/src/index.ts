import pino from 'pino';

export type Logger = pino.Logger;

/**
 * JSON logs, one line each, with the service name on every line. Child loggers add request id,
 * correlation id or message id. Secrets are redacted wherever they appear under these keys.
 * `fields`, when given, adds its fields to every line (with tracing on: the active span's ids).
 */
export function createLogger(service: string, level = 'info', fields?: () => Record<string, string>): Logger {
  return pino({
    level,
    base: { service },
    ...(fields ? { mixin: fields } : {}),
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.secret',
        '*.key',
        'password',
        'secret',
      ],
      censor: '[redacted]',
    },
  });
}
