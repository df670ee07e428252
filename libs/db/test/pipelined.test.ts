import { createTestDatabase, type TestDatabase } from '@mf/testing';
import { createDb, pipelined, withPooledConnection, type Knex } from '../src';

describe('pipelined statements on a pooled connection', () => {
  let database: TestDatabase;
  let db: Knex;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({ url: database.url, schema: 'svc', poolMax: 1 });
    await db.raw('CREATE SCHEMA IF NOT EXISTS svc; CREATE TABLE svc.notes (body text NOT NULL)');
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('sends values beside the text, so awkward strings arrive exactly as given', async () => {
    const awkward = ["o'brien", 'a\\b', "x\\'; DROP TABLE notes; --", '? $1 ;', 'émoji 💳', ''];
    const [, rows] = await withPooledConnection(db, (conn) =>
      pipelined(conn, [{ text: 'BEGIN' }, { text: 'SELECT $1::text[] AS v', values: [awkward] }, { text: 'COMMIT' }]),
    );
    expect(rows).toEqual([{ v: awkward }]);
  });

  it('rejects with the first failure, and the COMMIT behind it rolls the whole transaction back', async () => {
    await expect(
      withPooledConnection(db, (conn) =>
        pipelined(conn, [
          { text: 'BEGIN' },
          { text: 'INSERT INTO notes (body) VALUES ($1)', values: ['kept?'] },
          { text: 'INSERT INTO notes (body) VALUES ($1)', values: [null] },
          { text: 'COMMIT' },
        ]),
      ),
    ).rejects.toThrow(/null value/);
    expect(await db('notes').count({ n: '*' })).toEqual([{ n: 0 }]);
    // The connection went back clean: the next transaction on it commits.
    await withPooledConnection(db, (conn) =>
      pipelined(conn, [
        { text: 'BEGIN' },
        { text: 'INSERT INTO notes (body) VALUES ($1)', values: ['kept'] },
        { text: 'COMMIT' },
      ]),
    );
    expect(await db('notes').pluck('body')).toEqual(['kept']);
  });

  it('puts the pool’s connections in pipeline mode, so statements issued together share a round trip', async () => {
    await withPooledConnection(db, async (conn) => {
      expect((conn as unknown as { pipeline: boolean }).pipeline).toBe(true);
    });
  });
});
