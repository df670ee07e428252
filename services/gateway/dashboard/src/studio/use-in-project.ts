import { api, ApiError, seg } from '../api.js';
import { h, replace, uid } from '../dom.js';
import type { DashboardReplies, Job, Project } from '../contracts.js';

const NEW_PROJECT = '';

/** The project formats (the contract's PROJECT_ASPECT_RATIOS; the bundle takes types only from it). */
const PROJECT_FORMATS: readonly Project['aspect_ratio'][] = ['9:16', '1:1', '4:5', '16:9', '4:3'];

/** A new project in the job's own format when it is one a project can have (else the default). */
function formatOf(job: Job): { aspect_ratio?: Project['aspect_ratio'] } {
  const asked = job.input?.aspect_ratio;
  const format = PROJECT_FORMATS.find((f) => f === asked);
  return format ? { aspect_ratio: format } : {};
}

/**
 * "Use in project" on a completed job's page: its result joins the media library of a project
 * the user picks (or a new one named after the prompt), copied by the server (POST .../assets
 * {job_id, index}), never downloaded again.
 */
export function useInProject(job: Job): HTMLElement {
  const projectId = uid('use-project');
  const imageId = uid('use-image');
  const projects = h('select', { id: projectId }, h('option', { value: NEW_PROJECT }, 'A new project'));
  const images = job.result && 'images' in job.result ? job.result.images.length : 0;
  const index = h(
    'select',
    { id: imageId },
    Array.from({ length: images }, (_, i) => h('option', { value: String(i) }, `Image ${i + 1}`)),
  );
  const button = h('button', { type: 'button', class: 'primary' }, 'Use in project');
  const status = h('p', { class: 'use-status', role: 'status' });
  void api
    .get<DashboardReplies['GET /projects']>('/projects')
    .then(({ projects: list }) => {
      for (const p of list) projects.append(h('option', { value: p.id }, p.name));
      if (list.length) projects.value = list[0].id;
    })
    .catch(() => undefined);

  button.addEventListener('click', () => {
    button.disabled = true;
    status.textContent = 'Adding…';
    void (async () => {
      try {
        let target = projects.value;
        if (target === NEW_PROJECT) {
          const prompt = typeof job.input?.prompt === 'string' ? job.input.prompt.trim() : '';
          const name = (prompt || `Job ${job.job_id}`).slice(0, 60);
          const body = { name, ...formatOf(job) };
          target = (await api.post<DashboardReplies['POST /projects']>('/projects', body)).project.id;
        }
        const body = images > 1 ? { job_id: job.job_id, index: Number(index.value) } : { job_id: job.job_id };
        await api.post<DashboardReplies['POST /projects/:id/assets']>(`/projects/${seg(target)}/assets`, body);
        replace(
          status,
          'Added to the media library. ',
          h('a', { href: `#/projects/${seg(target)}` }, 'Open the project'),
        );
        status.dataset.state = 'done';
      } catch (err) {
        status.textContent = err instanceof ApiError ? err.message : 'Could not add the result.';
        status.dataset.state = 'failed';
      } finally {
        button.disabled = false;
      }
    })();
  });

  return h(
    'div',
    { class: 'use-in-project' },
    h('div', { class: 'form-row' }, h('label', { for: projectId }, 'Project'), projects),
    images > 1 ? h('div', { class: 'form-row' }, h('label', { for: imageId }, 'Image'), index) : null,
    button,
    status,
  );
}
