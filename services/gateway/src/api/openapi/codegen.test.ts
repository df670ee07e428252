import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openApiDocument } from './document';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../../..');

/**
 * What a client team does with our description: `npx openapi-typescript openapi.json` with its
 * default options, then calls typed by the result. Valid calls that leave out defaulted fields
 * (fast, generate_audio, image_urls, fit, ...) must compile; invalid ones must not.
 */
describe('code generated from the OpenAPI document with openapi-typescript defaults', () => {
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-codegen-'));
    fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(openApiDocument));
    await run(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
        path.join(dir, 'openapi.json'),
        '-o',
        path.join(dir, 'api.d.ts'),
      ],
      { cwd: ROOT },
    );
  }, 60_000);

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const compile = async (source: string): Promise<string> => {
    fs.writeFileSync(path.join(dir, 'client.ts'), source);
    try {
      await run(
        process.execPath,
        [
          path.join(ROOT, 'node_modules/typescript/bin/tsc'),
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          '--target',
          'es2022',
          '--module',
          'nodenext',
          path.join(dir, 'client.ts'),
        ],
        { cwd: dir },
      );
      return '';
    } catch (err) {
      return (err as { stdout?: string }).stdout ?? String(err);
    }
  };

  const header = `import type { paths } from './api';
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
`;

  it('types valid requests that leave every defaulted field out', async () => {
    const errors = await compile(`${header}
const video: Body<'/api/v1/video/vidgen-2/generate', 'post'> = { prompt: 'a heron' };
const image: Body<'/api/v1/image/imagegen/generate', 'post'> = { prompt: 'a heron' };
const project: Body<'/api/v1/media-studio/projects', 'post'> = {};
const turn: Body<'/api/v1/media-studio/projects/{id}/instruct', 'post'> = { instruction: 'make a teaser' };
const exported: Body<'/api/v1/media-studio/projects/{id}/export', 'post'> = {};
const clip: Body<'/api/v1/media-studio/projects/{id}/clips', 'post'> = { track: 'video', asset_id: 'ast_1' };
const full: Body<'/api/v1/video/vidgen-2/generate', 'post'> = { prompt: 'p', fast: true, generate_audio: false, duration_seconds: 10, aspect_ratio: '9:16', resolution: '480p', seed: 7 };
const edit: Body<'/api/v1/image/imagegen/generate', 'post'> = { prompt: 'p', image_urls: ['https://x.test/a.png'], num_images: 2 };
export const all = [video, image, project, turn, exported, clip, full, edit];
`);
    expect(errors).toBe('');
  }, 60_000);

  it('refuses values the API refuses (an unknown duration, a misspelt field, no prompt)', async () => {
    for (const bad of [`{ prompt: 'p', duration_seconds: 7 }`, `{ prompt: 'p', duration: 10 }`, `{ fast: true }`]) {
      const errors = await compile(
        `${header}export const v: Body<'/api/v1/video/vidgen-2/generate', 'post'> = ${bad};\n`,
      );
      expect([bad, errors]).toEqual([bad, expect.stringContaining('error TS')]);
    }
  }, 60_000);
});
