import { progressReader } from '../src/run';

describe("progressReader (ffmpeg's -progress output)", () => {
  it('reports each out_time_us, also across chunks split mid-line, and ignores every other key', () => {
    const seen: number[] = [];
    const read = progressReader((us) => seen.push(us));
    read(Buffer.from('frame=10\nfps=0.0\nout_time_us=41'));
    read(Buffer.from('6666\nout_time=00:00:00.416666\nprogress=continue\n'));
    read(Buffer.from('out_time_us=N/A\nout_time_ms=833333\nprogress=end\n'));
    expect(seen).toEqual([416666, 833333]);
  });
});
