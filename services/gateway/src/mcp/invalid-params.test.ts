import { invalidParamsAnswer } from './invalid-params';

const call = (params: unknown, id: unknown = 7) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

describe('invalidParamsAnswer', () => {
  it.each([
    ['no params', undefined, 'params must be an object'],
    ['array params', ['list_models'], 'params must be an object'],
    ['a numeric tool name', { name: 42 }, 'params.name must be a string (the tool name)'],
    ['no tool name', {}, 'params.name must be a string (the tool name)'],
    ['string arguments', { name: 'list_models', arguments: 'x' }, 'params.arguments must be an object'],
    ['array arguments', { name: 'list_models', arguments: [] }, 'params.arguments must be an object'],
  ])('answers tools/call with %s with -32602 and the request id', (_label, params, problem) => {
    expect(invalidParamsAnswer(call(params))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: `Invalid params: ${problem}` },
    });
  });

  it('answers initialize with a numeric protocol version or no client info with -32602', () => {
    expect(
      invalidParamsAnswer({
        jsonrpc: '2.0',
        id: 'a',
        method: 'initialize',
        params: { protocolVersion: 20250618, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      })?.error.message,
    ).toBe('Invalid params: params.protocolVersion must be a string');
    expect(
      invalidParamsAnswer({
        jsonrpc: '2.0',
        id: 'a',
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {} },
      })?.error.code,
    ).toBe(-32602);
  });

  it('leaves well-formed requests, other methods, notifications and batches to the SDK', () => {
    expect(invalidParamsAnswer(call({ name: 'list_models' }))).toBeNull();
    expect(invalidParamsAnswer(call({ name: 'list_models', arguments: { a: 1 } }))).toBeNull();
    expect(
      invalidParamsAnswer({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
    ).toBeNull();
    expect(invalidParamsAnswer({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'x' })).toBeNull();
    expect(invalidParamsAnswer({ jsonrpc: '2.0', method: 'tools/call', params: 'x' })).toBeNull();
    expect(invalidParamsAnswer([call('x')])).toBeNull();
    // Unstructured params make the message invalid (-32600), which the SDK answers.
    expect(invalidParamsAnswer(call('x'))).toBeNull();
    expect(invalidParamsAnswer(call(null))).toBeNull();
  });
});
