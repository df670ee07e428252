import type { Migration } from '@mf/db';

export const mcpTaskWork: Migration = {
  name: '0010_mcp_task_work',
  async up(knex) {
    await knex.raw(`
      -- What a task started (a generation's job id), so that tasks/cancel on any replica can stop it.
      ALTER TABLE mcp_tasks ADD COLUMN work jsonb;
    `);
  },
  async down(knex) {
    await knex.raw('ALTER TABLE mcp_tasks DROP COLUMN work;');
  },
};
