import fs from 'node:fs';
import path from 'node:path';
import { EXPORT_ERROR_CODES, EXPORT_ERROR_KIND } from '@mf/contracts';
import { httpStatusOf } from '@mf/errors';
import { openApiDocument } from './document';

type Json = Record<string, unknown>;
const doc = openApiDocument as unknown as { paths: Record<string, Record<string, Json>>; components: Json };
const schemas = doc.components.schemas as Record<string, Json>;
const exportResponses = doc.paths['/api/v1/media-studio/projects/{id}/export'].post.responses as Record<string, Json>;
const editorApiMd = fs.readFileSync(path.join(__dirname, '../../../../../docs/editor-api.md'), 'utf8');

describe('the export error shape, {error, message}', () => {
  it('is the ExportError schema of the OpenAPI document, with every export code; ExportServerError adds request_id', () => {
    expect(schemas.ExportError).toMatchObject({
      type: 'object',
      properties: { error: { type: 'string', enum: [...EXPORT_ERROR_CODES] }, message: { type: 'string' } },
      required: ['error', 'message'],
      additionalProperties: false,
    });
    expect(schemas.ExportServerError).toMatchObject({
      properties: { error: { enum: [...EXPORT_ERROR_CODES] }, request_id: { type: 'string' } },
      required: ['error', 'message', 'request_id'],
    });
  });

  it('is declared by the export route at the status of each code, its description naming the code', () => {
    for (const code of EXPORT_ERROR_CODES) {
      const status = httpStatusOf(EXPORT_ERROR_KIND[code]);
      let response = exportResponses[String(status)];
      const shared = /^#\/components\/responses\/(.+)$/.exec(String(response?.$ref ?? ''));
      if (shared) response = (doc.components.responses as Record<string, Json>)[shared[1]];
      const schema = status >= 500 ? 'ExportServerError' : 'ExportError';
      expect([code, status, JSON.stringify(response?.content)]).toEqual([
        code,
        status,
        expect.stringContaining(`"#/components/schemas/${schema}"`),
      ]);
      expect([code, status, response?.description]).toEqual([code, status, expect.stringContaining(`\`${code}\``)]);
    }
  });

  it('is documented in docs/editor-api.md with each code at its status', () => {
    expect(editorApiMd).toContain('`{"error": "<code>", "message": "<text>"}`');
    expect(editorApiMd).toContain('`{"error": "<code>", "message": "<text>", "request_id": "<X-Request-Id>"}`');
    for (const code of EXPORT_ERROR_CODES) {
      const status = httpStatusOf(EXPORT_ERROR_KIND[code]);
      expect([code, editorApiMd.includes(`| ${status} | \`${code}\` |`)]).toEqual([code, true]);
    }
  });
});
