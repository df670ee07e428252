import type { Bus } from '@mf/bus';
import type { Knex } from '@mf/db';
import { validateOperatorReportQuery } from './operator-report-query';
import { operatorReport, writeOperatorReportCsv } from './operator-report.usecase';

/** A bus whose reports queues answer canned parts, recording what was asked. */
function fakeBus(parts: Record<string, unknown>): { bus: Bus; asked: string[] } {
  const asked: string[] = [];
  const bus = {
    rpc: (_service: unknown, method: string, req: { by: string }) => {
      asked.push(`${method} by ${req.by}`);
      return Promise.resolve(parts[method]);
    },
  } as unknown as Bus;
  return { bus, asked };
}
const db = {} as Knex;
const range = { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' };

describe('operator report', () => {
  it('by model: credits from billing, upstream cost from jobs, joined per model, with revenue and margin', async () => {
    const { bus, asked } = fakeBus({
      operatorUsage: {
        rows: [
          { model: 'imagegen-2', jobs: 3, credits_charged: 150, credits_refunded: 50, credits_net: 100 },
          { model: 'editor-turn', jobs: 2, credits_charged: 10, credits_refunded: 0, credits_net: 10 },
        ],
      },
      upstreamCosts: {
        rows: [
          { model: 'imagegen-2', jobs: 2, credits_kept: 100, attempts: 3, upstream_cost: 0.3, unpriced_attempts: 1 },
          { model: 'vidgen-2.0', jobs: 0, credits_kept: 0, attempts: 1, upstream_cost: 0.25, unpriced_attempts: 0 },
        ],
      },
    });
    const report = await operatorReport({ db, bus }, { ...range, by: 'model' }, 0.01);
    expect(asked.sort()).toEqual(['operatorUsage by model', 'upstreamCosts by model']);
    expect(report.rows).toEqual([
      {
        model: 'editor-turn',
        jobs: 2,
        credits_net: 10,
        revenue: 0.1,
        upstream_cost: 0,
        margin: 0.1,
        unpriced_attempts: 0,
      },
      {
        model: 'imagegen-2',
        jobs: 3,
        credits_net: 100,
        revenue: 1,
        upstream_cost: 0.3,
        margin: 0.7,
        unpriced_attempts: 1,
      },
      // A cost without credits in the range (a job charged the month before): a loss this month.
      {
        model: 'vidgen-2.0',
        jobs: 0,
        credits_net: 0,
        revenue: 0,
        upstream_cost: 0.25,
        margin: -0.25,
        unpriced_attempts: 0,
      },
    ]);
    expect(report.totals).toEqual({
      jobs: 5,
      credits_net: 110,
      revenue: 1.1,
      upstream_cost: 0.55,
      margin: 0.55,
      unpriced_attempts: 1,
    });

    const lines: string[] = [];
    await writeOperatorReportCsv(report, { write: async (chunk) => void lines.push(chunk) });
    expect(lines.join('')).toBe(
      'model,jobs,credits_net,revenue,upstream_cost,margin,unpriced_attempts\r\n' +
        'editor-turn,2,10,0.1,0,0.1,0\r\nimagegen-2,3,100,1,0.3,0.7,1\r\nvidgen-2.0,0,0,0,0.25,-0.25,0\r\n',
    );
  });

  it("by provider: the jobs service's completed jobs and credits (billing knows no provider)", async () => {
    const { bus, asked } = fakeBus({
      upstreamCosts: {
        rows: [{ provider: 'or', jobs: 4, credits_kept: 1616, attempts: 5, upstream_cost: 1.6, unpriced_attempts: 0 }],
      },
    });
    const report = await operatorReport({ db, bus }, { ...range, by: 'provider' }, 0.002);
    expect(asked).toEqual(['upstreamCosts by provider']);
    expect(report).toMatchObject({
      by: 'provider',
      credit_value: 0.002,
      rows: [{ provider: 'or', jobs: 4, credits_net: 1616, revenue: 3.232, upstream_cost: 1.6, margin: 1.632 }],
    });
  });

  it('checks the query: range rules as usage, by user by default, and a message naming the field', () => {
    const now = new Date('2026-03-15T12:00:00Z');
    expect(validateOperatorReportQuery({}, now)).toEqual({ ok: true, value: { ...range, by: 'user' } });
    expect(validateOperatorReportQuery({ by: 'day' }, now)).toEqual({
      ok: false,
      error: 'by must be one of user, model, provider',
    });
    expect(validateOperatorReportQuery({ from: '2026-03-02', to: '2026-03-01' }, now)).toEqual({
      ok: false,
      error: 'to must be after from',
    });
    expect(validateOperatorReportQuery({ from: 'March' }, now)).toMatchObject({ ok: false, error: /^from must be/ });
  });
});
