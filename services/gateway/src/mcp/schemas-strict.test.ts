import Ajv2020 from 'ajv/dist/2020';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { startEndpoint, type Endpoint } from '../../test/support/mcp-endpoint';

/**
 * Every tool schema as tools/list answers it, checked strictly (the check a strict client or the
 * MCP inspector applies): valid against the JSON Schema 2020-12 meta-schema, compiled by Ajv in
 * strict mode (no unknown keywords, no ambiguous types or tuples, required properties defined),
 * an object at its root.
 */
function strictProblems(tool: Tool): string[] {
  const problems: string[] = [];
  for (const [which, schema] of [
    ['inputSchema', tool.inputSchema],
    ['outputSchema', tool.outputSchema],
  ] as const) {
    if (!schema) continue;
    if (schema.type !== 'object') problems.push(`${tool.name} ${which}: type is not "object"`);
    const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
    if (!ajv.validateSchema(schema)) problems.push(`${tool.name} ${which}: ${ajv.errorsText(ajv.errors)}`);
    try {
      ajv.compile(schema);
    } catch (err) {
      problems.push(`${tool.name} ${which}: ${(err as Error).message}`);
    }
  }
  return problems;
}

describe('MCP tool schemas under strict checking', () => {
  let endpoint: Endpoint;
  afterAll(() => endpoint.close());

  it('passes for every input and output schema of tools/list', async () => {
    endpoint = await startEndpoint();
    const client = await endpoint.connect();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(17);
    expect(tools.flatMap(strictProblems)).toEqual([]);
  });
});
