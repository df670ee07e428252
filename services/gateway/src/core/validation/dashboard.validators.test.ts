import { AppError } from '@mf/errors';
import {
  adminGrantOf,
  adminUsersQueryOf,
  createKeyOf,
  credentialsOf,
  deliveriesQueryOf,
  jobsQueryOf,
  ledgerQueryOf,
  playgroundOf,
  webhookTestOf,
  webhookUrlOf,
} from './dashboard.validators';

/** The 400 message a validator throws for `input`. */
function refusal(validate: (input: never) => unknown, input: unknown): string {
  try {
    validate(input as never);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).kind).toBe('invalid');
    return (err as AppError).message;
  }
  throw new Error('accepted');
}

describe('the dashboard API bodies', () => {
  it('takes sign-in credentials as two strings and refuses anything else with one message', () => {
    expect(credentialsOf({ email: 'a@b.test', password: 'pw' })).toEqual({ email: 'a@b.test', password: 'pw' });
    for (const body of [{}, { email: 'a@b.test' }, { email: 1, password: 'pw' }, { email: 'a@b.test', password: null }])
      expect(refusal(credentialsOf, body)).toBe('email and password are required');
    expect(refusal(credentialsOf, [])).toBe('Request body must be a JSON object');
    expect(refusal(credentialsOf, undefined)).toBe('Invalid JSON body');
    expect(refusal(credentialsOf, { email: 'a', password: 'b', admin: true })).toBe(
      'unknown field: admin (accepted: email, password)',
    );
  });

  it('names a new key "" by default, at most 100 characters, with its scopes as strings', () => {
    expect(createKeyOf({ scopes: ['jobs:read'] })).toEqual({ name: '', scopes: ['jobs:read'] });
    expect(createKeyOf({ name: 'ci', scopes: [] })).toEqual({ name: 'ci', scopes: [] });
    expect(refusal(createKeyOf, { name: 'n'.repeat(101), scopes: [] })).toBe('name must be at most 100 characters');
    expect(refusal(createKeyOf, { name: 7, scopes: [] })).toBe('name must be a string');
    expect(refusal(createKeyOf, { name: 'ci' })).toBe('scopes must be an array of strings');
    expect(refusal(createKeyOf, { scopes: ['jobs:read', 3] })).toBe('scopes must be an array of strings');
  });

  it('takes a webhook URL as a string of at most 2048 characters (the dispatcher judges the URL)', () => {
    expect(webhookUrlOf({ url: 'https://x.test/h' })).toEqual({ url: 'https://x.test/h' });
    expect(refusal(webhookUrlOf, {})).toBe('url must be a string');
    expect(refusal(webhookUrlOf, { url: `https://x.test/${'a'.repeat(2048)}` })).toBe(
      'url must be at most 2048 characters',
    );
  });

  it('sends the ping when a webhook test names no event, or when there is no body at all', () => {
    expect(webhookTestOf(undefined)).toEqual({ event: 'webhook.test' });
    expect(webhookTestOf({})).toEqual({ event: 'webhook.test' });
    expect(webhookTestOf({ event: 'job.failed' })).toEqual({ event: 'job.failed' });
    expect(refusal(webhookTestOf, { event: 'job.done' })).toBe(
      'event must be one of webhook.test, job.completed, job.failed, job.cancelled',
    );
  });

  it("grants a positive integer up to billing's largest grant, with an optional idempotency key", () => {
    expect(adminGrantOf({ amount: 5 })).toEqual({ amount: 5 });
    expect(adminGrantOf({ amount: 5, idempotency_key: 'a1b2c3d4-e5' })).toEqual({
      amount: 5,
      idempotency_key: 'a1b2c3d4-e5',
    });
    for (const amount of [undefined, 0, -3, 1.5, '5'])
      expect(refusal(adminGrantOf, { amount })).toBe('amount must be a positive integer');
    expect(refusal(adminGrantOf, { amount: 1_000_000_001 })).toBe('amount must be at most 1000000000');
    for (const key of ['short', 'has space!', 7])
      expect(refusal(adminGrantOf, { amount: 1, idempotency_key: key })).toBe(
        'idempotency_key must be 8-64 letters, digits or dashes',
      );
  });

  it('runs the playground with the session (api_key_id null or absent) or a key id, input an object', () => {
    expect(playgroundOf({ input: { prompt: 'p' } })).toEqual({ api_key_id: null, input: { prompt: 'p' } });
    expect(playgroundOf({ api_key_id: 4, input: {} })).toEqual({ api_key_id: 4, input: {} });
    for (const id of ['4', 0, 1.5])
      expect(refusal(playgroundOf, { api_key_id: id, input: {} })).toBe(
        'api_key_id must be the id of one of your keys, or null for the session',
      );
    for (const input of [undefined, 'p', [], null])
      expect(refusal(playgroundOf, { input })).toBe('input must be an object: the body of the public submit endpoint');
    expect(refusal(playgroundOf, { input: {}, model: 'imagegen-2' })).toBe(
      'unknown field: model (accepted: api_key_id, input)',
    );
  });
});

describe('the dashboard API queries', () => {
  it('pages the ledger by 1-500 rows before an entry id, as numbers', () => {
    expect(ledgerQueryOf({})).toEqual({});
    expect(ledgerQueryOf({ limit: '500', before_id: '12' })).toEqual({ limit: 500, before_id: 12 });
    for (const limit of ['0', '501', '1 OR 1=1', '2.5'])
      expect(refusal(ledgerQueryOf, { limit })).toBe('limit must be an integer from 1 to 500');
    expect(refusal(ledgerQueryOf, { before_id: '1; DROP TABLE billing.ledger' })).toBe(
      'before_id must be a positive integer',
    );
  });

  it('pages the jobs by 1-100 before a job id', () => {
    expect(jobsQueryOf({ limit: '', before: '' })).toEqual({});
    expect(jobsQueryOf({ limit: '100', before: 'job_abc' })).toEqual({ limit: 100, before: 'job_abc' });
    expect(refusal(jobsQueryOf, { limit: '101' })).toBe('limit must be an integer from 1 to 100');
    expect(refusal(jobsQueryOf, { before: "' OR 1=1 --" })).toBe('before must be a job id');
    expect(refusal(jobsQueryOf, { limit: ['1', '2'] })).toBe('limit must be given once, as a plain value');
  });

  it('filters the delivery log by status and pages it after a delivery id', () => {
    expect(deliveriesQueryOf({ status: 'failed', limit: '50', starting_after: '9' })).toEqual({
      status: 'failed',
      limit: 50,
      starting_after: 9,
    });
    expect(refusal(deliveriesQueryOf, { status: 'pending' })).toBe('status must be one of failed, succeeded');
    expect(refusal(deliveriesQueryOf, { starting_after: '-1' })).toBe(
      'starting_after must be a delivery id (a positive integer)',
    );
    expect(refusal(deliveriesQueryOf, { page: '2' })).toBe(
      'unknown query parameter: page (accepted: status, limit, starting_after)',
    );
  });

  it('looks users up by a trimmed part of an email of at most 320 characters', () => {
    expect(adminUsersQueryOf({ email: '  ann@ ' })).toEqual({ email: 'ann@' });
    expect(adminUsersQueryOf({ email: 'a'.repeat(400) }).email).toHaveLength(320);
    expect(adminUsersQueryOf({})).toEqual({});
  });
});
