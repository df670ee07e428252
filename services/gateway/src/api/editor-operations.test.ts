import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import type { Bus } from '@mf/bus';
import { editorRpc } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { createHttpApp, finish, jsonBody } from '@mf/http';
import { createLogger } from '@mf/logger';
import type { AuthContext } from '../http/auth.middleware';
import { operationHandlers, type OperationDeps } from './operations.handlers';
import { operationsRouter } from './operations.router';

const logger = createLogger('gateway-editor-test', 'silent');
const INSTRUCT_TIMEOUT_MS = 123_456;
const PRJ = 'prj_abc123';
const BOTH = ['video-editor:read', 'video-editor:write'];

interface RpcCall {
  queue: string;
  method: string;
  request: Record<string, unknown>;
  timeoutMs?: number;
  correlationId?: string;
}

/** Records every RPC and answers with `reply(method, request)` (a thrown AppError crosses as the service's error). */
function fakeBus(
  reply: (method: string, request: Record<string, unknown>) => unknown = (method) => ({ echoed: method }),
) {
  const calls: RpcCall[] = [];
  const bus = {
    rpc: async (
      service: { queue: string },
      method: string,
      req: Record<string, unknown>,
      opts: { timeoutMs?: number; correlationId?: string } = {},
    ) => {
      calls.push({
        queue: service.queue,
        method,
        request: req,
        timeoutMs: opts.timeoutMs,
        correlationId: opts.correlationId,
      });
      return reply(method, req);
    },
  };
  // Only `rpc` is used by the routes; the rest of Bus is not needed here.
  return { bus: bus as unknown as Bus, calls };
}

function buildApp(bus: Bus, auth: AuthContext = { userId: 7, apiKeyId: 70, scopes: BOTH }): Express {
  const app = createHttpApp({ logger });
  const fakeAuth: RequestHandler = (req, _res, next) => {
    req.auth = auth;
    next();
  };
  app.use(fakeAuth, jsonBody());
  // The editor's operations use only the bus and these timeouts.
  const deps = {
    bus,
    falEndpoints: {},
    instructTimeoutMs: INSTRUCT_TIMEOUT_MS,
    exportTimeoutMs: 60_000,
    importTimeoutMs: 60_000,
  } as unknown as OperationDeps;
  app.use(operationsRouter(operationHandlers(deps)));
  finish(app, logger);
  return app;
}

describe('editor routes', () => {
  describe('the contract operations', () => {
    it('creates a project with the defaults for the key owner and answers the reply as is', async () => {
      const project = {
        id: PRJ,
        name: 'Untitled project',
        aspect_ratio: '9:16',
        context_md: '',
        created_at: 't',
        updated_at: 't',
      };
      const { bus, calls } = fakeBus(() => ({ project }));
      const res = await request(buildApp(bus)).post('/media-studio/projects').set('X-Request-Id', 'req-1').send({});
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ project });
      expect(calls).toEqual([
        {
          queue: editorRpc.queue,
          method: 'createProject',
          request: { user_id: 7, name: 'Untitled project', description: null, aspect_ratio: '9:16' },
          timeoutMs: undefined,
          correlationId: 'req-1',
        },
      ]);
    });

    it('creates a project from a request sent without any body', async () => {
      const { bus, calls } = fakeBus();
      const res = await request(buildApp(bus)).post('/media-studio/projects');
      expect(res.status).toBe(200);
      expect(calls[0].request).toEqual({
        user_id: 7,
        name: 'Untitled project',
        description: null,
        aspect_ratio: '9:16',
      });
    });

    it('answers 400 with the message and calls nothing when the body is invalid', async () => {
      const { bus, calls } = fakeBus();
      const res = await request(buildApp(bus))
        .post('/media-studio/projects')
        .send({ name: 'n'.repeat(121) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'name must be 1-120 characters' });
      expect(calls).toEqual([]);
    });

    it('answers a JSON null body with 400 saying the body must be a JSON object', async () => {
      const { bus, calls } = fakeBus();
      const res = await request(buildApp(bus))
        .post('/media-studio/projects')
        .set('Content-Type', 'application/json')
        .send('null');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Request body must be a JSON object' });
      expect(calls).toEqual([]);
    });

    it("lists the key owner's projects, not cached", async () => {
      const { bus, calls } = fakeBus(() => ({ projects: [] }));
      const res = await request(buildApp(bus)).get('/media-studio/projects');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ projects: [] });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(calls.map((c) => [c.method, c.request])).toEqual([['listProjects', { user_id: 7 }]]);
    });

    it('gets a project, narrowed to a video when video_id is in the query', async () => {
      const { bus, calls } = fakeBus();
      const app = buildApp(bus);
      await request(app).get(`/media-studio/projects/${PRJ}`).expect(200);
      await request(app).get(`/media-studio/projects/${PRJ}?video_id=vid_1`).expect(200);
      await request(app).get(`/media-studio/projects/${PRJ}?video_id=`).expect(200);
      expect(calls.map((c) => c.request)).toEqual([
        { user_id: 7, project_id: PRJ },
        { user_id: 7, project_id: PRJ, video_id: 'vid_1' },
        { user_id: 7, project_id: PRJ },
      ]);
    });

    it('answers 400 "video_id must be a string" to a repeated video_id', async () => {
      const { bus, calls } = fakeBus();
      const res = await request(buildApp(bus)).get(`/media-studio/projects/${PRJ}?video_id=a&video_id=b`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'video_id must be a string' });
      expect(calls).toEqual([]);
    });

    it('sends an instruct turn with the key id, the defaults and the long instruct timeout', async () => {
      const turn = {
        assistant_text: 'Shall I?',
        assets_created: [],
        clips_created: [],
        context_appended: false,
        aspect_ratio_changed: null,
        media_gen_done: false,
        agent_events: [],
      };
      const { bus, calls } = fakeBus(() => turn);
      const app = buildApp(bus);
      const res = await request(app).post(`/media-studio/projects/${PRJ}/instruct`).send({ instruction: 'a teaser' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(turn);
      await request(app)
        .post(`/media-studio/projects/${PRJ}/instruct`)
        .send({ image_urls: ['https://x.test/a.png'], video_id: 'vid_2' })
        .expect(200);
      expect(calls.map((c) => [c.method, c.request, c.timeoutMs])).toEqual([
        [
          'instruct',
          { user_id: 7, project_id: PRJ, api_key_id: 70, instruction: 'a teaser', image_urls: [] },
          INSTRUCT_TIMEOUT_MS,
        ],
        [
          'instruct',
          {
            user_id: 7,
            project_id: PRJ,
            api_key_id: 70,
            instruction: '',
            image_urls: ['https://x.test/a.png'],
            video_id: 'vid_2',
          },
          INSTRUCT_TIMEOUT_MS,
        ],
      ]);
    });

    it('passes an error of the service through unchanged (402 with its figures)', async () => {
      const { bus } = fakeBus(() => {
        throw AppError.insufficientCredits(5, 2);
      });
      const res = await request(buildApp(bus))
        .post(`/media-studio/projects/${PRJ}/instruct`)
        .send({ instruction: 'go' });
      expect(res.status).toBe(402);
      expect(res.body).toEqual({ error: 'Insufficient credits', credits_required: 5, credits_remaining: 2 });
    });
  });

  describe('direct edits', () => {
    const cases: [string, string, string, unknown, string, Record<string, unknown>][] = [
      [
        'creates a video named "Untitled video" by default',
        'POST',
        `/media-studio/projects/${PRJ}/videos`,
        {},
        'createVideo',
        { name: 'Untitled video' },
      ],
      [
        'creates a named video',
        'POST',
        `/media-studio/projects/${PRJ}/videos`,
        { name: 'B-roll' },
        'createVideo',
        { name: 'B-roll' },
      ],
      ['renames the project', 'PATCH', `/media-studio/projects/${PRJ}`, { name: 'New' }, 'rename', { name: 'New' }],
      [
        'renames a video',
        'PATCH',
        `/media-studio/projects/${PRJ}/videos/vid_9`,
        { name: 'Cut 2' },
        'rename',
        { video_id: 'vid_9', name: 'Cut 2' },
      ],
      [
        'imports an asset',
        'POST',
        `/media-studio/projects/${PRJ}/assets`,
        { url: 'https://x.test/a.png' },
        'importAsset',
        { url: 'https://x.test/a.png' },
      ],
      [
        'deletes an asset',
        'DELETE',
        `/media-studio/projects/${PRJ}/assets/ast_1`,
        undefined,
        'deleteAsset',
        { asset_id: 'ast_1' },
      ],
      [
        'adds a clip',
        'POST',
        `/media-studio/projects/${PRJ}/clips`,
        { track: 'video', asset_id: 'ast_1', idx: 0 },
        'addClip',
        { track: 'video', asset_id: 'ast_1', idx: 0 },
      ],
      [
        'moves a clip',
        'PATCH',
        `/media-studio/projects/${PRJ}/clips/clp_1`,
        { idx: 2 },
        'moveClip',
        { clip_id: 'clp_1', idx: 2 },
      ],
      [
        'removes a clip',
        'DELETE',
        `/media-studio/projects/${PRJ}/clips/clp_1`,
        undefined,
        'removeClip',
        { clip_id: 'clp_1' },
      ],
      [
        'replaces the context',
        'PUT',
        `/media-studio/projects/${PRJ}/context`,
        { context_md: '# Brief' },
        'updateContext',
        { context_md: '# Brief' },
      ],
      [
        'sets the aspect ratio',
        'PUT',
        `/media-studio/projects/${PRJ}/aspect-ratio`,
        { aspect_ratio: '1:1' },
        'setAspectRatio',
        { aspect_ratio: '1:1' },
      ],
    ];

    it.each(cases)(
      '%s (%s %s) through one RPC, answering its reply',
      async (_what, method, path, body, rpc, fields) => {
        const { bus, calls } = fakeBus((m) => ({ done: m }));
        let req = request(buildApp(bus))[method.toLowerCase() as 'post'](path);
        if (body !== undefined) req = req.send(body as object);
        const res = await req;
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ done: rpc });
        expect(calls.map((c) => [c.method, c.request])).toEqual([[rpc, { user_id: 7, project_id: PRJ, ...fields }]]);
      },
    );

    it.each(cases)('%s: 403 without video-editor:write, before anything else', async (_what, method, path, body) => {
      const { bus, calls } = fakeBus();
      let req = request(buildApp(bus, { userId: 7, apiKeyId: 70, scopes: ['video-editor:read'] }))[
        method.toLowerCase() as 'post'
      ](path);
      if (body !== undefined) req = req.send(body as object);
      const res = await req;
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'This API key lacks the required scope: video-editor:write',
        required_scope: 'video-editor:write',
      });
      expect(calls).toEqual([]);
    });

    it('answers 400 with the field message to an invalid edit and calls nothing', async () => {
      const { bus, calls } = fakeBus();
      const app = buildApp(bus);
      const bad: [string, string, unknown, string][] = [
        [
          'post',
          `/media-studio/projects/${PRJ}/clips`,
          { track: 'subtitles', asset_id: 'ast_1' },
          'track must be one of video, voice, sfx, music',
        ],
        ['patch', `/media-studio/projects/${PRJ}/clips/clp_1`, { idx: -1 }, 'idx must be an integer of at least 0'],
        [
          'put',
          `/media-studio/projects/${PRJ}/aspect-ratio`,
          { aspect_ratio: '2:1' },
          'aspect_ratio must be one of 9:16, 1:1, 4:5, 16:9, 4:3',
        ],
        ['post', `/media-studio/projects/${PRJ}/assets`, { url: 'http://x.test/a.png' }, 'url must be a https URL'],
      ];
      for (const [method, path, body, error] of bad) {
        const res = await request(app)
          [method as 'post'](path)
          .send(body as object);
        expect([path, res.status, res.body]).toEqual([path, 400, { error }]);
      }
      expect(calls).toEqual([]);
    });
  });

  describe('ids that cannot exist', () => {
    it.each([
      ['GET', '/media-studio/projects/p1'],
      ['GET', '/media-studio/projects/prj_'],
      ['GET', `/media-studio/projects/prj_${'a'.repeat(65)}`],
      ['GET', "/media-studio/projects/prj_1' OR '1'='1"],
      ['POST', '/media-studio/projects/..%2Fprj_1/instruct'],
      ['PATCH', '/media-studio/projects/job_abc'],
      ['DELETE', '/media-studio/projects/prj-1/clips/clp_1'],
    ])('answers %s %s with 404 "Project not found" without calling the service', async (method, path) => {
      const { bus, calls } = fakeBus();
      const res = await request(buildApp(bus))
        [method.toLowerCase() as 'get'](path)
        .send(method === 'GET' ? undefined : { instruction: 'x', name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Project not found' });
      expect(calls).toEqual([]);
    });

    it('answers 404 naming the record for a video, asset or clip id longer than the contract allows', async () => {
      const { bus, calls } = fakeBus();
      const app = buildApp(bus);
      const long = 'x'.repeat(101);
      const cases: [request.Test, string][] = [
        [request(app).patch(`/media-studio/projects/${PRJ}/videos/${long}`).send({ name: 'n' }), 'Video not found'],
        [request(app).get(`/media-studio/projects/${PRJ}?video_id=${long}`), 'Video not found'],
        [
          request(app).post(`/media-studio/projects/${PRJ}/instruct`).send({ instruction: 'x', video_id: '' }),
          'Video not found',
        ],
        [request(app).delete(`/media-studio/projects/${PRJ}/assets/${long}`), 'Asset not found'],
        [
          request(app).post(`/media-studio/projects/${PRJ}/clips`).send({ track: 'video', asset_id: long }),
          'Asset not found',
        ],
        [request(app).patch(`/media-studio/projects/${PRJ}/clips/${long}`).send({ idx: 0 }), 'Clip not found'],
        [request(app).delete(`/media-studio/projects/${PRJ}/clips/${long}`), 'Clip not found'],
      ];
      for (const [req, error] of cases) {
        const res = await req;
        expect([res.status, res.body]).toEqual([404, { error }]);
      }
      expect(calls).toEqual([]);
    });

    it.each([
      ['an encoded NUL', 'vid_a%00', 'ast_a%00', 'clp_a%00'],
      ['a traversal', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2fast_1', '..%5Cclp_1'],
      ['an SQL injection', "vid_1'%20OR%201%3D1%20--", 'ast_1%3B%20DROP%20TABLE%20assets', "clp_1'--"],
      ['another kind of id', 'ast_1', 'clp_1', 'vid_1'],
      ['a CRLF', 'vid_1%0D%0AX-Injected%3A%201', 'ast_1%0D%0A', 'clp_1%0A'],
    ])(
      'answers 404 naming the record for a video, asset or clip id with %s, without calling the service',
      async (_case, video, asset, clip) => {
        const { bus, calls } = fakeBus();
        const app = buildApp(bus);
        // In a query or a body, a control character is refused before the id rule, as text (400).
        const refused = (encoded: string, field: string, error: string): [number, { error: string }] =>
          // eslint-disable-next-line no-control-regex -- matching control characters is the point
          /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(decodeURIComponent(encoded))
            ? [400, { error: `${field} must not contain control characters` }]
            : [404, { error }];
        const cases: [request.Test, [number, { error: string }]][] = [
          [
            request(app).patch(`/media-studio/projects/${PRJ}/videos/${video}`).send({ name: 'n' }),
            [404, { error: 'Video not found' }],
          ],
          [
            request(app).get(`/media-studio/projects/${PRJ}?video_id=${video}`),
            refused(video, 'video_id', 'Video not found'),
          ],
          [
            request(app)
              .post(`/media-studio/projects/${PRJ}/export`)
              .send({ video_id: decodeURIComponent(video) }),
            refused(video, 'video_id', 'Video not found'),
          ],
          [request(app).delete(`/media-studio/projects/${PRJ}/assets/${asset}`), [404, { error: 'Asset not found' }]],
          [
            request(app)
              .post(`/media-studio/projects/${PRJ}/clips`)
              .send({ track: 'video', asset_id: decodeURIComponent(asset) }),
            refused(asset, 'asset_id', 'Asset not found'),
          ],
          [
            request(app).patch(`/media-studio/projects/${PRJ}/clips/${clip}`).send({ idx: 0 }),
            [404, { error: 'Clip not found' }],
          ],
          [request(app).delete(`/media-studio/projects/${PRJ}/clips/${clip}`), [404, { error: 'Clip not found' }]],
        ];
        for (const [req, expected] of cases) {
          const res = await req;
          expect([res.status, res.body]).toEqual(expected);
        }
        expect(calls).toEqual([]);
      },
    );

    it('refuses a NUL in a body string with 400 naming the field, without calling the service', async () => {
      const { bus, calls } = fakeBus();
      const res = await request(buildApp(bus))
        .put(`/media-studio/projects/${PRJ}/context`)
        .send({ context_md: 'a\u0000b' });
      expect([res.status, res.body]).toEqual([400, { error: 'context_md must not contain control characters' }]);
      expect(calls).toEqual([]);
    });
  });

  describe('scopes of the contract operations', () => {
    it('refuses create and instruct to a read-only key, and list and get to a write-only key', async () => {
      const { bus, calls } = fakeBus();
      const readOnly = buildApp(bus, { userId: 7, apiKeyId: 70, scopes: ['video-editor:read'] });
      const writeOnly = buildApp(bus, { userId: 7, apiKeyId: 70, scopes: ['video-editor:write'] });
      expect((await request(readOnly).post('/media-studio/projects').send({})).body.required_scope).toBe(
        'video-editor:write',
      );
      expect(
        (await request(readOnly).post(`/media-studio/projects/${PRJ}/instruct`).send({ instruction: 'x' })).status,
      ).toBe(403);
      expect((await request(writeOnly).get('/media-studio/projects')).body.required_scope).toBe('video-editor:read');
      expect((await request(writeOnly).get(`/media-studio/projects/${PRJ}`)).status).toBe(403);
      // The scope check comes first: a malformed id is still a 403 for a key without the scope.
      expect((await request(writeOnly).get('/media-studio/projects/p1')).status).toBe(403);
      expect(calls).toEqual([]);
    });
  });
});
