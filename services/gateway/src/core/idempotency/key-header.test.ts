import { idempotencyKeyOf } from './key-header';
import { leaseFor } from './lease';

describe('idempotencyKeyOf', () => {
  it('is null without the header (no idempotency, behaviour unchanged)', () => {
    expect(idempotencyKeyOf(undefined)).toBeNull();
  });

  it('accepts 1 to 255 characters', () => {
    expect(idempotencyKeyOf('a')).toBe('a');
    expect(idempotencyKeyOf('k'.repeat(255))).toBe('k'.repeat(255));
    expect(idempotencyKeyOf('0b9e2c1e-5d1a-4a35-9a3e-7f2c4d8e9b10')).toBe('0b9e2c1e-5d1a-4a35-9a3e-7f2c4d8e9b10');
  });

  it.each([[''], ['k'.repeat(256)]])('refuses %j with a 400 naming the rule', (header) => {
    expect(() => idempotencyKeyOf(header)).toThrow(
      expect.objectContaining({ kind: 'invalid', body: { error: 'Idempotency-Key must be 1-255 characters' } }),
    );
  });
});

describe('leaseFor', () => {
  const t = { submitTimeoutMs: 60_000, instructTimeoutMs: 900_000, exportTimeoutMs: 720_000, importTimeoutMs: 120_000 };

  it("outlasts each slow route's own time limit", () => {
    expect(leaseFor('/video/vidgen-2/generate', t)).toBeGreaterThan(60_000);
    expect(leaseFor('/image/imagegen/generate', t)).toBe(leaseFor('/video/vidgen-2/generate', t));
    expect(leaseFor('/media-studio/projects/prj_1/instruct', t)).toBeGreaterThan(900_000);
    expect(leaseFor('/media-studio/projects/prj_1/export', t)).toBeGreaterThan(720_000);
    expect(leaseFor('/media-studio/projects/prj_1/assets', t)).toBeGreaterThan(120_000);
  });

  it('gives every other POST a minute and a margin', () => {
    expect(leaseFor('/media-studio/projects', t)).toBe(90_000);
    expect(leaseFor('/media-studio/projects/prj_1/clips', t)).toBe(90_000);
  });
});
