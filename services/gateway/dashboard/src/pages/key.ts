import { api, seg } from '../api.js';
import { h, replace } from '../dom.js';
import { time } from '../format.js';
import { announce, confirmDialog, empty, field, loading, pageHeading, secretBox, showError, withBusy } from '../ui.js';
import { deliveryLog } from './key-deliveries.js';
import { limitsCard } from '../key-limits.js';
import { revokeKey, scopeList } from './keys.js';
import type { DashboardReplies, EndpointView } from '../contracts.js';
import type { PageContext } from '../page.js';

export async function keyPage(ctx: PageContext): Promise<void> {
  const id = ctx.params.id;
  const heading = pageHeading('API key');
  ctx.root.append(h('p', { class: 'breadcrumb' }, h('a', { href: '#/keys' }, '← All keys')), heading);
  const body = h('div', null, loading());
  ctx.root.append(body);

  const { keys } = await api.get<DashboardReplies['GET /keys']>('/keys');
  if (!ctx.isCurrent()) return;
  const key = keys.find((k) => String(k.id) === id);
  if (!key) {
    heading.textContent = 'Key not found';
    replace(body, h('p', null, 'There is no key with this id among yours.'));
    return;
  }
  const active = !key.revoked_at;

  const revokeButton = h('button', { type: 'button', class: 'danger' }, 'Revoke this key');
  revokeButton.addEventListener('click', () => {
    void revokeKey(key, revokeButton).then((revoked) => revoked && ctx.navigate('#/keys'));
  });
  const details = h(
    'section',
    { class: 'card', 'aria-label': 'Key details' },
    h(
      'dl',
      { class: 'details' },
      h('dt', null, 'Prefix'),
      h('dd', null, h('code', null, key.prefix)),
      h('dt', null, 'Scopes'),
      h('dd', null, scopeList(key.scopes)),
      h('dt', null, 'Created'),
      h('dd', null, time(key.created_at)),
      h('dt', null, 'Last used'),
      h('dd', null, time(key.last_used_at)),
      h('dt', null, 'Status'),
      h(
        'dd',
        null,
        active
          ? h('span', { class: 'badge badge-active' }, 'active')
          : h('span', { class: 'badge badge-revoked' }, 'revoked ', time(key.revoked_at)),
      ),
    ),
    active ? h('div', { class: 'actions' }, revokeButton) : null,
  );

  // Webhook: the URL, the one-time secret, clear.
  const webhookSection = h('section', { class: 'card', 'aria-labelledby': 'webhook-heading' });
  const secretSlot = h('div', { class: 'slot' });
  const current = h('p', { class: 'webhook-current' });
  const urlInput = h('input', {
    type: 'url',
    name: 'url',
    required: true,
    placeholder: 'https://example.com/hooks/mediaforge',
    autocomplete: 'url',
    maxlength: '2048',
  });
  const saveButton = h('button', { type: 'submit', class: 'primary' }, 'Save webhook URL');
  const clearButton = h('button', { type: 'button', class: 'secondary' }, 'Clear webhook');
  const testButton = h('button', { type: 'button', class: 'secondary' }, 'Send test event');
  const testEvent = h(
    'select',
    { name: 'test-event' },
    h('option', { value: 'webhook.test' }, 'webhook.test: a ping'),
    h('option', { value: 'job.completed' }, 'job.completed: a sample completed video job'),
    h('option', { value: 'job.failed' }, 'job.failed: a sample failed job'),
    h('option', { value: 'job.cancelled' }, 'job.cancelled: a sample cancelled job'),
  );
  const disabledNotice = h('p', {
    class: 'warning',
    role: 'status',
    hidden: true,
    dataset: { testid: 'webhook-disabled' },
  });
  function showWebhook(view: Partial<EndpointView>): void {
    if (view.url)
      replace(
        current,
        'Sending events to ',
        h('code', { class: 'break' }, view.url),
        ' (since ',
        time(view.updated_at || view.created_at),
        ').',
      );
    else replace(current, 'No webhook set: nothing is sent for this key’s jobs.');
    disabledNotice.hidden = !view.disabled_at;
    if (view.disabled_at)
      replace(
        disabledNotice,
        'Disabled ',
        time(view.disabled_at),
        ': every delivery failed since ',
        time(view.failing_since),
        '. Nothing is sent until you save the URL again.',
      );
    urlInput.value = view.url || '';
    clearButton.hidden = !view.url;
    testButton.disabled = !view.url;
    testEvent.disabled = !view.url;
    testButton.title = view.url ? '' : 'Set a webhook URL first';
  }

  const form = h(
    'form',
    {
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const url = urlInput.value.trim();
        const result = await withBusy(saveButton, () =>
          api.put<DashboardReplies['PUT /keys/:id/webhook']>(`/keys/${seg(key.id)}/webhook`, { url }),
        );
        if (!result || !ctx.isCurrent()) return;
        if (result.secret) {
          const box = secretBox({
            heading: 'Signing secret',
            label: 'Webhook signing secret',
            value: result.secret,
            note: 'Store it with your server’s secrets now: it is shown only this once. To rotate it, clear the webhook and set the URL again.',
            testId: 'webhook-secret',
          });
          replace(secretSlot, box);
          box.querySelector('input')?.focus();
          announce('Webhook saved. Copy the signing secret now: it is shown only once.');
        } else {
          announce('Webhook URL saved. Deliveries keep the signing secret you already have.');
        }
        showWebhook({ url: result.url, updated_at: new Date().toISOString() });
      },
    },
    field(
      'Webhook URL',
      urlInput,
      'We POST a signed JSON event here when a job of this key completes, fails or is cancelled.',
    ),
    h('div', { class: 'actions' }, saveButton, clearButton),
  );

  const clearWebhook = async (): Promise<void> => {
    const ok = await confirmDialog({
      title: 'Clear the webhook?',
      body: 'Nothing is sent for this key until you set a URL again, and the signing secret is deleted: a new URL gets a new secret.',
      confirmLabel: 'Clear webhook',
      danger: true,
    });
    if (!ok) return;
    const result = await withBusy(clearButton, () =>
      api.del<DashboardReplies['DELETE /keys/:id/webhook']>(`/keys/${seg(key.id)}/webhook`),
    );
    if (!result || !ctx.isCurrent()) return;
    secretSlot.replaceChildren();
    showWebhook({ url: null });
    announce('Webhook cleared.');
    urlInput.focus();
  };
  clearButton.addEventListener('click', () => void clearWebhook());

  webhookSection.append(
    h('h2', { id: 'webhook-heading' }, 'Webhook'),
    current,
    disabledNotice,
    active ? form : h('p', { class: 'hint' }, 'A revoked key sends no webhooks.'),
    secretSlot,
  );

  const { section: logSection, load: loadLog } = deliveryLog({
    ctx,
    key,
    active,
    controls: active
      ? h(
          'div',
          { class: 'test-event' },
          field(
            'Test event',
            testEvent,
            'A sample job event has the exact shape of a real one (its job id and media URL exist nowhere) and carries the header X-Service-Test: true. Tests are sent once, never retried.',
          ),
        )
      : null,
    buttons: active ? testButton : null,
  });

  const sendTest = async (): Promise<void> => {
    const event = testEvent.value;
    const result = await withBusy(testButton, () =>
      api.post<DashboardReplies['POST /keys/:id/webhook/test']>(`/keys/${seg(key.id)}/webhook/test`, { event }),
    );
    if (!result || !ctx.isCurrent()) return;
    const d = result.delivery;
    const what = event === 'webhook.test' ? 'Test event' : `Sample ${event}`;
    announce(
      d.status_code
        ? `${what} delivered: your server answered HTTP ${d.status_code}.`
        : `${what} not delivered: ${d.error || 'no answer'}.`,
    );
    await withBusy(testButton, loadLog);
  };
  testButton.addEventListener('click', () => void sendTest());

  // Shown complete: the webhook state and the log load together before the page appears.
  const [webhook] = await Promise.all([
    api.get<DashboardReplies['GET /keys/:id/webhook']>(`/keys/${seg(key.id)}/webhook`).catch((err: unknown) => {
      showError(err);
      return null;
    }),
    loadLog().catch((err: unknown) => {
      showError(err);
      logSection.append(empty('The delivery log could not be loaded. Try Refresh log.'));
    }),
  ]);
  if (!ctx.isCurrent()) return;
  if (webhook) showWebhook(webhook);
  else current.textContent = 'The webhook could not be loaded.';
  heading.textContent = `API key “${key.name || key.prefix}”`;
  replace(body, details, limitsCard(key), webhookSection, logSection);
}
