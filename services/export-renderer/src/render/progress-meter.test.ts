import { percentReporter, ProgressMeter } from './progress-meter';

describe('ProgressMeter', () => {
  it('reports the share of frames made, growing only', () => {
    const seen: number[] = [];
    const meter = new ProgressMeter(100, (f) => seen.push(f));
    meter.set('a', 25);
    meter.set('a', 20);
    meter.set('b', 50);
    meter.set('a', 50);
    expect(seen).toEqual([0.25, 0.75, 1]);
  });

  it('counts a timeline without frames as done', () => {
    const seen: number[] = [];
    new ProgressMeter(0, (f) => seen.push(f)).set('a', 1);
    expect(seen).toEqual([1]);
  });
});

describe('percentReporter', () => {
  it('publishes at most one rising percent a second, and the join at once', () => {
    let t = 0;
    const seen: number[] = [];
    const r = percentReporter(
      (p) => seen.push(p),
      () => t,
    );
    r.pictures(0);
    r.pictures(0.5);
    t = 1000;
    r.pictures(0.5);
    r.pictures(0.25);
    r.joined();
    t = 5000;
    r.pictures(1);
    expect(seen).toEqual([2, 46, 95]);
  });
});
