import { api, seg } from '../api.js';
import { h, replace, uid } from '../dom.js';
import { relative, time } from '../format.js';
import { empty, loading, pageHeading, showError } from '../ui.js';
import { dataTable, scrollTable } from '../tables.js';
import type { DashboardReplies } from '../contracts.js';
import type { PageContext } from '../page.js';

/** A new project (16:9, its default video made with it), opened at once in the studio. */
function newProjectForm(ctx: PageContext): HTMLElement {
  const id = uid('project-name');
  const name = h('input', {
    id,
    type: 'text',
    name: 'name',
    maxlength: 120,
    required: true,
    placeholder: 'e.g. Harbour teaser',
  });
  const create = h('button', { type: 'submit', class: 'primary' }, 'Create project');
  const form = h('form', { class: 'card form-row new-project' }, h('label', { for: id }, 'New project'), name, create);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    create.disabled = true;
    void api
      .post<DashboardReplies['POST /projects']>('/projects', { name: name.value.trim() })
      .then(({ project }) => ctx.navigate(`#/projects/${seg(project.id)}`))
      .catch((err: unknown) => {
        create.disabled = false;
        showError(err);
      });
  });
  return form;
}

export async function projectsPage(ctx: PageContext): Promise<void> {
  const body = h('div', null, loading());
  ctx.root.append(pageHeading('Editor projects'), newProjectForm(ctx), body);
  const { projects } = await api.get<DashboardReplies['GET /projects']>('/projects');
  if (!ctx.isCurrent()) return;
  if (projects.length === 0) {
    replace(
      body,
      empty(
        'No projects yet. Create one above, or with the editor API (POST /api/v1/media-studio/projects) or its MCP tools.',
      ),
    );
    return;
  }
  const rows = projects.map((p) =>
    h(
      'tr',
      null,
      h('td', null, h('a', { href: `#/projects/${seg(p.id)}` }, p.name)),
      h('td', null, p.aspect_ratio),
      h('td', null, time(p.updated_at, relative(p.updated_at))),
    ),
  );
  replace(
    body,
    h(
      'section',
      { class: 'card' },
      scrollTable(
        'Projects',
        dataTable({ caption: 'Projects, most recently updated first', columns: ['Name', 'Format', 'Updated'], rows }),
      ),
    ),
  );
}
