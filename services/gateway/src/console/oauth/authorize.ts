import type { Request, Response } from 'express';
import type { AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { refuseCrossOrigin } from '../dashboard/csrf.middleware';
import { sameSecret } from '../../core/accounts/secrets';
import { findUserById } from '../../core/repositories/users.repository';
import { consentPage, messagePage, pageHeaders } from './consent-page';
import { acceptedResource, type OAuthDeps, type OAuthUrls } from './deps';
import { deleteExpiredCodes, insertCode } from '../../core/oauth/oauth.repository';
import { approvedScopes, requestedScopes } from '../../core/oauth/scopes';
import { hashSecret, LIFETIMES, newSecret } from '../../core/oauth/tokens';

/** The dashboard's sign-in page; it sends the browser back to return_to (an /oauth/authorize URL only). */
export const SIGN_IN_PATH = '/dashboard/#/signin';

/** The authorization request's own parameters, as the client sent them (GET query or POST body). */
const REQUEST_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'state',
  'resource',
] as const;

function requestFields(raw: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of REQUEST_FIELDS) out[k] = typeof raw[k] === 'string' ? raw[k] : undefined;
  return out;
}

/** The same authorization request as a GET path, to come back to after signing in. */
export function authorizationPath(fields: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) q.set(k, v);
  return `/oauth/authorize?${q.toString()}`;
}

export function signInRedirect(fields: Record<string, string | undefined>): string {
  return `${SIGN_IN_PATH}?return_to=${encodeURIComponent(authorizationPath(fields))}`;
}

function clientRedirect(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

function isCrossOrigin(publicBaseUrl: string, req: Request, res: Response): Promise<boolean> {
  // The dashboard's own Origin / Sec-Fetch-Site rule, applied to the consent form's post.
  return new Promise((resolve) => {
    void refuseCrossOrigin(publicBaseUrl)(req, res, (err?: unknown) => resolve(err !== undefined));
  });
}

/**
 * The authorization endpoint's part after the SDK has checked the client, the redirect URI and
 * the PKCE parameters: sign-in first, then the consent page; its post (decision=approve|deny, the
 * session's CSRF token, the checked scopes) comes back through the same SDK checks to here.
 */
export async function authorize(
  deps: OAuthDeps,
  urls: OAuthUrls,
  client: OAuthClientInformationFull,
  params: AuthorizationParams,
  res: Response,
): Promise<void> {
  const req = res.req;
  const now = (deps.now ?? (() => new Date()))();
  pageHeaders(res, params.redirectUri);
  // The SDK turns this into an error redirect to the client (RFC 8707 §2).
  if (params.resource && !acceptedResource(urls, params.resource.href))
    throw new InvalidTargetError(`This server does not serve the resource ${params.resource.href}`);

  const raw = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown>;
  // As the client sent them: without a redirect_uri (a client with one registered URI may leave
  // it out), the SDK fills params.redirectUri again on each step, and the token request need not name it.
  const fields = requestFields(raw);
  const offered = requestedScopes(params.scopes);
  const decision = req.method === 'POST' ? raw.decision : undefined;

  if (decision !== undefined && (await isCrossOrigin(deps.publicBaseUrl, req, res))) {
    res
      .status(403)
      .type('html')
      .send(
        messagePage(
          'Request refused',
          'This answer did not come from the consent page. Start the authorization again from the application.',
        ),
      );
    return;
  }
  const session = req.session;
  const user = session ? await findUserById(deps.db, session.userId) : undefined;
  if (!session || !user) {
    res.redirect(302, signInRedirect(fields));
    return;
  }

  if (decision === undefined) {
    res
      .status(200)
      .type('html')
      .send(
        consentPage({
          clientName: client.client_name,
          clientId: client.client_id,
          userEmail: user.email,
          redirectUri: params.redirectUri,
          offered,
          csrfToken: session.csrfToken,
          request: fields,
        }),
      );
    return;
  }

  const csrf = raw.csrf_token;
  if (typeof csrf !== 'string' || !sameSecret(csrf, session.csrfToken)) {
    res
      .status(403)
      .type('html')
      .send(
        messagePage(
          'Request refused',
          'The form was out of date (CSRF token missing or invalid). Start the authorization again from the application.',
        ),
      );
    return;
  }
  if (decision === 'deny') {
    res.redirect(
      302,
      clientRedirect(params.redirectUri, {
        error: 'access_denied',
        error_description: 'The user denied the request',
        state: params.state,
      }),
    );
    return;
  }
  if (decision !== 'approve') {
    res.status(400).type('html').send(messagePage('Bad request', 'The decision must be Approve or Deny.'));
    return;
  }

  const code = newSecret('code');
  await deleteExpiredCodes(deps.db, now);
  await insertCode(deps.db, {
    code_hash: hashSecret(code),
    client_id: client.client_id,
    user_id: user.id,
    redirect_uri: params.redirectUri,
    redirect_uri_given: fields.redirect_uri !== undefined,
    code_challenge: params.codeChallenge,
    scopes: approvedScopes(offered, raw.scope_granted),
    resource: params.resource?.href ?? null,
    expires_at: new Date(now.getTime() + LIFETIMES.codeMs),
  });
  res.redirect(302, clientRedirect(params.redirectUri, { code, state: params.state }));
}
