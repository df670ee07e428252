import { api } from './api.js';
import { h, replace } from './dom.js';
import { credits } from './format.js';
import type { DashboardReplies } from './contracts.js';

const DEBOUNCE_MS = 250;

/**
 * The playground's price as the server states it (POST /dashboard/api/estimate: the same rules as
 * the submit, the balance, and the chosen key's monthly spend limit). The form shows its own
 * figure at once; this replaces it when the server has answered for the latest input. A refused
 * input (a field still being typed) leaves the form's figure; an empty prompt is not sent at all
 * (the server would refuse it, and the browser would log the 400).
 */
export function serverPrice(costEl: HTMLElement): (input: Record<string, unknown>, apiKeyId: number | null) => void {
  let timer: number | undefined;
  let asked = 0;
  return function refresh(input, apiKeyId): void {
    window.clearTimeout(timer);
    const ask = ++asked;
    if (typeof input.prompt !== 'string' || !input.prompt.trim()) return;
    const run = async (): Promise<void> => {
      let answer: DashboardReplies['POST /estimate'];
      try {
        answer = await api.post<DashboardReplies['POST /estimate']>('/estimate', { api_key_id: apiKeyId, input });
      } catch {
        return;
      }
      if (ask !== asked) return;
      costEl.dataset.affordable = String(answer.affordable);
      replace(
        costEl,
        h('strong', null, `Cost: ${credits(answer.credits)}`),
        answer.affordable
          ? null
          : h(
              'span',
              { class: 'warning-inline' },
              answer.credits > answer.credits_remaining
                ? ` — more than your ${credits(answer.credits_remaining)}: the run would be refused (402).`
                : ' — more than the key’s monthly spend limit leaves: the run would be refused (402).',
            ),
      );
    };
    timer = window.setTimeout(() => void run(), DEBOUNCE_MS);
  };
}
