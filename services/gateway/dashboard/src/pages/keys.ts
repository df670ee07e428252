import { api, seg } from '../api.js';
import { h, replace, uid } from '../dom.js';
import { time } from '../format.js';
import { announce, confirmDialog, empty, field, loading, pageHeading, secretBox, showError, withBusy } from '../ui.js';
import { dataTable, scrollTable } from '../tables.js';
import type { DashboardKey, DashboardKeyCreated, DashboardReplies, DashboardScope } from '../contracts.js';
import type { PageContext } from '../page.js';

export function scopeList(scopes: readonly string[]): HTMLElement {
  return h(
    'ul',
    { class: 'chips' },
    scopes.map((s) => h('li', null, s)),
  );
}

/** Asks, then revokes; resolves true when the key was revoked. */
export async function revokeKey(key: DashboardKey, button: HTMLButtonElement): Promise<boolean> {
  const ok = await confirmDialog({
    title: `Revoke the key “${key.name || key.prefix}”?`,
    body: 'Every request made with it is refused from now on (401), and its webhook stops. This cannot be undone.',
    confirmLabel: 'Revoke key',
    danger: true,
  });
  if (!ok) return false;
  const result = await withBusy(button, () => api.del<DashboardReplies['DELETE /keys/:id']>(`/keys/${seg(key.id)}`));
  if (!result) return false;
  announce(`The key “${key.name || key.prefix}” is revoked.`);
  return true;
}

function createForm(
  scopes: readonly DashboardScope[],
  onCreated: (created: DashboardKeyCreated) => Promise<void>,
): HTMLFormElement {
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '100', autocomplete: 'off' });
  const initially = (scope: DashboardScope): boolean => Boolean(scope.always || scope.default);
  const boxes = scopes.map((scope) => {
    const id = uid('scope');
    const hintId = uid('scope-hint');
    const input = h('input', {
      type: 'checkbox',
      id,
      name: 'scopes',
      value: scope.name,
      checked: initially(scope),
      disabled: Boolean(scope.always),
      'aria-describedby': hintId,
    });
    return {
      scope,
      input,
      el: h(
        'div',
        { class: 'check' },
        input,
        h(
          'div',
          null,
          h('label', { for: id }, h('code', null, scope.name)),
          h('p', { id: hintId, class: 'hint scope-hint' }, scope.description),
        ),
      ),
    };
  });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create key');
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'create-key-heading',
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const scopes = boxes.filter((b) => b.input.checked).map((b) => b.scope.name);
        const result = await withBusy(submit, () =>
          api.post<DashboardReplies['POST /keys']>('/keys', { name: name.value.trim(), scopes }),
        );
        if (!result) return;
        form.reset();
        for (const b of boxes) b.input.checked = initially(b.scope);
        try {
          await onCreated(result);
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h2', { id: 'create-key-heading' }, 'Create a key'),
    field('Name', name, 'So you can tell your keys apart, for example “production server”.'),
    h(
      'fieldset',
      null,
      h('legend', null, 'Scopes'),
      h(
        'p',
        { class: 'hint' },
        'Ticked: what a typical integration needs. Tick the editor scopes for the video editor; untick what this key should not do.',
      ),
      boxes.map((b) => b.el),
    ),
    h('div', { class: 'actions' }, submit),
  );
  return form;
}

export async function keysPage(ctx: PageContext): Promise<void> {
  const newKeySlot = h('div', { class: 'slot' });
  const listSection = h(
    'section',
    { class: 'card', 'aria-labelledby': 'keys-heading' },
    h('h2', { id: 'keys-heading' }, 'Your keys'),
    loading(),
  );

  async function loadList(): Promise<void> {
    const { keys } = await api.get<DashboardReplies['GET /keys']>('/keys');
    if (!ctx.isCurrent()) return;
    if (keys.length === 0) {
      replace(
        listSection,
        h('h2', { id: 'keys-heading' }, 'Your keys'),
        empty('No keys yet. Create one above to call the API.'),
      );
      return;
    }
    const rows = keys.map((key) => {
      const label = key.name || key.prefix;
      let action: HTMLElement;
      if (key.revoked_at) {
        action = h('span', { class: 'badge badge-revoked' }, 'revoked ', time(key.revoked_at));
      } else {
        const revoke = h(
          'button',
          { type: 'button', class: 'danger small nowrap', 'aria-label': `Revoke key ${label}` },
          'Revoke',
        );
        revoke.addEventListener('click', () => {
          void revokeKey(key, revoke).then((revoked) => (revoked ? loadList() : undefined));
        });
        action = revoke;
      }
      return h(
        'tr',
        { dataset: { keyId: String(key.id) } },
        h('td', null, h('a', { href: `#/keys/${seg(key.id)}` }, key.name || '(no name)')),
        h('td', null, h('code', { class: 'nowrap' }, key.prefix)),
        h('td', null, scopeList(key.scopes)),
        h('td', null, time(key.created_at)),
        h('td', null, time(key.last_used_at)),
        h('td', { class: 'action-cell' }, action),
      );
    });
    replace(
      listSection,
      h('h2', { id: 'keys-heading' }, 'Your keys'),
      scrollTable(
        'Your keys',
        dataTable({
          caption: 'API keys, newest first',
          columns: ['Name', 'Prefix', 'Scopes', 'Created', 'Last used', 'Status'],
          rows,
        }),
      ),
      h('p', { class: 'hint' }, 'Open a key to set its webhook and see its deliveries.'),
    );
  }

  // The scopes, their meanings and the defaults of a new key come from the server.
  const { scopes } = await api.get<DashboardReplies['GET /installation']>('/installation');
  if (!ctx.isCurrent()) return;
  const form = createForm(scopes, async ({ key, secret_key }) => {
    const box = secretBox({
      heading: 'Your new API key',
      label: `API key “${key.name}”`,
      value: secret_key,
      note: 'Copy it now and keep it secret: this is the only time it is shown. Send it as “Authorization: Bearer <key>”.',
      testId: 'new-key',
    });
    replace(newKeySlot, box);
    announce(`Key “${key.name}” created. Copy it now: it is shown only once.`);
    box.querySelector('input')?.focus();
    await loadList();
  });

  ctx.root.append(pageHeading('API keys'), form, newKeySlot, listSection);
  await loadList();
}
