import { FAST_VIDEO_MODEL } from '@mf/contracts/src/api/model-ids';
import { api, seg } from '../api.js';
import { h, replace } from '../dom.js';
import { credits, number } from '../format.js';
import { resultFileName } from '../job-input.js';
import { jobPreview } from '../media.js';
import { poller } from '../poll.js';
import { paramField, readParams } from '../param-fields.js';
import { formParams } from '../param-form.js';
import { serverPrice } from '../playground-estimate.js';
import { announce, badge, field, loading, pageHeading, showError, withBusy } from '../ui.js';
import type { ParamField } from '../param-fields.js';
import type { DashboardKey, DashboardReplies, Job, Model } from '../contracts.js';
import type { PageContext } from '../page.js';

const SCOPE_OF: Record<Model['type'], string> = { video: 'video:write', image: 'image:write' };

/** A run as the panel knows it: the submit's answer at first, then the polled job. */
type RunJob = Pick<Job, 'job_id' | 'status' | 'result' | 'type'> & { input?: Job['input'] | null };

interface BalanceView {
  el: HTMLElement;
  value: number | null;
  refresh(): Promise<void>;
}
const POLL_MS = 2000;

/**
 * The price of a request from the catalog's own figures: a video is its per-second rate at the
 * resolution times the duration (the fast model has one rate), an image the per-image price
 * times their number. The submit answers with what was charged.
 */
export function costOf(model: Pick<Model, 'type' | 'credits'>, input: Record<string, unknown>): number {
  const c = model.credits;
  if (model.type === 'image') return ('per_image' in c ? c.per_image : 0) * (Number(input.num_images) || 1);
  const rates: Record<string, number> = 'per_second_by_resolution' in c ? c.per_second_by_resolution : {};
  const base = 'base_per_second' in c ? c.base_per_second : 0;
  const resolution = typeof input.resolution === 'string' && input.resolution ? input.resolution : '720p';
  return (rates[resolution] || base || 0) * (Number(input.duration_seconds) || 5);
}

function keyOption(key: DashboardKey, type: Model['type']): HTMLOptionElement {
  const ok = key.scopes.includes(SCOPE_OF[type]);
  return h(
    'option',
    { value: String(key.id), disabled: !ok },
    `Key “${key.name || key.prefix}”${ok ? ' (its webhook fires)' : ` (lacks ${SCOPE_OF[type]})`}`,
  );
}

/** The run's status, result and downloads, polled until it finishes. */
function runPanel(
  ctx: PageContext,
  submitted: DashboardReplies['POST /generate/:type'] & { type: Job['type'] },
  balanceLine: BalanceView,
): { panel: HTMLElement; poll: ReturnType<typeof poller> } {
  const statusSlot = h('span');
  const preview = h('div', { class: 'preview preview-large' });
  const links = h('div', { class: 'result-links' });
  const panel = h(
    'section',
    { class: 'card run', 'aria-labelledby': 'run-heading', dataset: { jobId: submitted.job_id } },
    h('h2', { id: 'run-heading' }, 'Result'),
    h(
      'p',
      null,
      h('a', { href: `#/jobs/${seg(submitted.job_id)}` }, h('code', null, submitted.job_id)),
      ' ',
      statusSlot,
      ' ',
      h('span', { class: 'hint' }, `${credits(submitted.credits_consumed)} charged`),
    ),
    preview,
    links,
  );
  let job: RunJob | null = null;
  const show = (next: RunJob): void => {
    const changed = !job || job.status !== next.status;
    job = next;
    if (!changed) return;
    panel.dataset.status = next.status;
    replace(statusSlot, badge(next.status));
    replace(preview, jobPreview(next, { large: true }));
    const urls = !next.result ? [] : 'video' in next.result ? [next.result.video] : next.result.images;
    replace(
      links,
      urls.map((url, i) =>
        h(
          'a',
          { class: 'button-link', href: url, download: resultFileName(next, url, i, urls.length) },
          urls.length > 1 ? `Download image ${i + 1}` : 'Download',
        ),
      ),
    );
    if (next.status !== 'processing') announce(`Job ${next.job_id} ${next.status}.`);
    if (next.status === 'failed' || next.status === 'cancelled') void balanceLine.refresh();
  };
  show({ job_id: submitted.job_id, status: submitted.status, type: submitted.type, result: null });
  const poll = poller({
    tick: async () => {
      const next = await api.get<DashboardReplies['GET /jobs/:id']>(`/jobs/${seg(submitted.job_id)}`);
      if (ctx.isCurrent()) show(next);
    },
    intervalMs: POLL_MS,
    shouldContinue: () => ctx.isCurrent() && job?.status === 'processing',
    onError: (err) => {
      if (ctx.isCurrent()) showError(err);
    },
  });
  return { panel, poll };
}

/** "You have 4,596 credits": read again after a run. */
function balanceView(): BalanceView {
  const el = h('p', { class: 'hint balance-line' });
  const view: BalanceView = {
    el,
    value: null,
    refresh: async () => {
      const b = await api.get<DashboardReplies['GET /balance']>('/balance').catch(() => null);
      if (!b) return;
      view.value = b.credits_remaining;
      el.textContent = `You have ${credits(b.credits_remaining)}.`;
    },
  };
  return view;
}

export async function playgroundPage(ctx: PageContext): Promise<void> {
  const body = h('div', null, loading());
  ctx.root.append(
    pageHeading('Playground'),
    h('p', { class: 'lede' }, 'Try a model: fill in its parameters, see the price, run it and download the result.'),
    body,
  );
  const balance = balanceView();
  const [{ models }, { keys }] = await Promise.all([
    api.get<DashboardReplies['GET /models']>('/models'),
    api.get<DashboardReplies['GET /keys']>('/keys'),
    balance.refresh(),
  ]);
  // The catalog always has models: the form is built for the first one.
  const firstModel = models[0];
  if (!ctx.isCurrent()) return;
  const activeKeys = keys.filter((k) => !k.revoked_at);

  const modelSelect = h(
    'select',
    { name: 'model' },
    models.map((m) => h('option', { value: m.id }, `${m.name} (${m.id})`)),
  );
  const runWith = h('select', { name: 'run-with' });
  const modelField = field('Model', modelSelect, ' ');
  // field() made the hint from the ' ' given above.
  const modelNote = modelField.querySelector('.hint')!;
  const params = h('div', { class: 'params' });
  const cost = h('p', { class: 'cost', role: 'status' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Run');
  const runSlot = h('div');
  const refreshPrice = serverPrice(cost);
  let fields: ParamField[] = [];
  let model: Model = firstModel;

  const currentInput = (): Record<string, unknown> => ({
    ...readParams(fields),
    ...(model.id === FAST_VIDEO_MODEL ? { fast: true } : {}),
  });
  const updateCost = (): void => {
    let price: number | null;
    try {
      price = costOf(model, currentInput());
    } catch {
      price = null;
    }
    const short = price !== null && balance.value !== null && price > balance.value;
    replace(
      cost,
      price === null
        ? ''
        : [
            h('strong', null, `Cost: ${credits(price)}`),
            short
              ? h(
                  'span',
                  { class: 'warning-inline' },
                  ` — more than your ${number(balance.value)}: the run would be refused (402).`,
                )
              : null,
          ],
    );
    submit.textContent = price === null ? 'Run' : `Run (${credits(price)})`;
    if (price !== null)
      refreshPrice({ model: model.id, ...currentInput() }, runWith.value ? Number(runWith.value) : null);
  };
  const buildForm = (): void => {
    model = models.find((m) => m.id === modelSelect.value) ?? firstModel;
    modelNote.textContent = model.description;
    fields = formParams(model.params).map((param) => paramField(param, updateCost));
    replace(
      params,
      fields.map((f) => f.el),
    );
    replace(
      runWith,
      h('option', { value: '' }, 'Dashboard session (no webhook)'),
      activeKeys.map((k) => keyOption(k, model.type)),
    );
    updateCost();
  };
  modelSelect.addEventListener('change', buildForm);
  runWith.addEventListener('change', updateCost);

  const form = h(
    'form',
    {
      class: 'card playground-form',
      'aria-labelledby': 'run-form-heading',
      novalidate: false,
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        let input: Record<string, unknown>;
        try {
          input = currentInput();
        } catch (err) {
          showError(err);
          return;
        }
        const apiKeyId = runWith.value ? Number(runWith.value) : null;
        const submitted = await withBusy(submit, () =>
          api.post<DashboardReplies['POST /generate/:type']>(`/generate/${seg(model.type)}`, {
            api_key_id: apiKeyId,
            input,
          }),
        );
        if (!submitted || !ctx.isCurrent()) return;
        balance.el.textContent = `You have ${credits(submitted.credits_remaining)}.`;
        balance.value = submitted.credits_remaining;
        announce(`Job ${submitted.job_id} submitted: ${credits(submitted.credits_consumed)} charged.`);
        const { panel, poll } = runPanel(ctx, { ...submitted, type: model.type }, balance);
        ctx.onCleanup(() => poll.stop());
        replace(runSlot, panel);
        poll.start();
        updateCost();
      },
    },
    h('h2', { id: 'run-form-heading' }, 'Run a model'),
    modelField,
    field(
      'Run with',
      runWith,
      'A key runs the job as that key (its webhook gets the events); the session runs it for your account with no key.',
    ),
    h('fieldset', null, h('legend', null, 'Parameters'), params),
    cost,
    balance.el,
    h('div', { class: 'actions' }, submit),
  );
  buildForm();
  replace(body, form, runSlot);
}
