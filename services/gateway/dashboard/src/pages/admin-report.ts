import { api, query } from '../api.js';
import { h, replace } from '../dom.js';
import { number, usd } from '../format.js';
import { dataTable, scrollTable } from '../tables.js';
import { empty, field, withBusy } from '../ui.js';
import { thisMonth } from './usage.js';
import type { DashboardReplies, OperatorReportRow } from '../contracts.js';

type Report = DashboardReplies['GET /admin/usage-report'];

const GROUPS = { user: 'User', model: 'Model', provider: 'Provider' } as const;
type Group = keyof typeof GROUPS;

/** The report's address for a range (days, `to` included) and grouping; `csv` makes it the download. */
function reportUrl(range: { from: string; to: string }, by: Group, csv = false): string {
  const to = new Date(Date.parse(`${range.to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return `/admin/usage-report${query({ from: range.from, to, by, format: csv ? 'csv' : undefined })}`;
}

function label(r: OperatorReportRow): string {
  if (r.user_id !== undefined) return r.email ?? `User ${r.user_id}`;
  return r.model ?? r.provider ?? '–';
}

function figures(r: Omit<OperatorReportRow, 'user_id' | 'email' | 'model' | 'provider'>): HTMLTableCellElement[] {
  return [
    h('td', { class: 'num' }, number(r.jobs)),
    h('td', { class: 'num' }, number(r.credits_net)),
    h('td', { class: 'num' }, usd(r.revenue)),
    h('td', { class: 'num' }, usd(r.upstream_cost)),
    h('td', { class: `num ${r.margin < 0 ? 'negative' : ''}` }, usd(r.margin)),
    h('td', { class: 'num' }, number(r.unpriced_attempts)),
  ];
}

function reportTable(report: Report): HTMLElement {
  if (!report.rows.length) return empty('No usage and no upstream cost in this range.');
  const columns = [GROUPS[report.by], 'Jobs', 'Credits net', 'Revenue', 'Upstream cost', 'Margin', 'Unpriced'];
  const rows = report.rows.map((r) => h('tr', null, h('th', { scope: 'row' }, label(r)), ...figures(r)));
  rows.push(h('tr', { class: 'totals' }, h('th', { scope: 'row' }, 'Total'), ...figures(report.totals)));
  return scrollTable('Usage report', dataTable({ caption: `Usage report by ${report.by}`, columns, rows }));
}

/**
 * The operator's usage report (as `npm run admin -- usage:report`): per user, model or provider,
 * the jobs, credits net, their worth, what they cost upstream and the margin, with a CSV download.
 */
export function usageReportSection(isCurrent: () => boolean): HTMLElement {
  const initial = thisMonth();
  const from = h('input', { type: 'date', name: 'from', required: true, value: initial.from });
  const to = h('input', { type: 'date', name: 'to', required: true, value: initial.to });
  const by = h(
    'select',
    { name: 'by' },
    Object.entries(GROUPS).map(([value, text]) => h('option', { value }, text)),
  );
  const show = h('button', { type: 'submit', class: 'primary' }, 'Show report');
  const results = h('div', { class: 'report-results' });
  const load = async (): Promise<void> => {
    const range = { from: from.value, to: to.value };
    const group = by.value as Group;
    const report = await api.get<Report>(reportUrl(range, group));
    if (!isCurrent()) return;
    replace(
      results,
      h(
        'p',
        { class: 'hint' },
        `One credit is worth ${usd(report.credit_value)} (CREDIT_VALUE_USD). Unpriced: attempts that succeeded on a provider with no cost known.`,
      ),
      reportTable(report),
      h(
        'a',
        {
          class: 'download',
          href: `/dashboard/api${reportUrl(range, group, true)}`,
          download: `usage-report-by-${group}.csv`,
        },
        'Download the report as CSV',
      ),
    );
  };
  return h(
    'form',
    {
      class: 'card range-form',
      'aria-labelledby': 'usage-report-heading',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        void withBusy(show, load);
      },
    },
    h('h2', { id: 'usage-report-heading' }, 'Usage report'),
    field('From', from, 'The first day included (UTC).'),
    field('To', to, 'The last day included (UTC).'),
    field('Group by', by),
    h('div', { class: 'actions' }, show),
    results,
  );
}
