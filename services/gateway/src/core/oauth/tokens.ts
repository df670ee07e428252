import { hashToken, randomToken } from '../accounts/secrets';

/** How long each credential lives. */
export const LIFETIMES = {
  codeMs: 10 * 60 * 1000,
  accessMs: 60 * 60 * 1000,
  refreshMs: 30 * 24 * 60 * 60 * 1000,
} as const;

// Prefixes say what a leaked string is (and let a verifier skip strings that cannot be its tokens).
const PREFIX = { code: 'mfo_code_', access: 'mfo_at_', refresh: 'mfo_rt_' } as const;
export type SecretKind = keyof typeof PREFIX;

const BODY = '[A-Za-z0-9_-]{43}';
const SHAPES: Record<SecretKind, RegExp> = {
  code: new RegExp(`^${PREFIX.code}${BODY}$`),
  access: new RegExp(`^${PREFIX.access}${BODY}$`),
  refresh: new RegExp(`^${PREFIX.refresh}${BODY}$`),
};

/** A new secret of the kind: 256 random bits behind its prefix. */
export function newSecret(kind: SecretKind): string {
  return `${PREFIX[kind]}${randomToken()}`;
}

/** Whether a string can be a secret of the kind (checked before any database lookup). */
export function looksLike(kind: SecretKind, value: string): boolean {
  return SHAPES[kind].test(value);
}

/** What the database keeps: SHA-256 (256 random bits need no slow hash). */
export const hashSecret = hashToken;
