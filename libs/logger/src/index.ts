import pino from 'pino';

export type Logger = pino.Logger;

/**
 * JSON logs, one line each, with the service name on every line. Child loggers add request id,
 * correlation id or message id. Secrets are redacted wherever they appear under these keys.
 */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
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
