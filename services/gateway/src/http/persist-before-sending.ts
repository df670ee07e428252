import type { Response } from 'express';

export interface PersistHooks {
  /** Stores (or releases) the answer; the response waits for it. */
  persist: (status: number, body: unknown) => Promise<void>;
  /** The store failed, or sending did: the answer goes out anyway (or could not). */
  onError: (err: unknown) => void;
  /** The response finished without res.json (nothing to store). */
  onUncaptured: () => void;
}

/**
 * Holds back the JSON response until `persist` has stored it, so no client ever receives an
 * answer that a retry would not replay (a crash after sending cannot lead to a second run).
 * Our routes and @mf/http's error handler all answer with res.status().json().
 */
export function persistBeforeSending(res: Response, hooks: PersistHooks): void {
  const send = res.json.bind(res);
  let captured = false;
  res.json = (body: unknown) => {
    if (captured) return send(body);
    captured = true;
    res.json = send;
    void (async () => {
      try {
        await hooks.persist(res.statusCode, body);
      } catch (err) {
        // The answer is still the truth of what happened: send it; a retry will wait out the lease.
        hooks.onError(err);
      }
      try {
        send(body);
      } catch (err) {
        hooks.onError(err);
      }
    })();
    return res;
  };
  res.once('finish', () => {
    if (!captured) hooks.onUncaptured();
  });
}
