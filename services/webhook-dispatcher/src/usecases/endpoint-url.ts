import { AppError } from '@mf/errors';
import { assertFetchableUrl, FetchError, UnsafeUrlError, type SafeFetchPolicy } from '@mf/safe-fetch';

export const URL_MUST_BE_HTTPS = 'url must be a https URL';
export const URL_MUST_BE_HTTP_OR_HTTPS = 'url must be an http(s) URL';
export const URL_MUST_BE_PUBLIC = 'url must not point to a private, loopback, link-local or metadata address';
export const URL_NOT_RESOLVED = 'url host could not be resolved';
export const URL_HAS_CREDENTIALS = 'url must not contain credentials';
export const URL_PORT_BLOCKED = 'url uses a port that is not allowed';

/**
 * Checks a webhook URL before it is saved: https (http only when allowed), no credentials, not a
 * blocked port, and a host that resolves only to public addresses (unless private ones are
 * allowed). Answers 400 with a message the customer can act on.
 */
export async function assertWebhookUrl(url: string, policy: SafeFetchPolicy): Promise<void> {
  try {
    await assertFetchableUrl(url, policy);
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw AppError.badRequest(messageFor(err, policy));
    if (err instanceof FetchError) throw AppError.badRequest(URL_NOT_RESOLVED);
    throw err;
  }
}

function messageFor(err: UnsafeUrlError, policy: SafeFetchPolicy): string {
  switch (err.reason) {
    case 'scheme':
    case 'invalid-url':
      return policy.allowHttp ? URL_MUST_BE_HTTP_OR_HTTPS : URL_MUST_BE_HTTPS;
    case 'private-address':
      return URL_MUST_BE_PUBLIC;
    case 'credentials':
      return URL_HAS_CREDENTIALS;
    case 'port':
      return URL_PORT_BLOCKED;
  }
}
