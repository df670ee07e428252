import knexFactory from 'knex';
import { inlineStatement } from './inline';

// SQL is only built here, never sent: knex needs no connection for that.
const db = knexFactory({ client: 'pg' });

describe('inlineStatement', () => {
  it('inlines strings (escaped as node-postgres does), numbers, dates and nulls as quoted literals, in placeholder order', () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    const sql = inlineStatement(
      db('jobs')
        .update({ provider_request_id: "it's \\ here", next_poll_at: at, poll_failures: 0, error: null })
        .where({ id: 'job_1', attempt: 2 }),
    );
    expect(sql).toBe(
      `update "jobs" set "provider_request_id" =  E'it''s \\\\ here', "next_poll_at" = '2030-01-02T03:04:05.678Z', "poll_failures" = '0', "error" = NULL where "id" = 'job_1' and "attempt" = '2'`,
    );
  });

  it('refuses a binding it cannot quote rather than guess', () => {
    expect(() => inlineStatement(db.raw('select ?', [{ a: 1 }]))).toThrow(/cannot inline/);
    expect(() => inlineStatement(db.raw('select ?', [Number.NaN]))).toThrow(/cannot inline/);
  });

  it('refuses a statement whose own text holds a "$n" that is not a placeholder', () => {
    expect(() => inlineStatement(db.raw("select '$1', ?", ['x']))).toThrow(/placeholder/);
  });
});
