/**
 * JSON-RPC's "Invalid params" (-32602) for the two methods whose params the MCP SDK would otherwise
 * reject as "Internal error" (-32603): `tools/call` and `initialize`. A client that sent a wrong
 * shape should be told its request was wrong, not that the server failed.
 */
export interface InvalidParamsAnswer {
  jsonrpc: '2.0';
  id: string | number;
  error: { code: -32602; message: string };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with the params of `method`, or null when they have the shape the method needs. */
export function paramsProblem(method: string, params: unknown): string | null {
  if (method === 'tools/call') {
    if (!isObject(params)) return 'params must be an object';
    if (typeof params.name !== 'string') return 'params.name must be a string (the tool name)';
    if (params.arguments !== undefined && !isObject(params.arguments)) return 'params.arguments must be an object';
    return null;
  }
  if (method === 'initialize') {
    if (!isObject(params)) return 'params must be an object';
    if (typeof params.protocolVersion !== 'string') return 'params.protocolVersion must be a string';
    if (!isObject(params.capabilities)) return 'params.capabilities must be an object';
    if (
      !isObject(params.clientInfo) ||
      typeof params.clientInfo.name !== 'string' ||
      typeof params.clientInfo.version !== 'string'
    )
      return 'params.clientInfo must be an object with a string name and version';
    return null;
  }
  return null;
}

/**
 * The answer for a single JSON-RPC request (not a notification, not a batch) whose params are
 * malformed; null when the SDK should handle the message.
 */
export function invalidParamsAnswer(body: unknown): InvalidParamsAnswer | null {
  if (!isObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') return null;
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return null;
  // Params that are not structured at all make the message itself invalid (-32600): the SDK says so.
  if (body.params !== undefined && (typeof body.params !== 'object' || body.params === null)) return null;
  const problem = paramsProblem(body.method, body.params);
  return problem === null
    ? null
    : { jsonrpc: '2.0', id: body.id, error: { code: -32602, message: `Invalid params: ${problem}` } };
}
