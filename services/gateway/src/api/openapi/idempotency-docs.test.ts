import { openApiDocument } from './document';

type Json = Record<string, unknown>;
const doc = openApiDocument as unknown as { paths: Record<string, Record<string, Json>>; components: Json; info: Json };
const posts = Object.entries(doc.paths)
  .filter(([path, item]) => path.startsWith('/api/v1/') && item.post)
  .map(([path, item]) => [path, item.post] as const);

describe('the Idempotency-Key in the OpenAPI document', () => {
  it('covers every POST under /api/v1', () => {
    expect(posts.map(([path]) => path)).toEqual(
      expect.arrayContaining([
        '/api/v1/video/vidgen-2/generate',
        '/api/v1/image/imagegen/generate',
        '/api/v1/media-studio/projects',
        '/api/v1/media-studio/projects/{id}/export',
      ]),
    );
    for (const [path, op] of posts) {
      expect([path, op.parameters]).toEqual([
        path,
        expect.arrayContaining([{ $ref: '#/components/parameters/IdempotencyKey' }]),
      ]);
      const responses = op.responses as Record<string, Json>;
      expect([path, Object.keys(responses)]).toEqual([path, expect.arrayContaining(['422'])]);
      for (const [status, response] of Object.entries(responses)) {
        expect([path, status, (response.headers as Json)?.['Idempotent-Replayed']]).toEqual([
          path,
          status,
          { $ref: '#/components/headers/Idempotent-Replayed' },
        ]);
      }
    }
  });

  it('leaves other methods and /api/mcp alone', () => {
    expect(doc.paths['/api/v1/jobs/{id}'].get.parameters).toBeUndefined();
    expect(JSON.stringify(doc.paths['/api/mcp'])).not.toContain('Idempotency');
  });

  it("keeps export's own 422 and adds the reused-key body to it", () => {
    const r422 = (doc.paths['/api/v1/media-studio/projects/{id}/export'].post.responses as Record<string, Json>)['422'];
    expect(JSON.stringify(r422.content)).toContain('#/components/schemas/ExportError');
    expect(JSON.stringify(r422.content)).toContain('#/components/schemas/Error');
  });

  it('describes the header as an optional 1-255 character string, and explains it in the introduction', () => {
    expect((doc.components.parameters as Json).IdempotencyKey).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { minLength: 1, maxLength: 255 },
    });
    expect(String(doc.info.description)).toContain('Idempotency-Key');
  });
});
