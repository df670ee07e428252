/**
 * The job a broker message is about, to tag its span with: a `job.*` event's payload (the
 * envelope's) or a submit's RPC reply (its result) carries `job_id`. Tracing on only: it parses the
 * message once more. Large messages (a resolved timeline) are skipped.
 */
export function jobIdOf(content: Buffer): string | undefined {
  if (content.length > 65_536) return undefined;
  try {
    const body = JSON.parse(content.toString('utf8')) as {
      payload?: { job_id?: unknown };
      result?: { job_id?: unknown };
    };
    const id = body.payload?.job_id ?? body.result?.job_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
