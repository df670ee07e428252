import { editorRpc } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { createStorage } from '@mf/storage';
import { serveEditorRpc } from '../src/messaging/editor-rpc.server';
import { finishTurn, insertTurn } from '../src/repositories/turns.repository';
import type { EditorContext } from '../src/usecases/context';
import { createProject, createVideo, getProjectState } from '../src/usecases/projects.usecase';
import { projectThreads, THREAD_TURNS_SHOWN } from '../src/usecases/threads.usecase';
import { editorRecords, type EditorRecords } from './support/editor-records';

/** editor.threads: every video's chat thread as the dashboard shows it, against the real database. */
describe('project threads', () => {
  let records: EditorRecords;
  let db: Knex;
  let ctx: EditorContext;
  let turnNo = 0;

  beforeAll(async () => {
    records = await editorRecords();
    db = records.db;
    await records.bus.start();
    ctx = records.context({ storage: createStorage({ driver: 'local', dir: '/nonexistent-unused' }) });
  });
  afterAll(async () => {
    await records?.close();
  });

  /** A turn as instruct records it: running, then done or failed (or left running). */
  async function turn(
    userId: number,
    videoId: string,
    instruction: string,
    end: { done: string } | 'failed' | 'running',
    at?: Date,
  ): Promise<string> {
    const id = `trn_t${turnNo++}`;
    await insertTurn(db, { id, video_id: videoId, user_id: userId, instruction, image_urls: [] });
    if (at) await db('turns').update({ created_at: at }).where({ id });
    if (end === 'failed') await finishTurn(db, id, { status: 'failed', error: 'model down' });
    else if (end !== 'running') await finishTurn(db, id, { status: 'done', assistant_text: end.done });
    return id;
  }

  it('gives every video its turns oldest first, whatever their status, and empty threads for the others', async () => {
    const { project } = await createProject(ctx, { user_id: 1, name: 'P', description: null, aspect_ratio: '9:16' });
    const main = (await getProjectState(ctx, { user_id: 1, project_id: project.id })).videos[0];
    const cut = (await createVideo(ctx, { user_id: 1, project_id: project.id, name: 'Cut' })).video;
    const quiet = (await createVideo(ctx, { user_id: 1, project_id: project.id, name: 'Quiet' })).video;
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    const a = await turn(1, main.id, 'make a kite', { done: 'Made it.' }, new Date(t0));
    const b = await turn(1, main.id, 'animate it', 'failed', new Date(t0 + 1000));
    const c = await turn(1, main.id, 'try again', 'running', new Date(t0 + 2000));
    const d = await turn(1, cut.id, 'shorter', { done: 'Trimmed.' }, new Date(t0 + 500));

    const { threads } = await projectThreads(ctx, { user_id: 1, project_id: project.id });
    expect(threads).toEqual({
      [main.id]: [
        {
          id: a,
          instruction: 'make a kite',
          assistant_text: 'Made it.',
          status: 'done',
          created_at: '2030-01-01T00:00:00.000Z',
        },
        {
          id: b,
          instruction: 'animate it',
          assistant_text: null,
          status: 'failed',
          created_at: '2030-01-01T00:00:01.000Z',
        },
        {
          id: c,
          instruction: 'try again',
          assistant_text: null,
          status: 'running',
          created_at: '2030-01-01T00:00:02.000Z',
        },
      ],
      [cut.id]: [
        {
          id: d,
          instruction: 'shorter',
          assistant_text: 'Trimmed.',
          status: 'done',
          created_at: '2030-01-01T00:00:00.500Z',
        },
      ],
      [quiet.id]: [],
    });
  });

  it(`keeps the newest ${THREAD_TURNS_SHOWN} turns of a long thread`, async () => {
    const { project } = await createProject(ctx, { user_id: 2, name: 'Long', description: null, aspect_ratio: '1:1' });
    const video = (await getProjectState(ctx, { user_id: 2, project_id: project.id })).videos[0];
    const t0 = Date.parse('2030-02-01T00:00:00Z');
    for (let i = 0; i < THREAD_TURNS_SHOWN + 5; i++)
      await turn(2, video.id, `turn ${i}`, { done: 'ok' }, new Date(t0 + i * 1000));
    const thread = (await projectThreads(ctx, { user_id: 2, project_id: project.id })).threads[video.id];
    expect(thread).toHaveLength(THREAD_TURNS_SHOWN);
    expect(thread[0].instruction).toBe('turn 5');
    expect(thread[THREAD_TURNS_SHOWN - 1].instruction).toBe(`turn ${THREAD_TURNS_SHOWN + 4}`);
  });

  it("answers 404 for another user's project and a missing one, over RPC as editor.threads", async () => {
    const { project } = await createProject(ctx, { user_id: 3, name: 'Mine', description: null, aspect_ratio: '16:9' });
    await serveEditorRpc(records.bus, ctx);
    const mine = await records.bus.rpc(editorRpc, 'threads', { user_id: 3, project_id: project.id });
    expect(Object.values(mine.threads)).toEqual([[]]);
    await expect(records.bus.rpc(editorRpc, 'threads', { user_id: 4, project_id: project.id })).rejects.toMatchObject({
      kind: 'not_found',
      body: { error: 'Project not found' },
    });
    await expect(
      records.bus.rpc(editorRpc, 'threads', { user_id: 3, project_id: 'prj_missing' }),
    ).rejects.toMatchObject({
      kind: 'not_found',
      body: { error: 'Project not found' },
    });
  });
});
