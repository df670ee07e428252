import type { RequestHandler } from 'express';
import { requestId } from '@mf/http';
import type { UsageRecorder } from '../core/usage/usage-recorder';

/** Records one usage row per authenticated request when its response finishes. */
export function recordUsage(recorder: UsageRecorder): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const auth = req.auth;
      if (!auth) return;
      recorder.record({
        api_key_id: auth.apiKeyId,
        user_id: auth.userId,
        method: req.method,
        path: req.originalUrl.split('?')[0].slice(0, 500),
        status: res.statusCode,
        duration_ms: Number((process.hrtime.bigint() - started) / 1_000_000n),
        request_id: requestId(req),
        created_at: new Date(),
      });
    });
    next();
  };
}
