import { StatusCallBudget, statusCallLimits } from './status-call-budget';

describe('StatusCallBudget', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('gives a provider at most its limit in any one-second window, sliding', () => {
    const b = new StatusCallBudget(new Map([['fal', 3]]), clock);
    expect(b.available('fal')).toBe(3);
    expect(b.reserve('fal', 2).n).toBe(2);
    now += 400;
    expect(b.reserve('fal', 5).n).toBe(1);
    expect(b.available('fal')).toBe(0);
    // The first two leave the window a second after they were made, the third 400 ms later.
    expect(b.msUntilAvailable('fal')).toBe(600);
    expect(b.msUntilNextFrees()).toBe(600);
    now += 599;
    expect(b.available('fal')).toBe(0);
    now += 1;
    expect(b.available('fal')).toBe(2);
    expect(b.msUntilNextFrees()).toBeNull();
    now += 400;
    expect(b.available('fal')).toBe(3);
  });

  it('never limits a provider without a limit', () => {
    const b = new StatusCallBudget(new Map([['fal', 1]]), clock);
    expect(b.reserve('local', 1000).n).toBe(1000);
    expect(b.available('local')).toBe(Infinity);
    expect(b.msUntilAvailable('local')).toBe(0);
    expect(b.limited()).toEqual(['fal']);
  });

  it('keeps the slots a reservation used, counted from when it settles, and gives back the rest', () => {
    const b = new StatusCallBudget(new Map([['fal', 4]]), clock);
    const first = b.reserve('fal', 2);
    now += 100;
    const second = b.reserve('fal', 2);
    expect(b.available('fal')).toBe(0);
    now += 400;
    // The first reservation used one slot, from now; the second one's slots stay as they were.
    b.settle('fal', first, 1);
    expect(b.available('fal')).toBe(1);
    now += 600; // the second's slots (taken 1000 ms ago) leave; the first's kept one stays
    expect(b.available('fal')).toBe(3);
    now += 400;
    expect(b.available('fal')).toBe(4);
    b.settle('fal', second, 0);
    expect(b.available('fal')).toBe(4);
  });

  it("paced, lets out one round at a time, each after the previous round's share of the second", () => {
    const b = new StatusCallBudget(new Map([['fal', 200]]), clock, { roundSize: 20, marginMs: 50 });
    expect(b.reserve('fal', 50).n).toBe(20);
    // 20 calls are a tenth of the second at 200 a second: the next round waits 100 ms.
    expect(b.available('fal')).toBe(0);
    expect(b.msUntilAvailable('fal')).toBe(100);
    now += 99;
    expect(b.reserve('fal', 20).n).toBe(0);
    now += 1;
    const second = b.reserve('fal', 20);
    expect(second.n).toBe(20);
    now += 30;
    // A round that polled 5 of its 20 holds the next back for those 5 only, from when it settled.
    b.settle('fal', second, 5);
    expect(b.msUntilAvailable('fal')).toBe(25);
    now += 25;
    const third = b.reserve('fal', 20);
    // A round that found nothing to poll holds nothing back.
    b.settle('fal', third, 0);
    expect(b.msUntilAvailable('fal')).toBe(0);
    expect(b.msUntilNextFrees()).toBeNull();
  });

  it('paced, keeps the limit over a window a margin longer than a second', () => {
    const b = new StatusCallBudget(new Map([['fal', 40]]), clock, { roundSize: 20, marginMs: 50 });
    const start = now;
    expect(b.reserve('fal', 20).n).toBe(20);
    now += 500;
    expect(b.reserve('fal', 20).n).toBe(20);
    now = start + 1000;
    // Out of pace's wait, but the first round is still in the 1,050 ms window.
    expect(b.available('fal')).toBe(0);
    expect(b.msUntilAvailable('fal')).toBe(50);
    now = start + 1050;
    expect(b.reserve('fal', 20).n).toBe(20);
  });

  it('says when a provider a reservation came up short of has a call again, until one gets all it wanted', () => {
    const b = new StatusCallBudget(new Map([['fal', 200]]), clock, { roundSize: 20, marginMs: 50 });
    expect(b.msUntilWanted()).toBeNull();
    b.reserve('fal', 20);
    expect(b.msUntilWanted()).toBeNull();
    now += 40;
    // Held back by the pace: wanted again when the pace lets it, and still at once once it has.
    expect(b.reserve('fal', 20).n).toBe(0);
    expect(b.msUntilWanted()).toBe(60);
    now += 60;
    expect(b.msUntilWanted()).toBe(0);
    expect(b.reserve('fal', 20).n).toBe(20);
    expect(b.msUntilWanted()).toBeNull();
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new StatusCallBudget(new Map([['fal', 0]]))).toThrow('fal');
  });

  it('limits every upstream provider, with its own value or the fallback; local never, 0 means none', () => {
    const specs = [
      { name: 'fal', type: 'fal' },
      { name: 'rep', type: 'replicate', statusCallsPerSecond: 50 },
      { name: 'local', type: 'local', statusCallsPerSecond: 5 },
    ];
    expect([...statusCallLimits(specs, 100)]).toEqual([
      ['fal', 100],
      ['rep', 50],
    ]);
    expect([...statusCallLimits(specs, 0)]).toEqual([['rep', 50]]);
  });
});
