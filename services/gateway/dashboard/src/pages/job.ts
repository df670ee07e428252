import { api, ApiError, seg } from '../api.js';
import { h, replace, uid } from '../dom.js';
import { credits, durationMs, time, usd } from '../format.js';
import { curlFor, inputEntries, resultFileName } from '../job-input.js';
import { jobPreview } from '../media.js';
import { poller } from '../poll.js';
import { announce, badge, copyText, loading, pageHeading, showError } from '../ui.js';
import { cancelJob } from './jobs.js';
import { useInProject } from '../studio/use-in-project.js';
import { dataTable } from '../tables.js';
import type { DashboardReplies, Job, JobAttemptView } from '../contracts.js';
import type { PageContext } from '../page.js';

const SOURCE_TEXT: Record<Job['source'], string> = {
  api: 'an API request (a key)',
  editor: 'the video editor',
  dashboard: 'the playground',
};

/** The label of a job's end time, by how it ended. */
const ENDED_LABEL: Partial<Record<Job['status'], string>> = { cancelled: 'Cancelled', failed: 'Failed' };

const ATTEMPT_COLUMNS = [
  '#',
  'Provider',
  'Upstream model',
  'State',
  'Started',
  'Took',
  'Error',
  'Upstream cost',
] as const;

/** How an attempt's upstream cost was known, as its cell's tooltip says. */
const COST_SOURCES: Record<NonNullable<JobAttemptView['upstream_cost_source']>, string> = {
  reported: 'As the provider reported it',
  metered: 'The provider’s usage at the route’s price',
  price: 'The route’s price for what was made',
};

const getJob = (id: string): Promise<Job> => api.get<DashboardReplies['GET /jobs/:id']>(`/jobs/${seg(id)}`);

export async function jobPage(ctx: PageContext): Promise<void> {
  const id = ctx.params.id;
  const body = h('div', null, loading());
  ctx.root.append(
    h('p', { class: 'breadcrumb' }, h('a', { href: '#/jobs' }, '← All jobs')),
    pageHeading(`Job ${id}`),
    body,
  );

  let job: Job | null = null;
  const statusSlot = h('dd');
  const completedSlot = h('dd');
  // The end time is labelled by how the job ended: a cancelled job did not complete.
  const endedLabel = h('dt', null, 'Completed');
  const errorSlot = h('dd');
  const costSlot = h('dd');
  const previewSlot = h('div', { class: 'preview preview-large' });
  const links = h('div', { class: 'result-links' });
  const cancelButton = h('button', { type: 'button', class: 'danger' }, 'Cancel job');
  const useSlot = h('div');
  const attemptsSlot = h('div', null);

  // The job's attempts on its provider routes: which upstream served it, and which failed first.
  async function showAttempts(): Promise<void> {
    let reply: DashboardReplies['GET /jobs/:id/attempts'];
    try {
      reply = await api.get<DashboardReplies['GET /jobs/:id/attempts']>(`/jobs/${seg(id)}/attempts`);
    } catch {
      return;
    }
    if (!ctx.isCurrent()) return;
    const rows = reply.attempts.map((a) =>
      h(
        'tr',
        null,
        h('td', null, String(a.n)),
        h('td', null, a.provider),
        h('td', null, a.upstream_model || '–'),
        h(
          'td',
          null,
          a.state === 'running' && a.progress !== null ? `running ${Math.round(a.progress * 100)} %` : a.state,
        ),
        h('td', null, time(a.started_at)),
        h('td', null, a.ended_at ? durationMs(Date.parse(a.ended_at) - Date.parse(a.started_at)) : '–'),
        h('td', null, a.error || '–'),
        h(
          'td',
          { class: 'num', title: a.upstream_cost_source ? COST_SOURCES[a.upstream_cost_source] : null },
          usd(a.upstream_cost),
        ),
      ),
    );
    // On a phone each attempt stacks into a card of "column: value" lines: eight columns fit no row.
    const table = dataTable({ caption: 'Attempts of this job', columns: ATTEMPT_COLUMNS, rows });
    table.classList.add('attempts');
    replace(attemptsSlot, rows.length ? table : h('p', { class: 'muted' }, 'No attempt recorded.'));
  }

  function show(next: Job): void {
    const changed = !job || job.status !== next.status;
    if (job && changed) announce(`Job ${next.job_id} ${next.status}.`);
    job = next;
    if (!changed) return;
    replace(statusSlot, badge(next.status));
    replace(completedSlot, next.completed_at ? time(next.completed_at) : h('span', { class: 'muted' }, 'not yet'));
    replace(endedLabel, ENDED_LABEL[next.status] ?? 'Completed');
    errorSlot.textContent = next.error || '–';
    costSlot.textContent =
      next.status === 'failed' || next.status === 'cancelled'
        ? `${credits(next.credits_consumed)}, refunded`
        : credits(next.credits_consumed);
    replace(previewSlot, jobPreview(next, { large: true }));
    const urls = !next.result ? [] : 'video' in next.result ? [next.result.video] : next.result.images;
    replace(
      links,
      ...urls.map((url, i) =>
        h(
          'a',
          { class: 'button-link', href: url, download: resultFileName(next, url, i, urls.length) },
          urls.length > 1 ? `Download image ${i + 1}` : 'Download',
        ),
      ),
    );
    cancelButton.hidden = next.status !== 'processing';
    replace(useSlot, next.status === 'completed' ? useInProject(next) : null);
  }

  const poll = poller({
    tick: async () => {
      const next = await getJob(id);
      if (ctx.isCurrent()) show(next);
      await showAttempts();
    },
    intervalMs: 2000,
    shouldContinue: () => ctx.isCurrent() && job?.status === 'processing',
    onError: (err) => {
      if (ctx.isCurrent()) showError(err);
    },
  });
  ctx.onCleanup(() => poll.stop());

  const cancel = async (): Promise<void> => {
    if (!job) return;
    const result = await cancelJob(job, cancelButton);
    if (result && ctx.isCurrent()) show(await getJob(id));
  };
  cancelButton.addEventListener('click', () => void cancel());

  let first: Job;
  try {
    first = await getJob(id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && ctx.isCurrent()) {
      replace(body, h('p', null, 'There is no job with this id among yours (jobs are kept about 30 days).'));
      return;
    }
    throw err;
  }
  if (!ctx.isCurrent()) return;
  show(first);
  const curl = curlFor(first);
  const curlId = uid('curl');
  const curlBlock = h('pre', { class: 'curl', 'aria-labelledby': curlId, tabindex: '0' }, curl);
  const copyCurl = h('button', { type: 'button', class: 'secondary' }, 'Copy as curl');
  copyCurl.addEventListener('click', () => void copyText(curl, curlBlock));
  const inputSection = first.input
    ? h(
        'section',
        { class: 'card job-input', 'aria-labelledby': 'input-heading' },
        h('h2', { id: 'input-heading' }, 'Input'),
        h(
          'p',
          { class: 'hint' },
          'The request as it ran: every default applied, and the seed used, so sending it again makes the same media.',
        ),
        h(
          'dl',
          { class: 'details input-details' },
          inputEntries(first.input).map(([label, text, name]) => [
            h('dt', null, label),
            h('dd', { class: name === 'prompt' ? 'prompt-text' : null, dataset: { field: name } }, text),
          ]),
        ),
        h('h3', { id: curlId }, 'The same request with curl'),
        curlBlock,
        h(
          'div',
          { class: 'actions' },
          copyCurl,
          h(
            'span',
            { class: 'hint' },
            'Set MEDIAFORGE_API_KEY to a key with the ',
            h('code', null, first.type === 'video' ? 'video:write' : 'image:write'),
            ' scope.',
          ),
        ),
      )
    : null;
  replace(
    body,
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
        endedLabel,
        completedSlot,
        h('dt', null, 'Made by'),
        h(
          'dd',
          null,
          SOURCE_TEXT[first.source] || 'an API request',
          first.source === 'editor' && first.project_id
            ? [' for ', h('a', { href: `#/projects/${seg(first.project_id)}` }, 'its project')]
            : null,
        ),
        h('dt', null, 'Error'),
        errorSlot,
      ),
      h('div', { class: 'actions' }, cancelButton),
      useSlot,
    ),
    inputSection,
    h('section', { class: 'card', 'aria-label': 'Attempts' }, h('h2', null, 'Attempts'), attemptsSlot),
  );
  await showAttempts();
  poll.start();
}
