import Ajv2020 from 'ajv/dist/2020';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A tool's schemas as tools/list answers them, checked strictly (the check a strict client applies):
 * valid against the JSON Schema 2020-12 meta-schema, compiled by Ajv in strict mode (no unknown
 * keywords, no ambiguous types or tuples, required properties defined), an object at its root.
 * Answers the problems found, none when it passes.
 */
export function strictProblems(tool: Pick<Tool, 'name' | 'inputSchema' | 'outputSchema'>): string[] {
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
