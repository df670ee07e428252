import type { Scope } from '@mf/contracts';
import { EDITOR_OPERATIONS } from './editor.operations';
import { EVENT_OPERATIONS } from './event.operations';
import { ESTIMATE_OPERATIONS, JOB_OPERATIONS } from './jobs.operations';
import type { Operation } from './operation';
import { USAGE_OPERATIONS } from './usage.operations';
import { WEBHOOK_OPERATIONS } from './webhook.operations';

/**
 * Every public operation of /api/v1, in the order of the OpenAPI document. The router
 * (api/operations.router.ts), the document's paths (api/openapi/document.ts), the scope checks and
 * the SDK's client (sdk/src/generated/operations.ts) are made from it; each operation's use case is
 * bound by id in api/operations.handlers.ts. docs/openapi.md says how to add one.
 */
export const OPERATIONS = [
  ...JOB_OPERATIONS,
  ...EDITOR_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...ESTIMATE_OPERATIONS,
  ...EVENT_OPERATIONS,
  ...USAGE_OPERATIONS,
] as const satisfies readonly Operation[];

export type OperationId = (typeof OPERATIONS)[number]['id'];

const byId = new Map<string, Operation>(OPERATIONS.map((o) => [o.id, o]));

/** The operation of an id (the table's entry). */
export function operation(id: OperationId): Operation {
  return byId.get(id)!;
}

/** The scope an operation needs: its use case checks it for every caller (REST, MCP, the dashboard). */
export function scopeOf(id: OperationId): Scope {
  const { scope } = operation(id);
  if (!scope) throw new Error(`operation ${id} needs no scope`);
  return scope;
}
