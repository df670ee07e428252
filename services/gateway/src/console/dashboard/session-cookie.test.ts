import type { Request, Response } from 'express';
import { clearSessionCookie, cookiePolicyFor, sessionTokenOf, setSessionCookie } from './session-cookie';

function fakeResponse(): { res: Response; cookies: string[] } {
  const cookies: string[] = [];
  const res = {
    append: (name: string, value: string) => name === 'Set-Cookie' && cookies.push(value),
  } as unknown as Response;
  return { res, cookies };
}

describe('session cookie', () => {
  it('is HttpOnly, SameSite=Lax, on the whole site, with the session lifetime; Secure only behind https', () => {
    const plain = fakeResponse();
    setSessionCookie(plain.res, cookiePolicyFor('http://localhost:8080'), 'tok', 14 * 24 * 3600 * 1000);
    expect(plain.cookies).toEqual(['mf_session=tok; Max-Age=1209600; Path=/; HttpOnly; SameSite=Lax']);
    const tls = fakeResponse();
    setSessionCookie(tls.res, cookiePolicyFor('https://media.example.com'), 'tok', 60_000);
    expect(tls.cookies[0]).toBe('mf_session=tok; Max-Age=60; Path=/; HttpOnly; Secure; SameSite=Lax');
  });

  it('is cleared with an empty value that expires at once', () => {
    const { res, cookies } = fakeResponse();
    clearSessionCookie(res, { secure: false });
    expect(cookies[0]).toMatch(
      /^mf_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/,
    );
  });

  it('is read from the Cookie header among others', () => {
    expect(sessionTokenOf({ headers: { cookie: 'theme=dark; mf_session=abc; other=1' } } as Request)).toBe('abc');
    expect(sessionTokenOf({ headers: {} } as Request)).toBeUndefined();
  });
});
