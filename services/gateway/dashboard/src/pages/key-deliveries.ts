// The delivery log of one key's webhook: status filter, detail view, resend and recover.
import { api, query, seg } from '../api.js';
import { append, h, replace } from '../dom.js';
import { durationMs, time } from '../format.js';
import { announce, empty, field, loading, showError, withBusy, type Control } from '../ui.js';
import { dataTable, scrollTable } from '../tables.js';
import type { Child } from '../dom.js';
import type { DashboardKey, DashboardReplies, DeliveryDetail, DeliveryView } from '../contracts.js';
import type { PageContext } from '../page.js';

function deliveryResult(d: Pick<DeliveryView, 'status_code' | 'error'>): HTMLElement {
  if (d.status_code !== null && d.status_code !== undefined) {
    const ok = d.status_code >= 200 && d.status_code < 300;
    return h('span', { class: ok ? 'result-ok' : 'result-bad' }, `HTTP ${d.status_code}`);
  }
  return h('span', { class: 'result-bad' }, d.error || 'no answer');
}

function jobCell(d: DeliveryView): Child {
  // A test's sample job exists nowhere: its id is shown, not linked.
  if (!d.job_id) return '–';
  if (d.test) return h('code', { class: 'job-id' }, d.job_id);
  return h('a', { class: 'job-id', href: `#/jobs/${seg(d.job_id)}` }, d.job_id);
}

/** What was sent and answered: headers, body, the start of the answer. */
function detailView(d: DeliveryDetail): HTMLElement {
  const headers = d.request_headers
    ? Object.entries(d.request_headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')
    : 'not recorded';
  return h(
    'div',
    { class: 'delivery-detail', dataset: { testid: 'delivery-detail' } },
    h('h3', null, `Attempt ${d.attempt} of event `, h('code', null, d.event_id)),
    h('p', null, deliveryResult(d), ' after ', durationMs(d.duration_ms), ', ', time(d.created_at)),
    h('h4', null, 'Request headers'),
    h('pre', { class: 'break' }, headers),
    h('h4', null, 'Request body'),
    h('pre', { class: 'break' }, d.request_body ?? 'not recorded'),
    h('h4', null, 'Response body (first 4 KB)'),
    h('pre', { class: 'break' }, d.response_body ?? (d.status_code === null ? 'no answer' : 'not recorded')),
  );
}

/** ISO time of a datetime-local value (local time); null when empty or invalid. */
function isoOf(localValue: string): string | null {
  const t = new Date(localValue);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
}

/** A datetime-local value for `ms` ago, in local time. */
function localAgo(ms: number): string {
  const t = new Date(Date.now() - ms);
  return new Date(t.getTime() - t.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * The delivery log section of a key page. `controls`: nodes shown above the log (the test event
 * picker); `active`: a revoked key cannot resend or recover. Returns the section and its loader.
 */
export function deliveryLog({
  ctx,
  key,
  active,
  controls = [],
  buttons = [],
}: {
  ctx: PageContext;
  key: DashboardKey;
  active: boolean;
  controls?: Child;
  buttons?: Child;
}): { section: HTMLElement; load: () => Promise<void> } {
  const base = `/keys/${seg(key.id)}/webhook`;
  const section = h('section', { class: 'card', 'aria-labelledby': 'log-heading' });
  const logBody = h('div', null, loading());
  const detailSlot = h('div', { class: 'slot' });
  const statusFilter = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'All attempts'),
    h('option', { value: 'failed' }, 'Failed'),
    h('option', { value: 'succeeded' }, 'Succeeded'),
  );
  const refreshButton = h('button', { type: 'button', class: 'secondary' }, 'Refresh log');
  const sinceInput = h('input', { type: 'datetime-local', name: 'since', value: localAgo(24 * 3600_000) });
  const recoverButton = h('button', { type: 'button', class: 'secondary' }, 'Resend failed events since then');

  async function showDetail(d: DeliveryView, button: HTMLButtonElement): Promise<void> {
    const detail = await withBusy(button, () =>
      api.get<DashboardReplies['GET /keys/:id/webhook/deliveries/:deliveryId']>(`${base}/deliveries/${seg(d.id)}`),
    );
    if (!detail || !ctx.isCurrent()) return;
    replace(detailSlot, detailView(detail));
    detailSlot.scrollIntoView({ block: 'nearest' });
  }

  async function resend(d: DeliveryView, button: HTMLButtonElement): Promise<void> {
    const result = await withBusy(button, () =>
      api.post<DashboardReplies['POST /keys/:id/webhook/deliveries/:deliveryId/resend']>(
        `${base}/deliveries/${seg(d.id)}/resend`,
      ),
    );
    if (!result || !ctx.isCurrent()) return;
    const sent = result.delivery;
    announce(
      sent.succeeded
        ? `Event sent again: your server answered HTTP ${sent.status_code}.`
        : `Event sent again, not delivered: ${sent.error || `HTTP ${sent.status_code}`}.`,
    );
    await load();
  }

  function row(d: DeliveryView): HTMLTableRowElement {
    const detailButton = h('button', { type: 'button', class: 'link-button' }, 'Details');
    detailButton.addEventListener('click', () => void showDetail(d, detailButton));
    const resendButton = active ? h('button', { type: 'button', class: 'link-button' }, 'Resend') : null;
    resendButton?.addEventListener('click', () => void resend(d, resendButton));
    return h(
      'tr',
      { dataset: { event: d.event, test: d.test ? 'true' : 'false', delivery: String(d.id) } },
      h('td', null, time(d.created_at)),
      h('td', null, h('code', null, d.event), d.test ? [' ', h('span', { class: 'badge badge-test' }, 'test')] : null),
      h('td', null, jobCell(d)),
      h('td', { class: 'num' }, String(d.attempt ?? '–')),
      h('td', null, deliveryResult(d)),
      h('td', { class: 'num' }, durationMs(d.duration_ms)),
      h('td', null, detailButton, resendButton ? [' ', resendButton] : null),
    );
  }

  async function load(): Promise<void> {
    const { deliveries } = await api.get<DashboardReplies['GET /keys/:id/webhook/deliveries']>(
      `${base}/deliveries${query({ status: statusFilter.value })}`,
    );
    if (!ctx.isCurrent()) return;
    replace(
      logBody,
      deliveries.length === 0
        ? empty(statusFilter.value ? `No ${statusFilter.value} deliveries.` : 'No deliveries yet.')
        : scrollTable(
            'Delivery log',
            dataTable({
              caption: 'Delivery attempts, newest first',
              columns: ['Time', 'Event', 'Job', 'Attempt', 'Result', 'Duration', ''],
              rows: deliveries.map(row),
            }),
          ),
    );
  }

  const reload = (button: Control, message?: string) => (): void => {
    void withBusy(button, load).then(() => {
      if (message) announce(message);
    });
  };
  statusFilter.addEventListener('change', reload(statusFilter));
  refreshButton.addEventListener('click', reload(refreshButton, 'Delivery log updated.'));
  const recover = async (): Promise<void> => {
    const since = isoOf(sinceInput.value);
    if (!since) return showError(new Error('Choose the time to recover from.'));
    const result = await withBusy(recoverButton, () =>
      api.post<DashboardReplies['POST /keys/:id/webhook/recover']>(`${base}/recover`, { since }),
    );
    if (!result || !ctx.isCurrent()) return;
    announce(
      result.queued === 0
        ? 'No failed events since then.'
        : `${result.queued} failed event${result.queued === 1 ? '' : 's'} queued to be sent again.`,
    );
  };
  recoverButton.addEventListener('click', () => void recover());

  // append(), not Element.append: a revoked key has no controls (null), which must add nothing.
  append(section, [
    h('h2', { id: 'log-heading' }, 'Delivery log'),
    h(
      'p',
      { class: 'hint' },
      'Every attempt to reach your webhook: failed attempts are retried after 30 s, 2 min and 10 min. Resend sends one event again now; recover sends every event whose last attempt failed.',
    ),
    controls,
    h('div', { class: 'actions' }, buttons, field('Show', statusFilter), refreshButton),
    active
      ? h(
          'div',
          { class: 'actions recover' },
          field('Failed since', sinceInput, 'Each event whose last attempt failed since then is sent again, once.'),
          recoverButton,
        )
      : null,
    logBody,
    detailSlot,
  ]);
  return { section, load };
}
