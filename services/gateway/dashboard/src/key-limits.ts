import { api, seg } from './api.js';
import { h, replace } from './dom.js';
import { number } from './format.js';
import { announce, field, withBusy } from './ui.js';
import type { DashboardKey, DashboardKeyLimits, DashboardReplies } from './contracts.js';

/** "300 of 1,000 credits this month" / "2 of 3 running": a counter against its limit (or none). */
function usage(used: string, limit: string | null, unit: string): string {
  return limit === null ? `${used} ${unit} (no limit)` : `${used} of ${limit} ${unit}`;
}

function summary(limits: DashboardKeyLimits | null): HTMLElement {
  if (!limits) return h('p', { class: 'hint' }, 'The limits could not be loaded right now.');
  return h(
    'dl',
    { class: 'details' },
    h('dt', null, 'Spent this month'),
    h(
      'dd',
      null,
      usage(
        number(limits.spent_this_period),
        limits.spend_limit === null ? null : number(limits.spend_limit),
        'credits',
      ),
    ),
    h('dt', null, 'Jobs running'),
    h(
      'dd',
      null,
      usage(
        number(limits.active_jobs),
        limits.max_concurrent_jobs === null ? null : number(limits.max_concurrent_jobs),
        'jobs',
      ),
    ),
  );
}

const asLimit = (input: HTMLInputElement): number | null => (input.value.trim() === '' ? null : Number(input.value));

/**
 * The key's spend limit (credits per calendar month) and concurrent-jobs limit: what it used, and a
 * form to set both (empty: no limit). Past a limit the API answers 402 or 429 (docs/api-behaviour.md).
 */
export function limitsCard(key: DashboardKey): HTMLElement {
  const limits = key.limits ?? null;
  const spend = h('input', {
    type: 'number',
    name: 'spend_limit',
    min: '1',
    step: '1',
    inputmode: 'numeric',
    value: limits?.spend_limit ?? '',
  });
  const concurrent = h('input', {
    type: 'number',
    name: 'max_concurrent_jobs',
    min: '1',
    max: '1000',
    step: '1',
    inputmode: 'numeric',
    value: limits?.max_concurrent_jobs ?? '',
  });
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save limits');
  const summarySlot = h('div', { class: 'slot' }, summary(limits));
  const active = !key.revoked_at;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'limits-heading' },
    h('h2', { id: 'limits-heading' }, 'Spend limits'),
    summarySlot,
    active
      ? h(
          'form',
          {
            onsubmit: async (event: SubmitEvent) => {
              event.preventDefault();
              const body = { spend_limit: asLimit(spend), max_concurrent_jobs: asLimit(concurrent) };
              const result = await withBusy(save, () =>
                api.put<DashboardReplies['PUT /keys/:id/limits']>(`/keys/${seg(key.id)}/limits`, body),
              );
              if (!result) return;
              replace(summarySlot, summary(result));
              announce('Limits saved.');
            },
          },
          field(
            'Monthly spend limit (credits)',
            spend,
            'Most credits this key may spend per calendar month (UTC). Past it, submits answer 402. Empty: no limit.',
          ),
          field(
            'Concurrent jobs',
            concurrent,
            'Most jobs of this key running at once. Past it, submits answer 429 with Retry-After. Empty: no limit.',
          ),
          h('div', { class: 'actions' }, save),
        )
      : null,
  );
}
