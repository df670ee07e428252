import { api, query } from '../api.js';
import { creditChart } from '../chart.js';
import { h, replace } from '../dom.js';
import { date, number, signed, time } from '../format.js';
import { dataTable, empty, loading, pageHeading, scrollTable, withBusy } from '../ui.js';

const PAGE = 100;

const KIND_LABELS = { charge: 'Charge', refund: 'Refund', grant: 'Grant' };

function stat(label, value, extraClass) {
  return h('div', { class: `stat ${extraClass || ''}` }, h('dt', null, label), h('dd', null, value));
}

function ledgerRow(e) {
  return h(
    'tr',
    null,
    h('td', null, time(e.created_at)),
    h('td', null, KIND_LABELS[e.kind] || e.kind),
    h('td', null, e.description || ''),
    h('td', null, h('code', null, e.reference || '')),
    h('td', { class: `num ${e.amount < 0 ? 'negative' : 'positive'}` }, signed(e.amount)),
    h('td', { class: 'num' }, number(e.balance_after)),
  );
}

export async function overviewPage(ctx) {
  const balanceSection = h('section', { class: 'card', 'aria-labelledby': 'balance-heading' }, h('h2', { id: 'balance-heading' }, 'Credits'), loading());
  const chartSection = h('section', { class: 'card', 'aria-labelledby': 'chart-heading' }, h('h2', { id: 'chart-heading' }, 'Credits over time'), loading());
  const ledgerSection = h('section', { class: 'card', 'aria-labelledby': 'ledger-heading' }, h('h2', { id: 'ledger-heading' }, 'Ledger'), loading());
  ctx.root.append(pageHeading('Overview'), h('p', { class: 'lede' }, `Signed in as ${ctx.session.user.email}.`), balanceSection, chartSection, ledgerSection);

  const [balance, ledger] = await Promise.all([api.get('/balance'), api.get(`/ledger${query({ limit: PAGE })}`)]);
  if (!ctx.isCurrent()) return;

  replace(balanceSection, 
    h('h2', { id: 'balance-heading' }, 'Credits'),
    h(
      'dl',
      { class: 'stats' },
      stat('Credits remaining', number(balance.credits_remaining), 'stat-main'),
      stat('Used this period', number(balance.credits_used_this_period)),
      stat('Total this period', number(balance.credits_total_this_period)),
    ),
    balance.period_start || balance.period_end ? h('p', { class: 'hint' }, `Period: ${date(balance.period_start)} to ${date(balance.period_end)}.`) : null,
  );

  const entries = [...ledger.entries];
  const tbody = h('tbody');
  const moreButton = h('button', { type: 'button', class: 'secondary' }, 'Load older entries');

  const chartHeading = h('h2', { id: 'chart-heading' }, 'Credits over time');
  const chartWidth = () => chartSection.clientWidth - parseFloat(getComputedStyle(chartSection).paddingLeft) * 2;
  let drawnWidth = 0;
  const drawChart = () => {
    drawnWidth = chartWidth();
    replace(chartSection, chartHeading, creditChart(entries, { width: drawnWidth }));
  };
  // Drawn at its real pixel width; redrawn when that changes (rotation, resized window).
  const onResize = () => {
    if (Math.abs(chartWidth() - drawnWidth) > 8) drawChart();
  };
  window.addEventListener('resize', onResize);
  ctx.onCleanup(() => window.removeEventListener('resize', onResize));
  const addRows = (rows) => tbody.append(...rows.map(ledgerRow));

  drawChart();
  if (entries.length === 0) {
    replace(ledgerSection, h('h2', { id: 'ledger-heading' }, 'Ledger'), empty('No entries yet. Grants, charges and refunds appear here.'));
    return;
  }
  const table = dataTable({ caption: 'Ledger entries, newest first', columns: ['Date', 'Kind', 'Description', 'Reference', 'Amount', 'Balance after'], rows: [] });
  table.tBodies[0].replaceWith(tbody);
  addRows(entries);
  moreButton.hidden = entries.length < PAGE;
  moreButton.addEventListener('click', async () => {
    const older = await withBusy(moreButton, () => api.get(`/ledger${query({ limit: PAGE, before_id: entries[entries.length - 1].id })}`));
    if (!older || !ctx.isCurrent()) return;
    entries.push(...older.entries);
    addRows(older.entries);
    drawChart();
    moreButton.hidden = older.entries.length < PAGE;
  });
  replace(ledgerSection, h('h2', { id: 'ledger-heading' }, 'Ledger'), scrollTable('Ledger', table), h('div', { class: 'actions' }, moreButton));
}
