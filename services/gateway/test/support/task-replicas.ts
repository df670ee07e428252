import { createDb, migrate, type Knex } from '@mf/db';
import { createTestDatabase } from '@mf/testing';
import { migrations } from '../../migrations';
import { postgresTaskStore } from '../../src/mcp/tasks/postgres-task-store';
import { startEndpoint, type Endpoint } from './mcp-endpoint';

/**
 * Two MCP endpoints (replicas) whose task store is one fresh database: a task started on `a` is read,
 * followed or cancelled on `b`. `a` follows its tasks every 10 ms.
 */
export interface TaskReplicas {
  db: Knex;
  a: Endpoint;
  b: Endpoint;
  close(): Promise<void>;
}

export async function startTaskReplicas(): Promise<TaskReplicas> {
  const database = await createTestDatabase();
  const db = createDb({ url: database.url, schema: 'gateway', poolMax: 4 });
  await migrate(db, 'gateway', migrations);
  const tasks = (userId: number) => postgresTaskStore(db, 'gateway', userId);
  const a = await startEndpoint({ tasks, followPollMs: 10 });
  const b = await startEndpoint({ tasks });
  return {
    db,
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await db.destroy();
      await database.drop();
    },
  };
}
