import { userWithKey, type Fleet, type TestUser } from '../fleet';

/** Users with the given credits, each with an all-scopes key and a webhook to `url`; their signing secrets by user id. */
export async function usersWithWebhooks(
  fleet: Fleet,
  credits: number[],
  url: string,
): Promise<{ users: TestUser[]; secrets: Map<string, string> }> {
  const users: TestUser[] = [];
  for (const c of credits) users.push(await userWithKey(fleet, 'all', c));
  const secrets = new Map<string, string>();
  for (const u of users) {
    const set = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', url);
    secrets.set(String(u.userId), String(set.secret));
  }
  return { users, secrets };
}
