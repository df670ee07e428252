import { api, seg } from '../api.js';
import { h, replace } from '../dom.js';
import { relative, time } from '../format.js';
import { empty, loading, pageHeading } from '../ui.js';
import { dataTable, scrollTable } from '../tables.js';
import type { DashboardReplies } from '../contracts.js';
import type { PageContext } from '../page.js';

export async function projectsPage(ctx: PageContext): Promise<void> {
  const body = h('div', null, loading());
  ctx.root.append(pageHeading('Editor projects'), body);
  const { projects } = await api.get<DashboardReplies['GET /projects']>('/projects');
  if (!ctx.isCurrent()) return;
  if (projects.length === 0) {
    replace(
      body,
      empty(
        'No projects yet. Create one with the editor API (POST /api/v1/media-studio/projects) or its MCP tools; it appears here.',
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
