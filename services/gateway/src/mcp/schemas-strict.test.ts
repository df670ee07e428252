import { startEndpoint, type Endpoint } from '../../test/support/mcp-endpoint';
import { strictProblems } from '../../test/support/strict-schemas';

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
