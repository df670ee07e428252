import { api, query, seg } from '../api.js';
import { h, replace } from '../dom.js';
import { credits, relative, time } from '../format.js';
import { promptOf, sourceTag } from '../job-input.js';
import { jobPreview } from '../media.js';
import { poller } from '../poll.js';
import { announce, badge, confirmDialog, loading, pageHeading, showError, withBusy } from '../ui.js';
import type { DashboardReplies, Job } from '../contracts.js';
import type { PageContext } from '../page.js';

type CancelReply = DashboardReplies['DELETE /jobs/:id'];
type JobsPage = DashboardReplies['GET /jobs'];

interface JobCard {
  job: Job;
  el: HTMLElement;
  update(next: Job): void;
}

const PAGE = 20;
const POLL_MS = 2000;

/** Asks, then cancels a processing job; resolves the API's answer or undefined. */
export async function cancelJob(
  job: Pick<Job, 'job_id' | 'credits_consumed'>,
  button: HTMLButtonElement,
): Promise<CancelReply | undefined> {
  const ok = await confirmDialog({
    title: `Cancel job ${job.job_id}?`,
    body: `It stops now and its ${credits(job.credits_consumed)} are refunded in full.`,
    confirmLabel: 'Cancel job',
    danger: true,
  });
  if (!ok) return undefined;
  const result = await withBusy(button, () => api.del<CancelReply>(`/jobs/${seg(job.job_id)}`));
  if (result) announce(`Job ${result.job_id} cancelled: ${credits(result.refunded_credits)} refunded.`);
  return result;
}

/** One job as a card whose parts update in place, so a playing video is never rebuilt by a poll. */
function jobCard(job: Job, onCancel: (job: Job, button: HTMLButtonElement) => Promise<void>): JobCard {
  const status = h('span', { class: 'status-slot' });
  const age = h('span');
  const cost = h('dd');
  const preview = h('div', { class: 'preview' });
  const error = h('p', { class: 'job-error', hidden: true });
  const cancelButton = h(
    'button',
    { type: 'button', class: 'danger small', 'aria-label': `Cancel job ${job.job_id}` },
    'Cancel',
  );
  cancelButton.addEventListener('click', () => void onCancel(card.job, cancelButton));
  const el = h(
    'li',
    { class: 'job-card card', dataset: { jobId: job.job_id } },
    preview,
    h(
      'div',
      { class: 'job-info' },
      h(
        'p',
        { class: 'job-title' },
        h('a', { href: `#/jobs/${seg(job.job_id)}` }, h('code', null, job.job_id)),
        ' ',
        status,
        ' ',
        sourceTag(job),
      ),
      promptOf(job) ? h('p', { class: 'job-prompt', title: promptOf(job) }, promptOf(job)) : null,
      h(
        'dl',
        { class: 'inline-details' },
        h('dt', null, 'Model'),
        h('dd', null, job.model),
        h('dt', null, 'Type'),
        h('dd', null, job.type),
        h('dt', null, 'Cost'),
        cost,
        h('dt', null, 'Age'),
        h('dd', null, age),
      ),
      error,
      h('div', { class: 'actions' }, cancelButton),
    ),
  );
  // The first update() sets job: until then no status is known, so that one always draws.
  let drawn: Job['status'] | null = null;
  const card: JobCard = { job, el, update };
  function update(next: Job): void {
    const changed = drawn !== next.status;
    drawn = next.status;
    card.job = next;
    replace(age, time(next.created_at, relative(next.created_at)));
    // Failed and cancelled jobs are refunded in full (contract section 3).
    cost.textContent =
      next.status === 'failed' || next.status === 'cancelled'
        ? `${credits(next.credits_consumed)}, refunded`
        : credits(next.credits_consumed);
    if (!changed) return;
    replace(status, badge(next.status));
    el.dataset.status = next.status;
    replace(preview, jobPreview(next));
    error.hidden = !next.error;
    error.textContent = next.error || '';
    cancelButton.hidden = next.status !== 'processing';
  }
  update(job);
  return card;
}

export async function jobsPage(ctx: PageContext): Promise<void> {
  const list = h('ul', { class: 'job-list', 'aria-label': 'Jobs, newest first' });
  const liveNote = h('p', { class: 'hint live-note' });
  const refreshButton = h('button', { type: 'button', class: 'secondary' }, 'Refresh');
  const moreButton = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Load older jobs');
  const body = h('div', null, loading());
  ctx.root.append(pageHeading('Jobs'), h('div', { class: 'actions toolbar' }, refreshButton, liveNote), body);

  const cards = new Map<string, JobCard>(); // job_id -> card
  const anyProcessing = (): boolean => [...cards.values()].some((c) => c.job.status === 'processing');
  const updateLiveNote = (): void => {
    liveNote.textContent = anyProcessing() ? 'Live: updating every 2 seconds while a job is processing.' : '';
  };

  async function onCancel(job: Job, button: HTMLButtonElement): Promise<void> {
    const result = await cancelJob(job, button);
    if (!result || !ctx.isCurrent()) return;
    // Shown at once; the refresh then finds no change to announce a second time.
    const card = cards.get(job.job_id);
    card?.update({ ...card.job, status: result.status });
    updateLiveNote();
    await withBusy(refreshButton, refresh);
  }

  /** Merges a page of jobs (newest first) into the list; new ones go on top in order. */
  function merge(jobs: readonly Job[], { append }: { append: boolean } = { append: false }): void {
    let anchor = append ? null : list.firstElementChild;
    for (const job of jobs) {
      const known = cards.get(job.job_id);
      if (known) {
        const before = known.job.status;
        known.update(job);
        if (before === 'processing' && job.status !== 'processing') announce(`Job ${job.job_id} ${job.status}.`);
        anchor = known.el.nextElementSibling;
        continue;
      }
      const card = jobCard(job, onCancel);
      cards.set(job.job_id, card);
      if (append || !anchor) list.append(card.el);
      else list.insertBefore(card.el, anchor);
    }
  }

  function render(): void {
    if (cards.size === 0) {
      replace(
        body,
        h(
          'p',
          { class: 'empty' },
          'No jobs yet. Try a model in the ',
          h('a', { href: '#/playground' }, 'playground'),
          ', or submit one with an API key (POST /api/v1/video/vidgen-2/generate); it appears here.',
        ),
      );
    } else if (!list.isConnected) {
      replace(body, list, h('div', { class: 'actions' }, moreButton));
    }
    updateLiveNote();
  }

  const poll = poller({
    tick: refresh,
    intervalMs: POLL_MS,
    shouldContinue: () => ctx.isCurrent() && anyProcessing(),
    onError: (err) => {
      if (ctx.isCurrent()) showError(err);
    },
  });
  ctx.onCleanup(() => poll.stop());

  async function refresh(): Promise<void> {
    const { jobs } = await api.get<JobsPage>(`/jobs${query({ limit: PAGE })}`);
    if (!ctx.isCurrent()) return;
    const firstLoad = cards.size === 0 && !list.isConnected;
    merge(jobs);
    if (firstLoad) moreButton.hidden = jobs.length < PAGE;
    render();
    poll.start();
  }

  refreshButton.addEventListener('click', () => {
    void withBusy(refreshButton, refresh).then(() => announce('Jobs updated.'));
  });
  const loadOlder = async (): Promise<void> => {
    const last = list.lastElementChild;
    const before = last instanceof HTMLElement ? last.dataset.jobId : undefined;
    const older = await withBusy(moreButton, () => api.get<JobsPage>(`/jobs${query({ limit: PAGE, before })}`));
    if (!older || !ctx.isCurrent()) return;
    merge(older.jobs, { append: true });
    moreButton.hidden = older.jobs.length < PAGE;
    render();
    poll.start();
  };
  moreButton.addEventListener('click', () => void loadOlder());

  // Ages ("2 minutes ago") move on even when nothing is polled.
  const ageTimer = window.setInterval(() => {
    for (const card of cards.values()) card.update(card.job);
  }, 30_000);
  ctx.onCleanup(() => window.clearInterval(ageTimer));

  await refresh();
}
