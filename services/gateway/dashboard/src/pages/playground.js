import { api, seg } from '../api.js';
import { h, replace } from '../dom.js';
import { credits, number } from '../format.js';
import { resultFileName } from '../job-input.js';
import { jobPreview } from '../media.js';
import { poller } from '../poll.js';
import { paramField, readParams } from '../param-fields.js';
import { serverPrice } from '../playground-estimate.js';
import { announce, badge, field, loading, pageHeading, showError, withBusy } from '../ui.js';

const SCOPE_OF = { video: 'video:write', image: 'image:write' };
const POLL_MS = 2000;

/**
 * The price of a request from the catalog's own figures: a video is its per-second rate at the
 * resolution times the duration (the fast model has one rate), an image the per-image price
 * times their number. The submit answers with what was charged.
 */
export function costOf(model, input) {
  const c = model.credits || {};
  if (model.type === 'image') return (c.per_image || 0) * (input.num_images || 1);
  const rates = c.per_second_by_resolution || {};
  return (rates[input.resolution || '720p'] || c.base_per_second || 0) * (input.duration_seconds || 5);
}

function keyOption(key, type) {
  const ok = key.scopes.includes(SCOPE_OF[type]);
  return h(
    'option',
    { value: String(key.id), disabled: !ok },
    `Key “${key.name || key.prefix}”${ok ? ' (its webhook fires)' : ` (lacks ${SCOPE_OF[type]})`}`,
  );
}

/** The run's status, result and downloads, polled until it finishes. */
function runPanel(ctx, submitted, balanceLine) {
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
  let job = null;
  const show = (next) => {
    const changed = !job || job.status !== next.status;
    job = next;
    if (!changed) return;
    panel.dataset.status = next.status;
    replace(statusSlot, badge(next.status));
    replace(preview, jobPreview(next, { large: true }));
    const urls = next.result ? (next.result.video ? [next.result.video] : next.result.images || []) : [];
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
    if (next.status === 'failed' || next.status === 'cancelled') balanceLine.refresh();
  };
  show({ ...submitted, type: submitted.type, result: null, error: null });
  const poll = poller({
    tick: async () => {
      const next = await api.get(`/jobs/${seg(submitted.job_id)}`);
      if (ctx.isCurrent()) show(next);
    },
    intervalMs: POLL_MS,
    shouldContinue: () => ctx.isCurrent() && job.status === 'processing',
    onError: (err) => ctx.isCurrent() && showError(err),
  });
  return { panel, poll };
}

/** "You have 4,596 credits": read again after a run. */
function balanceView() {
  const el = h('p', { class: 'hint balance-line' });
  const view = {
    el,
    value: null,
    refresh: async () => {
      const b = await api.get('/balance').catch(() => null);
      if (!b) return;
      view.value = b.credits_remaining;
      el.textContent = `You have ${credits(b.credits_remaining)}.`;
    },
  };
  return view;
}

export async function playgroundPage(ctx) {
  const body = h('div', null, loading());
  ctx.root.append(
    pageHeading('Playground'),
    h('p', { class: 'lede' }, 'Try a model: fill in its parameters, see the price, run it and download the result.'),
    body,
  );
  const balance = balanceView();
  const [{ models }, { keys }] = await Promise.all([api.get('/models'), api.get('/keys'), balance.refresh()]);
  if (!ctx.isCurrent()) return;
  const activeKeys = keys.filter((k) => !k.revoked_at);

  const modelSelect = h(
    'select',
    { name: 'model' },
    models.map((m) => h('option', { value: m.id }, `${m.name} (${m.id})`)),
  );
  const runWith = h('select', { name: 'run-with' });
  const modelField = field('Model', modelSelect, ' ');
  const modelNote = modelField.querySelector('.hint');
  const params = h('div', { class: 'params' });
  const cost = h('p', { class: 'cost', role: 'status' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Run');
  const runSlot = h('div');
  const refreshPrice = serverPrice(cost);
  let fields = [];
  let model = models[0];

  const currentInput = () => ({ ...readParams(fields), ...(model.id === 'vidgen-2.0-fast' ? { fast: true } : {}) });
  const updateCost = () => {
    let price;
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
  const buildForm = () => {
    model = models.find((m) => m.id === modelSelect.value) || models[0];
    modelNote.textContent = model.description;
    // `fast` selects the model: it is the model choice above, not a parameter here.
    fields = Object.entries(model.params)
      .filter(([name]) => name !== 'fast')
      .map(([name, spec]) => paramField(name, spec, updateCost));
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
      onsubmit: async (event) => {
        event.preventDefault();
        let input;
        try {
          input = currentInput();
        } catch (err) {
          showError(err);
          return;
        }
        const apiKeyId = runWith.value ? Number(runWith.value) : null;
        const submitted = await withBusy(submit, () =>
          api.post(`/generate/${seg(model.type)}`, { api_key_id: apiKeyId, input }),
        );
        if (!submitted || !ctx.isCurrent()) return;
        balance.el.textContent = `You have ${credits(submitted.credits_remaining)}.`;
        balance.value = submitted.credits_remaining;
        announce(`Job ${submitted.job_id} submitted: ${credits(submitted.credits_consumed)} charged.`);
        const { panel, poll } = runPanel(ctx, { ...submitted, type: model.type, status: 'processing' }, balance);
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
