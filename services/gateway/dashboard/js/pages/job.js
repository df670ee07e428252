import { api, seg } from '../api.js';
import { h, replace } from '../dom.js';
import { credits, time } from '../format.js';
import { jobPreview } from '../media.js';
import { poller } from '../poll.js';
import { announce, badge, loading, pageHeading, showError } from '../ui.js';
import { cancelJob } from './jobs.js';

export async function jobPage(ctx) {
  const id = ctx.params.id;
  const body = h('div', null, loading());
  ctx.root.append(h('p', { class: 'breadcrumb' }, h('a', { href: '#/jobs' }, '← All jobs')), pageHeading(`Job ${id}`), body);

  let job = null;
  const statusSlot = h('dd');
  const completedSlot = h('dd');
  const errorSlot = h('dd');
  const costSlot = h('dd');
  const previewSlot = h('div', { class: 'preview preview-large' });
  const links = h('div', { class: 'result-links' });
  const cancelButton = h('button', { type: 'button', class: 'danger' }, 'Cancel job');

  function show(next) {
    const changed = !job || job.status !== next.status;
    if (job && changed) announce(`Job ${next.job_id} ${next.status}.`);
    job = next;
    if (!changed) return;
    replace(statusSlot, badge(next.status));
    replace(completedSlot, next.completed_at ? time(next.completed_at) : h('span', { class: 'muted' }, 'not yet'));
    errorSlot.textContent = next.error || '–';
    costSlot.textContent = next.status === 'failed' || next.status === 'cancelled' ? `${credits(next.credits_consumed)}, refunded` : credits(next.credits_consumed);
    replace(previewSlot, jobPreview(next, { large: true }));
    const urls = next.result ? (next.result.video ? [next.result.video] : next.result.images || []) : [];
    replace(links, ...urls.map((url, i) => h('a', { class: 'button-link', href: url, download: '' }, urls.length > 1 ? `Download image ${i + 1}` : 'Download')));
    cancelButton.hidden = next.status !== 'processing';
  }

  const poll = poller({
    tick: async () => {
      const next = await api.get(`/jobs/${seg(id)}`);
      if (ctx.isCurrent()) show(next);
    },
    intervalMs: 2000,
    shouldContinue: () => ctx.isCurrent() && job && job.status === 'processing',
    onError: (err) => ctx.isCurrent() && showError(err),
  });
  ctx.onCleanup(() => poll.stop());

  cancelButton.addEventListener('click', async () => {
    const result = await cancelJob(job, cancelButton);
    if (result && ctx.isCurrent()) show(await api.get(`/jobs/${seg(id)}`));
  });

  let first;
  try {
    first = await api.get(`/jobs/${seg(id)}`);
  } catch (err) {
    if (err.status === 404 && ctx.isCurrent()) {
      replace(body, h('p', null, 'There is no job with this id among yours (jobs are kept about 30 days).'));
      return;
    }
    throw err;
  }
  if (!ctx.isCurrent()) return;
  show(first);
  replace(body, 
    h(
      'section',
      { class: 'card job-detail', 'aria-label': 'Job' },
      previewSlot,
      links,
      h(
        'dl',
        { class: 'details' },
        h('dt', null, 'Status'),
        statusSlot,
        h('dt', null, 'Type'),
        h('dd', null, first.type),
        h('dt', null, 'Model'),
        h('dd', null, first.model),
        h('dt', null, 'Cost'),
        costSlot,
        h('dt', null, 'Created'),
        h('dd', null, time(first.created_at)),
        h('dt', null, 'Completed'),
        completedSlot,
        first.api_key_id ? [h('dt', null, 'API key'), h('dd', null, h('a', { href: `#/keys/${seg(first.api_key_id)}` }, `key ${first.api_key_id}`))] : null,
        h('dt', null, 'Error'),
        errorSlot,
      ),
      h('div', { class: 'actions' }, cancelButton),
    ),
  );
  poll.start();
}
