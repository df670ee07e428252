import { renameReply } from '@mf/contracts';
import { outputJsonSchema } from './schemas';
import { TOOLS } from './tools';

/** Every boolean found where a subschema goes (if, then, else, not, items, ...), by path. */
function booleanSubschemas(node: unknown, at = '#'): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => booleanSubschemas(n, `${at}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) =>
    ['if', 'then', 'else', 'not', 'items', 'contains', 'propertyNames'].includes(k) && typeof v === 'boolean'
      ? [`${at}/${k}`]
      : booleanSubschemas(v, `${at}/${k}`),
  );
}

describe('MCP tool schemas', () => {
  it('spell "project or video, not both" without a bare boolean schema', () => {
    const schema = outputJsonSchema(renameReply);
    expect(schema.then).toEqual({ not: {} });
    expect(booleanSubschemas(schema)).toEqual([]);
  });

  it('hold no bare boolean subschema in any tool output', () => {
    expect(TOOLS.flatMap((t) => booleanSubschemas(outputJsonSchema(t.output), t.name))).toEqual([]);
  });
});
