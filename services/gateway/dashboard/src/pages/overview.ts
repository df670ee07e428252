import { api, query } from '../api.js';
import { creditChart } from '../chart.js';
import { h, replace } from '../dom.js';
import { credits, date, number, signed, time } from '../format.js';
import { empty, loading, pageHeading, withBusy } from '../ui.js';
import { dataTable, scrollTable } from '../tables.js';
import type { DashboardInstallation, DashboardReplies, LedgerEntry } from '../contracts.js';
import type { PageContext } from '../page.js';

type Ledger = DashboardReplies['GET /ledger'];

const PAGE = 100;

const KIND_LABELS: Record<string, string> = { charge: 'Charge', refund: 'Refund', grant: 'Grant' };

function stat(label: string, value: string, extraClass?: string): HTMLElement {
  return h('div', { class: `stat ${extraClass || ''}` }, h('dt', null, label), h('dd', null, value));
}

/**
 * What an entry did to the balance: the API's signed `delta` (a charge is negative), and for an
 * answer without it, the sign its kind gives (amount is always the size).
 */
export function entryDelta(e: Pick<LedgerEntry, 'kind' | 'amount'> & { delta?: number }): number {
  if (typeof e.delta === 'number') return e.delta;
  return e.kind === 'charge' ? -e.amount : e.amount;
}

function ledgerRow(e: LedgerEntry): HTMLTableRowElement {
  const delta = entryDelta(e);
  return h(
    'tr',
    { dataset: { kind: e.kind } },
    h('td', { dataset: { label: 'Date' } }, time(e.created_at)),
    h('td', { dataset: { label: 'Kind' } }, KIND_LABELS[e.kind] || e.kind),
    h('td', { dataset: { label: 'Description' } }, e.description || ''),
    h('td', { dataset: { label: 'Reference' } }, h('code', { class: 'break' }, e.reference || '')),
    h(
      'td',
      { class: `num ${delta < 0 ? 'negative' : delta > 0 ? 'positive' : ''}`, dataset: { label: 'Amount' } },
      signed(delta),
    ),
    h('td', { class: 'num', dataset: { label: 'Balance after' } }, number(e.balance_after)),
  );
}

/**
 * A new account's first screen: how credits are obtained here (an operator's SIGNUP_CREDITS, else
 * an admin's grant), then the way to a first result.
 */
function gettingStarted(ctx: PageContext, installation: DashboardInstallation | null): HTMLElement {
  const isAdmin = ctx.session?.user.role === 'admin';
  const how =
    installation && installation.signup_credits > 0
      ? `New accounts on this installation get ${credits(installation.signup_credits)} once, at sign-up. If yours are not shown yet, reload this page in a moment.`
      : isAdmin
        ? 'New accounts on this installation start with 0 credits: an administrator grants them. You are one: find your account on the Admin page and grant yourself credits.'
        : 'New accounts on this installation start with 0 credits: an administrator grants them. Ask one to grant credits to your account (they find it by your email on their Admin page).';
  return h(
    'section',
    { class: 'card onboarding', 'aria-labelledby': 'start-heading' },
    h('h2', { id: 'start-heading' }, 'Getting started'),
    h('p', null, h('strong', null, 'You have no credits yet. '), how),
    isAdmin ? h('p', null, h('a', { class: 'button-link', href: '#/admin' }, 'Grant credits')) : null,
    h(
      'ol',
      { class: 'steps' },
      h(
        'li',
        null,
        h('a', { href: '#/keys' }, 'Create an API key'),
        ' to call the API from your code (copy it: it is shown once).',
      ),
      h(
        'li',
        null,
        'Try a model in the ',
        h('a', { href: '#/playground' }, 'playground'),
        ': it shows the price before you submit.',
      ),
      h(
        'li',
        null,
        'Read the ',
        h(
          'a',
          {
            href: (installation && installation.reference_url) || '/api/v1/reference',
            target: '_blank',
            rel: 'noopener',
          },
          'API reference',
        ),
        ' for every endpoint.',
      ),
    ),
  );
}

export async function overviewPage(ctx: PageContext): Promise<void> {
  const balanceSection = h(
    'section',
    { class: 'card', 'aria-labelledby': 'balance-heading' },
    h('h2', { id: 'balance-heading' }, 'Credits'),
    loading(),
  );
  const chartSection = h(
    'section',
    { class: 'card', 'aria-labelledby': 'chart-heading' },
    h('h2', { id: 'chart-heading' }, 'Credits over time'),
    loading(),
  );
  const ledgerSection = h(
    'section',
    { class: 'card', 'aria-labelledby': 'ledger-heading' },
    h('h2', { id: 'ledger-heading' }, 'Ledger'),
    loading(),
  );
  ctx.root.append(
    pageHeading('Overview'),
    h('p', { class: 'lede' }, `Signed in as ${ctx.session?.user.email ?? ''}.`),
    balanceSection,
    chartSection,
    ledgerSection,
  );

  const [balance, ledger, installation] = await Promise.all([
    api.get<DashboardReplies['GET /balance']>('/balance'),
    api.get<Ledger>(`/ledger${query({ limit: PAGE })}`),
    api.get<DashboardReplies['GET /installation']>('/installation').catch(() => null),
  ]);
  if (!ctx.isCurrent()) return;
  if (balance.credits_remaining === 0 && ledger.entries.length === 0)
    balanceSection.before(gettingStarted(ctx, installation));

  replace(
    balanceSection,
    h('h2', { id: 'balance-heading' }, 'Credits'),
    h(
      'dl',
      { class: 'stats' },
      stat('Credits remaining', number(balance.credits_remaining), 'stat-main'),
      stat('Used this period', number(balance.credits_used_this_period)),
      stat('Total this period', number(balance.credits_total_this_period)),
    ),
    balance.period_start || balance.period_end
      ? h('p', { class: 'hint' }, `Period: ${date(balance.period_start)} to ${date(balance.period_end)}.`)
      : null,
  );

  const entries = [...ledger.entries];
  const tbody = h('tbody');
  const moreButton = h('button', { type: 'button', class: 'secondary' }, 'Load older entries');

  const chartHeading = h('h2', { id: 'chart-heading' }, 'Credits over time');
  const chartWidth = (): number =>
    chartSection.clientWidth - parseFloat(getComputedStyle(chartSection).paddingLeft) * 2;
  let drawnWidth = 0;
  const drawChart = (): void => {
    drawnWidth = chartWidth();
    replace(chartSection, chartHeading, creditChart(entries, { width: drawnWidth }));
  };
  // Drawn at its real pixel width; redrawn when that changes (rotation, resized window).
  const onResize = (): void => {
    if (Math.abs(chartWidth() - drawnWidth) > 8) drawChart();
  };
  window.addEventListener('resize', onResize);
  ctx.onCleanup(() => window.removeEventListener('resize', onResize));
  const addRows = (rows: readonly LedgerEntry[]): void => tbody.append(...rows.map(ledgerRow));

  drawChart();
  if (entries.length === 0) {
    replace(
      ledgerSection,
      h('h2', { id: 'ledger-heading' }, 'Ledger'),
      empty('No entries yet. Grants, charges and refunds appear here.'),
    );
    return;
  }
  const table = dataTable({
    caption: 'Ledger entries, newest first: charges are negative, refunds and grants positive',
    columns: ['Date', 'Kind', 'Description', 'Reference', 'Amount', 'Balance after'],
    rows: [],
  });
  table.tBodies[0]?.replaceWith(tbody);
  addRows(entries);
  moreButton.hidden = entries.length < PAGE;
  const loadOlder = async (): Promise<void> => {
    const older = await withBusy(moreButton, () =>
      api.get<Ledger>(`/ledger${query({ limit: PAGE, before_id: entries[entries.length - 1]?.id })}`),
    );
    if (!older || !ctx.isCurrent()) return;
    entries.push(...older.entries);
    addRows(older.entries);
    drawChart();
    moreButton.hidden = older.entries.length < PAGE;
  };
  moreButton.addEventListener('click', () => void loadOlder());
  replace(
    ledgerSection,
    h('h2', { id: 'ledger-heading' }, 'Ledger'),
    scrollTable('Ledger', table),
    h('div', { class: 'actions' }, moreButton),
  );
}
