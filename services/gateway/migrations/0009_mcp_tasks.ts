import type { Migration } from '@mf/db';

export const mcpTasks: Migration = {
  name: '0009_mcp_tasks',
  async up(knex) {
    await knex.raw(`
      -- MCP tasks (tools called as tasks): readable from any replica, kept until their ttl ends.
      -- lease_until is renewed by the replica running the task; past it, the task is taken as lost.
      CREATE TABLE mcp_tasks (
        task_id          text PRIMARY KEY,
        user_id          bigint NOT NULL,
        status           text NOT NULL,
        status_message   text,
        ttl_ms           bigint NOT NULL,
        poll_interval_ms integer NOT NULL,
        tool             text,
        result           jsonb,
        created_at       timestamptz NOT NULL DEFAULT now(),
        updated_at       timestamptz NOT NULL DEFAULT now(),
        lease_until      timestamptz NOT NULL,
        expires_at       timestamptz NOT NULL
      );
      CREATE INDEX mcp_tasks_user ON mcp_tasks (user_id, created_at DESC, task_id DESC);
      CREATE INDEX mcp_tasks_expires_at ON mcp_tasks (expires_at);
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE mcp_tasks;');
  },
};
