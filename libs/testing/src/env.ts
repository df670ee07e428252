import { createTestDatabase, createTestVhost, type TestDatabase, type TestVhost } from './fresh';

export interface TestEnv {
  databaseUrl: string;
  amqpUrl: string;
  db: TestDatabase;
  vhost: TestVhost;
  teardown: () => Promise<void>;
}

/** A fresh database and vhost for one test file (call in beforeAll, teardown in afterAll). */
export async function freshTestEnv(): Promise<TestEnv> {
  const [db, vhost] = await Promise.all([createTestDatabase(), createTestVhost()]);
  return {
    databaseUrl: db.url,
    amqpUrl: vhost.url,
    db,
    vhost,
    teardown: async () => {
      await Promise.allSettled([db.drop(), vhost.drop()]);
    },
  };
}
