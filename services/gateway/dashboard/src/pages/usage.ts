import { api, query } from '../api.js';
import { h, replace } from '../dom.js';
import { number } from '../format.js';
import { dataTable, scrollTable } from '../tables.js';
import { empty, field, loading, pageHeading, withBusy } from '../ui.js';
import { daysBetween, usageChart } from '../usage-chart.js';
import type { DashboardReplies, UsageRow } from '../contracts.js';
import type { PageContext } from '../page.js';

type Usage = DashboardReplies['GET /usage'];

const COUNT_COLUMNS = ['Jobs', 'Charged', 'Refunded', 'Net'];

/** YYYY-MM-DD of a UTC instant. */
const dayOf = (t: number): string => new Date(t).toISOString().slice(0, 10);
/** The day after a YYYY-MM-DD: the API's `to` is exclusive, the page's "To" day is included. */
const nextDay = (day: string): string => dayOf(Date.parse(`${day}T00:00:00Z`) + 86_400_000);

/** The range the page opens on: this calendar month (UTC), as the API's default. */
export function thisMonth(now = new Date()): { from: string; to: string } {
  const from = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - 86_400_000;
  return { from: dayOf(from), to: dayOf(end) };
}

/** The usage API's address for a range and grouping; `csv` makes it the download. */
export function usageUrl(range: { from: string; to: string }, groupBy: string, csv = false): string {
  const q = query({ from: range.from, to: nextDay(range.to), group_by: groupBy, format: csv ? 'csv' : undefined });
  return `/usage${q}`;
}

function countCells(r: UsageRow): HTMLTableCellElement[] {
  return [r.jobs, r.credits_charged, r.credits_refunded, r.credits_net].map((n) =>
    h('td', { class: 'num' }, number(n)),
  );
}

function groupTable(
  caption: string,
  first: string,
  rows: readonly UsageRow[],
  label: (r: UsageRow) => string,
): HTMLElement {
  if (!rows.length) return empty('Nothing charged or refunded in this range.');
  return scrollTable(
    caption,
    dataTable({
      caption,
      columns: [first, ...COUNT_COLUMNS],
      rows: rows.map((r) => h('tr', null, h('th', { scope: 'row' }, label(r)), ...countCells(r))),
    }),
  );
}

function download(range: { from: string; to: string }, groupBy: string, what: string): HTMLElement {
  return h(
    'a',
    { class: 'download', href: `/dashboard/api${usageUrl(range, groupBy, true)}`, download: `usage-${groupBy}.csv` },
    `Download ${what} as CSV`,
  );
}

/** Usage by day (a chart), by model and by API key over a date range, each with its CSV download. */
export async function usagePage(ctx: PageContext): Promise<void> {
  const initial = thisMonth();
  const from = h('input', { type: 'date', name: 'from', required: true, value: initial.from });
  const to = h('input', { type: 'date', name: 'to', required: true, value: initial.to });
  const show = h('button', { type: 'submit', class: 'primary' }, 'Show usage');
  const results = h('div', { class: 'usage-results' }, loading());
  const form = h(
    'form',
    {
      class: 'card range-form',
      'aria-label': 'Date range',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        void withBusy(show, () => load({ from: from.value, to: to.value }));
      },
    },
    field('From', from, 'The first day included (UTC).'),
    field('To', to, 'The last day included (UTC).'),
    h('div', { class: 'actions' }, show),
  );
  ctx.root.append(
    pageHeading('Usage'),
    h(
      'p',
      { class: 'lede' },
      'What was charged and refunded, by day, model and API key. A refund counts on the day it was made.',
    ),
    form,
    results,
  );

  async function load(range: { from: string; to: string }): Promise<void> {
    const get = (groupBy: string) => api.get<Usage>(usageUrl(range, groupBy));
    const [byDay, byModel, byKey, keys] = await Promise.all([
      get('day'),
      get('model'),
      get('key'),
      api.get<DashboardReplies['GET /keys']>('/keys').catch(() => ({ keys: [] })),
    ]);
    if (!ctx.isCurrent()) return;
    const keyNames = new Map(keys.keys.map((k) => [k.id, k.name ? `${k.name} (${k.prefix}…)` : `${k.prefix}…`]));
    const chartSection = h('section', { class: 'card', 'aria-labelledby': 'usage-day-heading' });
    const t = byDay.totals;
    replace(
      results,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'usage-totals-heading' },
        h('h2', { id: 'usage-totals-heading' }, 'Totals'),
        h(
          'dl',
          { class: 'stats usage-totals' },
          [
            ['Jobs', t.jobs],
            ['Credits charged', t.credits_charged],
            ['Credits refunded', t.credits_refunded],
            ['Credits net', t.credits_net],
          ].map(([label, n]) => h('div', { class: 'stat' }, h('dt', null, label), h('dd', null, number(n)))),
        ),
      ),
      chartSection,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'usage-model-heading' },
        h('h2', { id: 'usage-model-heading' }, 'By model'),
        groupTable('Usage by model', 'Model', byModel.rows, (r) => r.model ?? '–'),
        download(range, 'model', 'usage by model'),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'usage-key-heading' },
        h('h2', { id: 'usage-key-heading' }, 'By API key'),
        groupTable('Usage by API key', 'API key', byKey.rows, (r) =>
          r.api_key_id === null || r.api_key_id === undefined
            ? 'No key (dashboard, editor)'
            : (keyNames.get(r.api_key_id) ?? `Key ${r.api_key_id}`),
        ),
        download(range, 'key', 'usage by key'),
      ),
    );
    // Drawn at the section's own width, now that it is on the page.
    const width = chartSection.clientWidth - parseFloat(getComputedStyle(chartSection).paddingLeft) * 2;
    replace(
      chartSection,
      h('h2', { id: 'usage-day-heading' }, 'By day'),
      usageChart(byDay.rows, daysBetween(range.from, nextDay(range.to)), { width }),
      download(range, 'day', 'usage by day'),
    );
  }

  await load(initial);
}
