import { rawRowsOf, type Knex } from '@mf/db';

/**
 * The run of failures of an endpoint, and its disabling: the only module that writes
 * endpoints.failing_since and endpoints.disabled_at (besides a save, which clears both).
 * Both compare with the database's clock, so replicas agree.
 */

/** A 2xx ends the run of failures. */
export async function markEndpointHealthy(db: Knex, apiKeyId: number, url: string): Promise<void> {
  await db('endpoints')
    .update({ failing_since: null })
    .where({ api_key_id: apiKeyId, url })
    .whereNotNull('failing_since');
}

/**
 * Records a failed attempt to `url`: starts the run of failures if none, and disables the
 * endpoint when the run is at least `disableAfterMs` old. Nothing happens when the URL was changed
 * meanwhile (the failure was the old URL's). Returns whether the endpoint is now disabled.
 */
export async function markEndpointFailing(
  db: Knex,
  apiKeyId: number,
  url: string,
  disableAfterMs: number,
): Promise<boolean> {
  const [row] = await rawRowsOf<{ disabled_at: Date | null }>(
    db.raw(
      `UPDATE endpoints SET
         failing_since = COALESCE(failing_since, now()),
         disabled_at = CASE
           WHEN disabled_at IS NULL AND failing_since IS NOT NULL
                AND now() - failing_since >= make_interval(secs => ?::double precision / 1000)
           THEN now() ELSE disabled_at END
       WHERE api_key_id = ? AND url = ?
       RETURNING disabled_at`,
      [disableAfterMs, apiKeyId, url],
    ),
  );
  return Boolean(row?.disabled_at);
}
