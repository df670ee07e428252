import {
  BASE_BODIES,
  documentedOperations,
  HOSTILE_TEXT,
  hostileTextMessage,
  MALFORMED_JSON,
  nestedArrays,
  nestedObjects,
  NOT_AN_OBJECT,
  pathOf,
  textKind,
  wrongTypeValues,
  type Operation,
} from '../support/bad-input-catalog';
import { refusal, refused, send } from '../support/bad-input-http';
import {
  errorLogLinesSince,
  expectEachTestLeavesNothingBehind,
  logOffsets,
  startTarget,
  stopTarget,
  type SideEffects,
  type Target,
} from '../support/bad-input-state';
import { api, type Fleet, type TestUser } from '../support/fleet';

const CREDITS = 1000;
const INVALID_JSON = 'Invalid JSON body';
const NOT_AN_OBJECT_MESSAGE = 'Request body must be a JSON object';
const TOO_LARGE = 'Request body too large (max 1048576 bytes)';
const TOO_DEEP = 'JSON body nested too deeply (max 64 levels)';

/** Records that a body id names; a refusal of the id itself is the record's 404. */
const ID_FIELDS: Record<string, string> = { video_id: 'Video not found', asset_id: 'Asset not found' };

/**
 * Hostile request bodies against every /api/v1 operation of the OpenAPI document: malformed JSON,
 * bodies that are not objects, wrong types for every field, NUL and other control characters,
 * unpaired surrogates, invalid UTF-8, bodies over the limit, 100,000-character strings and deep
 * nesting. Each is a 4xx with the contract's error body, and leaves no trace: no job, no project,
 * asset or clip, no ledger row, no stored file, no error in the logs.
 */
describe('bad input in request bodies, on every /api/v1 operation', () => {
  let fleet: Fleet;
  let user: TestUser;
  let state: SideEffects;
  let offsets: Record<string, number>;
  let projectId: string;
  let videoId: string;
  let target: Target | undefined;

  const operations = documentedOperations();
  const authenticated = operations.filter((op) => op.authenticated);
  const withBody = operations.filter(
    (op): op is Operation & { body: NonNullable<Operation['body']> } => op.body !== null,
  );

  beforeAll(async () => {
    target = await startTarget(CREDITS);
    ({ fleet, user, state, projectId, videoId } = target);
    offsets = logOffsets(fleet);
  }, 240_000);

  afterAll(() => stopTarget(target));

  /** The operation's path with ids that are well-formed (the project and video exist). */
  function pathFor(op: Operation): string {
    const job = op.template.startsWith('/api/v1/jobs/');
    return pathOf(op, {
      id: job ? 'job_doesnotexist1' : projectId,
      videoId,
      assetId: 'ast_doesnotexist1',
      clipId: 'clp_doesnotexist1',
      exportId: 'exp_doesnotexist1',
    });
  }

  const call = (
    op: Operation,
    body: string | Buffer,
    extra: { headers?: Record<string, string>; chunked?: boolean } = {},
  ) => send(fleet.baseUrl, op.method, pathFor(op), { key: user.key, body, ...extra });

  const bodyWith = (op: Operation, field: string, value: unknown): string =>
    JSON.stringify({ ...BASE_BODIES[op.id], [field]: value });

  describe('refusals that leave nothing behind', () => {
    expectEachTestLeavesNothingBehind(() => state);

    it('has a valid base body for every documented operation that takes one', () => {
      expect(withBody.map((op) => op.id).filter((id) => !BASE_BODIES[id])).toEqual([]);
      expect(withBody.length).toBeGreaterThanOrEqual(13);
    });

    it.each(
      authenticated.flatMap((op) =>
        MALFORMED_JSON.map(([label, body]) => [`${op.method} ${op.template}`, label, op, body] as const),
      ),
    )('%s: refuses %s as "Invalid JSON body"', async (_name, _label, op, body) => {
      expect(refusal(await call(op, body))).toEqual(refused(400, INVALID_JSON));
    });

    it.each(
      withBody.flatMap((op) =>
        NOT_AN_OBJECT.map(([label, body]) => [`${op.method} ${op.template}`, label, op, body] as const),
      ),
    )(
      '%s: refuses %s where an object is expected as "Request body must be a JSON object"',
      async (_name, _label, op, body) => {
        expect(refusal(await call(op, body))).toEqual(refused(400, NOT_AN_OBJECT_MESSAGE));
      },
    );

    it.each(
      withBody.flatMap((op) =>
        Object.entries(op.body.properties).flatMap(([field, schema]) =>
          wrongTypeValues(schema).map(
            ([label, value]) => [`${op.method} ${op.template}`, field, label, op, value] as const,
          ),
        ),
      ),
    )('%s: refuses %s given %s with 400 naming the field', async (_name, field, _label, op, value) => {
      const res = await call(op, bodyWith(op, field, value));
      expect(refusal(res)).toEqual(refused(400, new RegExp(`\\b${field}\\b`)));
    });

    it.each(
      withBody.flatMap((op) =>
        Object.entries(op.body.properties).flatMap(([field, schema]) => {
          const kind = textKind(schema);
          if (!kind) return [];
          return HOSTILE_TEXT.map(
            ({ label, value, problem }) =>
              [
                `${op.method} ${op.template}`,
                field,
                label,
                op,
                kind === 'string' ? value : [value],
                hostileTextMessage(kind === 'string' ? field : `${field}[0]`, problem),
              ] as const,
          );
        }),
      ),
    )('%s: refuses %s holding %s with 400 naming the field', async (_name, _field, _label, op, value, message) => {
      expect(refusal(await call(op, bodyWith(op, _field, value)))).toEqual(refused(400, message));
    });

    it.each(withBody.map((op) => [`${op.method} ${op.template}`, op] as const))(
      '%s: refuses a NUL in a field name',
      async (_name, op) => {
        const body = JSON.stringify({ ...BASE_BODIES[op.id], 'evil\u0000field': 'x' });
        expect(refusal(await call(op, body))).toEqual(refused(400, 'field names must not contain control characters'));
      },
    );

    it.each(authenticated.map((op) => [`${op.method} ${op.template}`, op] as const))(
      '%s: refuses a body over 1 MB with 413 naming the limit',
      async (_name, op) => {
        const body = JSON.stringify({ prompt: 'x'.repeat(1024 * 1024) });
        expect(refusal(await call(op, body))).toEqual(refused(413, TOO_LARGE));
      },
    );

    it.each(withBody.map((op) => [`${op.method} ${op.template}`, op] as const))(
      '%s: refuses a chunked body that grows past 1 MB with 413',
      async (_name, op) => {
        const body = JSON.stringify({ ...BASE_BODIES[op.id], padding: 'x'.repeat(3 * 1024 * 1024) });
        expect(refusal(await call(op, body, { chunked: true }))).toEqual(refused(413, TOO_LARGE));
      },
    );

    it.each(
      withBody.flatMap((op) =>
        Object.entries(op.body.properties).flatMap(([field, schema]) => {
          const kind = textKind(schema);
          if (!kind) return [];
          const long = 'x'.repeat(100_001);
          return [[`${op.method} ${op.template}`, field, op, kind === 'string' ? long : [long]] as const];
        }),
      ),
    )(
      '%s: refuses a 100,001 character %s (a body within the limit) with a 4xx naming it',
      async (_name, field, op, value) => {
        const res = await call(op, bodyWith(op, field, value));
        // An id that long cannot exist: the record's 404. Anything else is the field's 400.
        expect(refusal(res)).toEqual(
          ID_FIELDS[field] ? refused(404, ID_FIELDS[field]) : refused(400, new RegExp(`\\b${field}\\b`)),
        );
      },
    );

    it.each(
      authenticated.flatMap((op) => {
        const field = op.body ? Object.keys(op.body.properties)[0] : 'anything';
        return [
          [
            `${op.method} ${op.template}`,
            '10,000 nested arrays in a field',
            op,
            `{"${field}": ${nestedArrays(10_000)}}`,
          ],
          [
            `${op.method} ${op.template}`,
            '10,000 nested objects in a field',
            op,
            `{"${field}": ${nestedObjects(10_000)}}`,
          ],
          [`${op.method} ${op.template}`, '300,000 nested arrays as the body', op, nestedArrays(300_000)],
        ] as const;
      }),
    )('%s: refuses %s as too deep', async (_name, _label, op, body) => {
      expect(refusal(await call(op, body))).toEqual(refused(400, TOO_DEEP));
    });

    it.each([
      ['application/json; charset=utf-16', Buffer.from('{"prompt":"a cat"}', 'utf16le')],
      ['application/json; charset=utf-32', Buffer.from('{"prompt":"a cat"}')],
      ['application/json; charset=latin1', Buffer.from('{"prompt":"caf\u00e9"}', 'latin1')],
    ])('refuses a body declared as %s with 415', async (contentType, body) => {
      const op = withBody.find((o) => o.id === 'generateImage')!;
      expect(refusal(await call(op, body, { headers: { 'content-type': contentType } }))).toEqual(
        refused(415, 'Request body must be UTF-8 encoded JSON'),
      );
    });
  });

  it('charged nothing for any of it: the balance and the period usage are as granted', async () => {
    const account = await api(fleet, 'GET', '/api/v1/account', { key: user.key });
    expect(account.body).toMatchObject({ credits_remaining: CREDITS, credits_used_this_period: 0 });
    const jobs = await state.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs.jobs');
    expect(jobs[0].n).toBe(0);
  });

  it('left the target project as it was created', async () => {
    const res = await api(fleet, 'GET', `/api/v1/media-studio/projects/${projectId}`, { key: user.key });
    expect(res.body.project).toMatchObject({ id: projectId, name: 'target', context_md: '' });
    expect(res.body.videos).toHaveLength(1);
    expect(res.body.assets).toEqual([]);
    expect(res.body.clips).toEqual([]);
  });

  it('logged no error for any of it', () => {
    expect(errorLogLinesSince(fleet, offsets)).toEqual([]);
  });
});
