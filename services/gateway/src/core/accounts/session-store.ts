import type { Knex } from '@mf/db';
import type { UserRow } from '../repositories/users.repository';
import { hashToken, randomToken, TOKEN_SHAPE } from './secrets';
import {
  deleteExpiredSessions,
  deleteSession,
  findLiveSession,
  insertSession,
  touchSession,
} from '../repositories/sessions.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SessionStoreOptions {
  /** Sliding lifetime: a session unused this long is gone (spec: 14 days). */
  ttlMs: number;
  /** Refresh the expiry at most this often, so every request does not write (spec: once a minute). */
  touchEveryMs: number;
  now: () => Date;
}

export const DEFAULT_SESSION_OPTIONS: SessionStoreOptions = {
  ttlMs: 14 * DAY_MS,
  touchEveryMs: 60_000,
  now: () => new Date(),
};

export interface NewSession {
  /** Goes in the cookie; the database keeps only its SHA-256. */
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

export interface LiveSession {
  userId: number;
  role: UserRow['role'];
  csrfToken: string;
  expiresAt: Date;
  /** The expiry moved forward on this request: the cookie should be sent again with it. */
  refreshed: boolean;
}

/** Dashboard sign-in sessions: random tokens, stored hashed, with a sliding expiry. */
export class SessionStore {
  private readonly opts: SessionStoreOptions;

  constructor(
    private readonly db: Knex,
    opts: Partial<SessionStoreOptions> = {},
  ) {
    this.opts = { ...DEFAULT_SESSION_OPTIONS, ...opts };
  }

  get ttlMs(): number {
    return this.opts.ttlMs;
  }

  async create(userId: number, userAgent?: string): Promise<NewSession> {
    const now = this.opts.now();
    const token = randomToken();
    const csrfToken = randomToken();
    const expiresAt = new Date(now.getTime() + this.opts.ttlMs);
    await deleteExpiredSessions(this.db, userId, now);
    await insertSession(this.db, {
      id_hash: hashToken(token),
      user_id: userId,
      csrf_token: csrfToken,
      expires_at: expiresAt,
      last_seen_at: now,
      user_agent: userAgent ? userAgent.slice(0, 512) : null,
    });
    return { token, csrfToken, expiresAt };
  }

  /** The live session of a cookie token, its expiry slid forward when last seen over a minute ago. */
  async resolve(token: string): Promise<LiveSession | undefined> {
    // A value that cannot be one of our tokens never reaches the database.
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const now = this.opts.now();
    const idHash = hashToken(token);
    const row = await findLiveSession(this.db, idHash, now);
    if (!row) return undefined;
    let expiresAt = row.expires_at;
    const refreshed = now.getTime() - row.last_seen_at.getTime() >= this.opts.touchEveryMs;
    if (refreshed) {
      expiresAt = new Date(now.getTime() + this.opts.ttlMs);
      await touchSession(this.db, idHash, now, expiresAt);
    }
    return { userId: row.user_id, role: row.role, csrfToken: row.csrf_token, expiresAt, refreshed };
  }

  async destroy(token: string): Promise<void> {
    if (TOKEN_SHAPE.test(token)) await deleteSession(this.db, hashToken(token));
  }
}
