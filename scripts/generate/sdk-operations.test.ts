import fs from 'node:fs';
import path from 'node:path';
import type { Operation } from '../../services/gateway/src/operations/operation';
import { OPERATIONS as TABLE } from '../../services/gateway/src/operations/table';
import { MediaforgeClient } from '../../sdk/src/client';

const OPERATIONS: readonly Operation[] = TABLE;
const SDK_SRC = path.join(__dirname, '..', '..', 'sdk', 'src');
const handWritten = fs
  .readdirSync(SDK_SRC)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => fs.readFileSync(path.join(SDK_SRC, f), 'utf8'))
  .join('\n');

describe("the SDK's client, from the operation table", () => {
  const client = new MediaforgeClient({ baseUrl: 'http://sdk.test', apiKey: 'mf_test' });

  it.each(OPERATIONS.filter((o) => o.sdk !== 'hand-written').map((o) => o.id))('has the generated method %s', (id) => {
    expect(typeof (client as unknown as Record<string, unknown>)[id]).toBe('function');
  });

  it.each(OPERATIONS.filter((o) => o.sdk === 'hand-written').map((o) => o.id))(
    'reaches %s through a hand-written method, by its route (no path written by hand)',
    (id) => {
      expect(handWritten).toContain(`route('${id}'`);
    },
  );

  it('calls an operation at its method and path, path parameters encoded, with the body given', async () => {
    const calls: { method: string; url: string; body: unknown }[] = [];
    const recording = new MediaforgeClient({
      baseUrl: 'http://sdk.test',
      apiKey: 'mf_test',
      fetch: async (url, init) => {
        calls.push({ method: String(init?.method), url, body: init?.body ? JSON.parse(String(init.body)) : undefined });
        return new Response('{"video":{}}', { status: 200, headers: { 'Content-Type': 'application/json' } });
      },
    });
    await recording.renameVideo('prj_1', 'vid/2', { name: 'Cut' });
    expect(calls).toEqual([
      {
        method: 'PATCH',
        url: 'http://sdk.test/api/v1/media-studio/projects/prj_1/videos/vid%2F2',
        body: { name: 'Cut' },
      },
    ]);
  });
});
