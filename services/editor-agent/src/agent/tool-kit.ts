import type { ToolDefinition } from './llm-client';
import type { ToolSuccess } from './media-delivery';
import type { Args } from './tool-args';
import type { TurnState } from './turn-state';

/** One tool the model may call: what it is told about it, and what runs. */
export interface Tool {
  definition: ToolDefinition;
  run: (state: TurnState, args: Args) => Promise<ToolSuccess>;
}

/** A function tool definition with a closed parameter object. */
export const fn = (
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
): ToolDefinition => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
});
