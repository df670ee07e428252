import { toJsonSchema, validateValue } from '@mf/contracts';
import { given, ToolError, type Args } from './tool-args';

/**
 * Tool arguments that are fields of the contract: their JSON Schema (type, enum, limits) is the
 * field's own, with the tool's wording for the model, and a value is checked by the same schema,
 * its message going back to the model. The agent restates no limit of the public API.
 */
type FieldSchema = Parameters<typeof toJsonSchema>[0];

export function contractArg(field: FieldSchema, description: string): Record<string, unknown> {
  // The API's default is not the tool's (an omitted aspect ratio is the project's): the wording says it.
  const { default: _apiDefault, ...schema } = toJsonSchema(field, {}, { nullMeansAbsent: false });
  return { ...schema, description };
}

/** An argument checked by its contract field: undefined when an optional one is not given. */
export function contractValue<T>(args: Args, name: string, field: FieldSchema): T | undefined {
  const value = args[name];
  if (!given(value) && field.$_getFlag('presence') !== 'required') return undefined;
  const checked = validateValue<T>(field as Parameters<typeof validateValue<T>>[0], value ?? undefined);
  if (!checked.ok) throw new ToolError(checked.error);
  return checked.value;
}
