import Joi from 'joi';
import {
  imageRequest,
  inlineJsonSchema,
  named,
  optional,
  resolvedParams,
  says,
  validateBody,
  videoRequest,
} from '../../libs/contracts/src';
import { paramsOf } from '../../libs/catalog/src/params';
import { formParams } from '../../services/gateway/dashboard/src/param-form';
import { fieldList, generationArgs } from '../../services/gateway/src/mcp/tools/generation-args';
import { inputJsonSchema, toolArgs } from '../../services/gateway/src/mcp/schemas';
import { op } from '../../services/gateway/src/operations/openapi-helpers';
import { inputBySchema } from '../../services/jobs/src/domain/job';
import { parseArgs } from '../../sdk/src/cli-args';
import { fieldFlags, flagsUsage } from '../../sdk/src/cli-fields';
import { paramsOfFlags } from '../../sdk/src/cli-params';
import { contractTypesFile } from './contract-types';
import { requestFieldsOf } from './sdk-types';

/**
 * A new optional field of the video submit body is one edit of its schema: every surface is a
 * function of the schema, so a copy of it with one more field shows that field everywhere.
 */
const LOOP = 'Play the video as a seamless loop.';
const withLoop = named(
  videoRequest.keys({
    loop: says(optional(Joi.boolean().default(false)), 'loop must be a boolean (true or false)').description(LOOP),
  }),
  'VideoGenerateRequest',
);
/** A value as a client reads it over HTTP: JSON. */
const overHttp = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('a field added to the video submit schema', () => {
  it('is validated, with its default applied and its own message', () => {
    expect(validateBody(withLoop, { prompt: 'p' })).toMatchObject({ ok: true, value: { loop: false } });
    expect(validateBody(withLoop, { prompt: 'p', loop: true })).toMatchObject({ ok: true, value: { loop: true } });
    expect(validateBody(withLoop, { prompt: 'p', loop: 'yes' })).toEqual({
      ok: false,
      error: 'loop must be a boolean (true or false)',
    });
  });

  it('is in the OpenAPI request body of the operation', () => {
    const operation = op({ id: 'generateVideo', summary: 's', tag: 'Generation', body: withLoop, responses: {} });
    const schema = overHttp(operation).requestBody.content['application/json'].schema;
    expect(schema.properties.loop).toMatchObject({ type: ['boolean', 'null'], default: false, description: LOOP });
  });

  // The SDK's types are openapi-typescript over that document (sdk-types.ts), an ES module jest cannot load.
  it('is in the TypeScript types generated from the contract', () => {
    expect(contractTypesFile({ withLoop })).toMatch(/loop: boolean;/);
  });

  it('is an argument of the MCP tool generate_media and named in its description', () => {
    const args = generationArgs({ video: withLoop, image: imageRequest }, { args: {}, merged: {} });
    const schema = overHttp(inputJsonSchema(toolArgs(args, ['prompt'])));
    expect(schema.properties.loop).toMatchObject({ type: 'boolean', description: `Video only: ${LOOP}` });
    expect(fieldList(withLoop, {})).toMatch(/, loop$/);
  });

  it('is a flag of the CLI, in its --help', () => {
    const flags = fieldFlags(requestFieldsOf(withLoop), { duration_seconds: 'duration' });
    expect(flags.map((f) => f.flag)).toContain('loop');
    expect(paramsOfFlags(parseArgs(['--prompt', 'p', '--loop']), flags)).toEqual({ prompt: 'p', loop: true });
    expect(flagsUsage(flags)).toEqual(expect.arrayContaining(['--prompt P', '[--duration 5]', '[--loop]']));
  });

  it("is a field of the dashboard's form, through the model's params", () => {
    const params = overHttp(paramsOf(withLoop));
    expect(params.loop).toMatchObject({ type: 'boolean', default: false, description: LOOP });
    expect(formParams(params).find((p) => p.name === 'loop')).toMatchObject({ label: 'loop', control: 'checkbox' });
  });

  it("is kept in the job's stored input, and nothing beside the schema's fields", () => {
    const params = resolvedParams(withLoop, 'VideoParams', ['image_url']);
    const validated = validateBody(withLoop, { prompt: 'p', loop: true });
    const stored = { ...(validated.ok ? validated.value : {}), seed: 7, internal: 'x' };
    expect(inputBySchema(params, stored)).toMatchObject({ loop: true, seed: 7 });
    expect(inputBySchema(params, stored)).not.toHaveProperty('internal');
  });

  it('is refused by the schema as it is today, so the copy is what adds it', () => {
    expect(validateBody(videoRequest, { prompt: 'p', loop: true })).toMatchObject({ ok: false });
    expect(inlineJsonSchema(videoRequest).properties).not.toHaveProperty('loop');
  });
});
