import { parseArgs, UsageError } from './cli-args';
import { webhookCommand } from './cli-webhook';

/** A client.webhook that records what each action was asked. */
function recorder() {
  const calls: Array<[string, unknown]> = [];
  const webhook = {
    set: async (params: unknown) => (calls.push(['set', params]), { saved: true }),
    get: async () => (calls.push(['get', undefined]), { url: 'https://hooks.example.com/a' }),
    delete: async () => (calls.push(['delete', undefined]), { deleted: true as const }),
    rotateSecret: async (hours?: number) => (calls.push(['rotateSecret', hours]), { rotated: true }),
  };
  return { calls, webhook: webhook as unknown as Parameters<typeof webhookCommand>[0] };
}

describe('mediaforge webhook', () => {
  it('sets the endpoint with only the options given', async () => {
    const r = recorder();
    await webhookCommand(r.webhook, parseArgs(['webhook', 'set', 'https://hooks.example.com/a']));
    await webhookCommand(
      r.webhook,
      parseArgs([
        'webhook',
        'set',
        'https://hooks.example.com/b',
        '--events',
        'job.completed,job.failed',
        '--scheme',
        'standard',
      ]),
    );
    expect(r.calls).toEqual([
      ['set', { url: 'https://hooks.example.com/a' }],
      [
        'set',
        { url: 'https://hooks.example.com/b', events: ['job.completed', 'job.failed'], signature_scheme: 'standard' },
      ],
    ]);
  });

  it('reads, deletes and rotates (the overlap left to the server unless given)', async () => {
    const r = recorder();
    expect(await webhookCommand(r.webhook, parseArgs(['webhook', 'get']))).toEqual({
      url: 'https://hooks.example.com/a',
    });
    expect(await webhookCommand(r.webhook, parseArgs(['webhook', 'delete']))).toEqual({ deleted: true });
    await webhookCommand(r.webhook, parseArgs(['webhook', 'rotate']));
    await webhookCommand(r.webhook, parseArgs(['webhook', 'rotate', '--overlap-hours', '0']));
    expect(r.calls.map(([name, arg]) => [name, arg])).toEqual([
      ['get', undefined],
      ['delete', undefined],
      ['rotateSecret', undefined],
      ['rotateSecret', 0],
    ]);
  });

  it('refuses a missing url, an unknown action and a flag of another action, calling nothing', async () => {
    const r = recorder();
    await expect(webhookCommand(r.webhook, parseArgs(['webhook', 'set']))).rejects.toThrow('webhook set <url>');
    await expect(webhookCommand(r.webhook, parseArgs(['webhook', 'rotat']))).rejects.toThrow(/did you mean rotate/);
    await expect(
      webhookCommand(r.webhook, parseArgs(['webhook', 'get', '--overlap-hours', '1'])),
    ).rejects.toBeInstanceOf(UsageError);
    expect(r.calls).toEqual([]);
  });
});
