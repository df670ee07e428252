import { billingRpc } from '@mf/contracts';
import { sweepStuckSubmits } from '../src/usecases/sweep.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { startHarness, type Harness } from './support/jobs-harness';
import { startRealBilling, type RealBilling } from './support/real-billing';

// Jobs against billing itself (not the fake): the rules that are billing's, as jobs meets them.
describe('jobs with the real billing service', () => {
  let h: Harness;
  let billing: RealBilling;
  let user = 5000;
  let key = 700;

  beforeAll(async () => {
    h = await startHarness({ fakeBilling: false });
    billing = await startRealBilling(h.env);
  });
  afterAll(async () => {
    await billing?.close();
    await h?.close();
  });
  beforeEach(() => {
    h.provider.next = () => ({ state: 'running' });
    h.provider.submitError = null;
  });

  const newUser = async (credits: number): Promise<{ user: number; key: number }> => {
    user++;
    key++;
    await billing.grant(user, credits);
    return { user, key };
  };
  const image = (u: { user: number; key: number }, prompt = 'p') => ({
    user_id: u.user,
    api_key_id: u.key,
    type: 'image' as const,
    params: { prompt, image_urls: [], num_images: 1 as const, aspect_ratio: '1:1' as const, seed: 1 },
  });
  const jobsOf = async (u: { user: number }) => (await h.db('jobs').where({ user_id: u.user })).length;
  const charges = async (u: { user: number }) => (await billing.ledger(u.user)).filter((e) => e.kind === 'charge');

  it('charges once for two submits of one idempotency key arriving together', async () => {
    const u = await newUser(500);
    const idempotency = { key: 'r'.repeat(64), window_hours: 24 };
    const answers = await Promise.allSettled([
      submitJob(h.ctx, { ...image(u, 'together'), idempotency }),
      submitJob(h.ctx, { ...image(u, 'together'), idempotency }),
    ]);
    expect(answers.some((a) => a.status === 'fulfilled')).toBe(true);
    expect(await jobsOf(u)).toBe(1);
    expect(await charges(u)).toHaveLength(1);
    expect(await billing.balance(u.user)).toBe(450);
  });

  it("refuses a submit past the key's concurrent-jobs limit, leaving no job and no charge", async () => {
    const u = await newUser(500);
    await billing.setKeyLimits({ user_id: u.user, api_key_id: u.key, spend_limit: null, max_concurrent_jobs: 1 });
    await submitJob(h.ctx, image(u, 'first'));
    await expect(submitJob(h.ctx, image(u, 'second'))).rejects.toMatchObject({
      body: { error: 'Too many concurrent jobs for this API key', retry_after: 5 },
    });
    expect(await jobsOf(u)).toBe(1);
    expect(await charges(u)).toHaveLength(1);
    expect(await billing.balance(u.user)).toBe(450);
  });

  it("refuses a submit past the key's spend limit with what it needs and what the key has left", async () => {
    const u = await newUser(500);
    await billing.setKeyLimits({ user_id: u.user, api_key_id: u.key, spend_limit: 80, max_concurrent_jobs: null });
    await submitJob(h.ctx, image(u, 'within'));
    await expect(submitJob(h.ctx, image(u, 'beyond'))).rejects.toMatchObject({
      body: { error: 'Spend limit of this API key reached', credits_required: 50, credits_remaining: 30 },
    });
    expect(await jobsOf(u)).toBe(1);
    expect(await billing.balance(u.user)).toBe(450);
  });

  const stuckSubmit = (u: { user: number; key: number }, id: string) =>
    h.db('jobs').insert({
      id,
      user_id: u.user,
      api_key_id: u.key,
      type: 'image',
      model_id: 'imagegen-2',
      upstream_model: 'fal-ai/imagegen-2',
      params: JSON.stringify(image(u).params),
      cost: 50,
      status: 'submitting',
      provider: 'local',
      deadline_at: new Date(Date.now() + 60_000),
      created_at: new Date(Date.now() - 10_000),
    });
  const charge = (u: { user: number }, reference: string) =>
    h.bus.rpc(billingRpc, 'charge', { user_id: u.user, reference, amount: 50 });

  it('refunds a stuck submit to the user it charged, once; a retry of that charge is answered as made, charging nothing', async () => {
    const u = await newUser(100);
    const other = await newUser(100);
    await stuckSubmit(u, 'job_realstuck1');
    await charge(u, 'job:job_realstuck1'); // landed before the crash
    expect(await billing.balance(u.user)).toBe(50);

    expect(await sweepStuckSubmits(h.ctx, 5000)).toBe(1);
    expect(await sweepStuckSubmits(h.ctx, 5000)).toBe(0);
    expect(await billing.balance(u.user)).toBe(100);
    expect((await billing.ledger(u.user)).map((e) => e.kind)).toEqual(['grant', 'charge', 'refund']);
    await expect(charge(u, 'job:job_realstuck1')).resolves.toMatchObject({ duplicate: true });
    await expect(
      h.bus.rpc(billingRpc, 'refund', { user_id: other.user, reference: 'job:job_realstuck1' }),
    ).rejects.toMatchObject({ body: { error: 'reference job:job_realstuck1 belongs to another user' } });
    expect(await billing.balance(u.user)).toBe(100);
    expect(await billing.balance(other.user)).toBe(100);
  });

  it('closes the reference of a stuck submit whose charge never arrived: the late charge is refused', async () => {
    const u = await newUser(100);
    await stuckSubmit(u, 'job_realstuck2');
    expect(await sweepStuckSubmits(h.ctx, 5000)).toBe(1);
    await expect(charge(u, 'job:job_realstuck2')).rejects.toMatchObject({
      body: { error: 'reference job:job_realstuck2 is closed (already refunded)' },
    });
    expect(await billing.balance(u.user)).toBe(100);
    expect((await billing.ledger(u.user)).filter((e) => e.kind === 'charge')).toEqual([]);
  });
});
