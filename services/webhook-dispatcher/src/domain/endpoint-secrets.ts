import type { SecretBox } from './secret-box';

export interface SealedSecrets {
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * The secrets a delivery is signed with now, newest first: the endpoint's secret, and the one it
 * replaced while the rotation's overlap lasts (so receivers still holding it keep verifying).
 * Throws when a secret was not sealed under the box's key.
 */
export function signingSecrets(box: SecretBox, endpoint: SealedSecrets, nowMs: number): string[] {
  const secrets = [box.open(endpoint.secret_ciphertext)];
  const expires = endpoint.previous_secret_expires_at;
  if (endpoint.previous_secret_ciphertext && expires && expires.getTime() > nowMs)
    secrets.push(box.open(endpoint.previous_secret_ciphertext));
  return secrets;
}
