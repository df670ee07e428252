import { api, query, seg } from '../api.js';
import { h, randomKey, replace, uid } from '../dom.js';
import { number, time } from '../format.js';
import { announce, empty, field, pageHeading, withBusy } from '../ui.js';
import { dataTable, scrollTable } from '../tables.js';
import type { DashboardReplies, DashboardUserRow } from '../contracts.js';
import type { PageContext } from '../page.js';
import { usageReportSection } from './admin-report.js';

function grantForm(user: DashboardUserRow): HTMLElement {
  const amountId = uid('amount');
  const amount = h('input', {
    id: amountId,
    type: 'number',
    name: 'amount',
    min: '1',
    step: '1',
    required: true,
    inputmode: 'numeric',
    class: 'amount',
  });
  const submit = h('button', { type: 'submit', class: 'primary small' }, 'Grant');
  const result = h('span', { class: 'grant-result', role: 'status' });
  // One key per grant meant: a retry of this submission (a lost answer, a second click) grants once.
  let grantKey = randomKey();
  // Another amount is another grant.
  amount.addEventListener('input', () => {
    grantKey = randomKey();
  });
  return h(
    'form',
    {
      class: 'grant-form',
      'aria-label': `Grant credits to ${user.email}`,
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const n = Number(amount.value);
        const reply = await withBusy(submit, () =>
          api.post<DashboardReplies['POST /admin/users/:id/credits']>(`/admin/users/${seg(user.id)}/credits`, {
            amount: n,
            idempotency_key: grantKey,
          }),
        );
        if (!reply) return;
        grantKey = randomKey();
        amount.value = '';
        result.textContent = `Balance now ${number(reply.credits_remaining)}`;
        announce(
          `Granted ${number(n)} credits to ${user.email}. Their balance is now ${number(reply.credits_remaining)}.`,
        );
      },
    },
    h('label', { for: amountId, class: 'visually-hidden' }, `Credits to grant to ${user.email}`),
    amount,
    submit,
    result,
  );
}

export function adminPage(ctx: PageContext): void {
  const email = h('input', {
    type: 'search',
    name: 'email',
    required: true,
    autocomplete: 'off',
    placeholder: 'name@example.com',
  });
  const searchButton = h('button', { type: 'submit', class: 'primary' }, 'Find user');
  const results = h('div');
  const form = h(
    'form',
    {
      class: 'card search-form',
      'aria-labelledby': 'find-user-heading',
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const reply = await withBusy(searchButton, () =>
          api.get<DashboardReplies['GET /admin/users']>(`/admin/users${query({ email: email.value.trim() })}`),
        );
        if (!reply || !ctx.isCurrent()) return;
        // The count is announced; the table itself is not read out on every search.
        announce(reply.users.length === 1 ? '1 user found.' : `${reply.users.length} users found.`);
        if (reply.users.length === 0) {
          replace(results, empty('No user with this email.'));
          return;
        }
        const rows = reply.users.map((u) =>
          h(
            'tr',
            null,
            h('td', null, u.email),
            h('td', null, u.role),
            h('td', null, time(u.created_at)),
            h('td', null, grantForm(u)),
          ),
        );
        replace(
          results,
          h(
            'section',
            { class: 'card' },
            h('h2', null, 'Users found'),
            scrollTable(
              'Users found',
              dataTable({
                caption: 'Users matching the email',
                columns: ['Email', 'Role', 'Signed up', 'Grant credits'],
                rows,
              }),
            ),
          ),
        );
      },
    },
    h('h2', { id: 'find-user-heading' }, 'Find a user'),
    field('Email', email, 'The user’s email address.'),
    h('div', { class: 'actions' }, searchButton),
  );
  ctx.root.append(
    pageHeading('Admin'),
    h(
      'p',
      { class: 'lede' },
      'Find a user by email and grant credits (every grant is a row in their ledger); see what usage earned and cost upstream.',
    ),
    form,
    results,
    usageReportSection(() => ctx.isCurrent()),
  );
}
