import { seededRandom } from '@mf/media';
import { drawtextFilter, layoutPrompt, MAX_DRAWN_CHARS, nthSeed, palette } from './render-common';

describe('layoutPrompt', () => {
  it('keeps a short prompt on one line', () => {
    expect(layoutPrompt('a red fox', 1280, 720).text).toBe('a red fox');
  });

  it('turns newlines, tabs and bidi overrides into single spaces', () => {
    expect(layoutPrompt('a\nred\t\tfox\u202eevil\u0000', 1280, 720).text).toBe('a red fox evil');
  });

  it('wraps long prompts at word boundaries within the frame width', () => {
    const layout = layoutPrompt('word '.repeat(40), 480, 854);
    const lines = layout.text.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    const perLine = Math.floor((480 * 0.86) / (layout.fontSize * 0.6));
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(perLine);
    expect(lines[0]).toMatch(/^word( word)*$/);
  });

  it('splits a word longer than a line', () => {
    const lines = layoutPrompt('x'.repeat(100), 480, 480).text.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join('')).toBe('x'.repeat(100));
  });

  it('cuts very long prompts to a few lines ending with an ellipsis', () => {
    const layout = layoutPrompt('lorem ipsum dolor sit amet '.repeat(600), 1280, 720);
    const lines = layout.text.split('\n');
    expect(lines.length).toBe(5);
    expect(layout.text.endsWith('…')).toBe(true);
    expect(Array.from(layout.text).length).toBeLessThanOrEqual(MAX_DRAWN_CHARS + 10);
  });

  it('never splits a surrogate pair', () => {
    const text = layoutPrompt('🦊'.repeat(400), 480, 480).text;
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('gives no text for a prompt of only control characters, and then no drawtext filter', () => {
    const layout = layoutPrompt('\n\t\u0007', 1280, 720);
    expect(layout.text).toBe('');
    expect(drawtextFilter(layout)).toBeNull();
  });
});

describe('drawtextFilter', () => {
  it('reads the text from the prompt file with expansion off', () => {
    const filter = drawtextFilter(layoutPrompt('100% %{pts}', 1280, 720));
    expect(filter).toContain('textfile=prompt.txt');
    expect(filter).toContain('expansion=none');
    expect(filter).not.toContain('%{pts}');
  });

  it('falls back to a fontconfig font when the font file is missing', () => {
    expect(drawtextFilter(layoutPrompt('hi', 64, 64), '/no/such/font.ttf')).toContain('font=Sans');
  });
});

describe('seeded choices', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const seqA = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(seqA);
    expect([c(), c(), c()]).not.toEqual(seqA);
    for (const v of seqA) expect(v >= 0 && v < 1).toBe(true);
  });

  it('makes ffmpeg hex colours', () => {
    for (const colour of palette(seededRandom(7), 4)) expect(colour).toMatch(/^0x[0-9a-f]{6}$/);
  });

  it('numbers output seeds from the request seed, wrapping at 2^32', () => {
    expect(nthSeed(10, 2)).toBe(12);
    expect(nthSeed(4294967295, 1)).toBe(0);
  });
});
