import type { Request, Response } from 'express';
import { parse, serialize } from 'cookie';

export const SESSION_COOKIE = 'mf_session';

export interface CookiePolicy {
  /** Secure when the public base URL is https (spec). */
  secure: boolean;
}

export function cookiePolicyFor(publicBaseUrl: string): CookiePolicy {
  return { secure: new URL(publicBaseUrl).protocol === 'https:' };
}

/** The session token the request's cookie carries, if any. */
export function sessionTokenOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  return header ? parse(header)[SESSION_COOKIE] : undefined;
}

export function setSessionCookie(res: Response, policy: CookiePolicy, token: string, maxAgeMs: number): void {
  res.append(
    'Set-Cookie',
    serialize(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: policy.secure,
      maxAge: Math.floor(maxAgeMs / 1000),
    }),
  );
}

export function clearSessionCookie(res: Response, policy: CookiePolicy): void {
  res.append(
    'Set-Cookie',
    serialize(SESSION_COOKIE, '', {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: policy.secure,
      maxAge: 0,
      expires: new Date(0),
    }),
  );
}
