import {
  hostileJsonProblem,
  isValidUtf8,
  MAX_JSON_DEPTH,
  nestedDeeperThan,
  textProblem,
  TOO_DEEP_MESSAGE,
} from './hostile-input';

describe('textProblem', () => {
  it.each([
    ['plain text'],
    ['tab\tnew line\ncarriage return\r'],
    ['émoji 🎬 and 中文'],
    [''],
    ["' OR 1=1 --"],
    ['\u0080\u009f (C1 controls are text)'],
  ])('accepts %j', (s) => {
    expect(textProblem(s)).toBeNull();
  });

  it.each([
    ['a\u0000b'],
    ['\u0001'],
    ['bell\u0007'],
    ['escape\u001b[31m'],
    ['vertical\u000btab'],
    ['form\u000cfeed'],
    ['\u001f'],
    ['delete\u007f'],
  ])('finds a control character in %j', (s) => {
    expect(textProblem(s)).toBe('control character');
  });

  it.each([['\ud800'], ['a\udc00b'], ['\udbff\udbff'], ['x\ud83d']])('finds an unpaired surrogate in %j', (s) => {
    expect(textProblem(s)).toBe('unpaired surrogate');
  });

  it('accepts a surrogate pair', () => {
    expect(textProblem('\ud83c\udfac')).toBeNull();
  });
});

describe('hostileJsonProblem', () => {
  it('finds nothing in an ordinary body', () => {
    expect(
      hostileJsonProblem({
        prompt: 'a cat\non a mat',
        image_urls: ['https://x.test/a.png'],
        num_images: 2,
        fast: false,
        seed: null,
      }),
    ).toBeNull();
  });

  it.each([[null], [undefined], [42], [true], ['text'], [[]], [{}]])('finds nothing in %p', (value) => {
    expect(hostileJsonProblem(value)).toBeNull();
  });

  it('names the field holding a NUL', () => {
    expect(hostileJsonProblem({ prompt: 'a\u0000' })).toBe('prompt must not contain control characters');
  });

  it('names an array item and a nested field by their path', () => {
    expect(hostileJsonProblem({ image_urls: ['https://ok.test/a.png', 'https://x.test/\u0000'] })).toBe(
      'image_urls[1] must not contain control characters',
    );
    expect(hostileJsonProblem({ params: { arguments: { name: 'x\u001b' } } })).toBe(
      'params.arguments.name must not contain control characters',
    );
  });

  it('reports the first offending field in document order', () => {
    expect(hostileJsonProblem({ a: 'ok', b: '\u0000', c: '\u0001' })).toBe('b must not contain control characters');
  });

  it('names an unpaired surrogate', () => {
    expect(hostileJsonProblem({ name: 'x\ud800' })).toBe('name must be valid Unicode text (unpaired surrogate)');
  });

  it('checks field names too, without quoting them', () => {
    expect(hostileJsonProblem({ 'a\u0000': 1 })).toBe('field names must not contain control characters');
  });

  it('names a bare string by the root name', () => {
    expect(hostileJsonProblem('\u0000')).toBe('request body must not contain control characters');
    expect(hostileJsonProblem({ video_id: ['\u0000'] }, 'query')).toBe(
      'video_id[0] must not contain control characters',
    );
  });

  it('accepts nesting up to the limit and refuses one level more', () => {
    const nest = (levels: number): unknown => {
      let v: unknown = 'leaf';
      for (let i = 0; i < levels; i++) v = i % 2 ? { a: v } : [v];
      return v;
    };
    expect(hostileJsonProblem(nest(MAX_JSON_DEPTH))).toBeNull();
    expect(hostileJsonProblem(nest(MAX_JSON_DEPTH + 1))).toBe(TOO_DEEP_MESSAGE);
  });

  it('refuses 500,000 levels of nesting without overflowing the stack', () => {
    const n = 500_000;
    const value: unknown = JSON.parse('['.repeat(n) + ']'.repeat(n));
    expect(hostileJsonProblem(value)).toBe(TOO_DEEP_MESSAGE);
  });

  it('cuts a long path short in the message', () => {
    const key = 'k'.repeat(64);
    let v: unknown = '\u0000';
    for (let i = 0; i < 10; i++) v = { [key]: v };
    const message = hostileJsonProblem(v)!;
    expect(message.length).toBeLessThan(300);
    expect(message).toMatch(/^k+(\.k+)*\.\.\. must not contain control characters$/);
  });
});

describe('isValidUtf8', () => {
  it('accepts UTF-8 and refuses stray bytes, overlong forms and encoded surrogates', () => {
    expect(isValidUtf8(Buffer.from('{"prompt":"émoji 🎬"}'))).toBe(true);
    expect(isValidUtf8(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toBe(false);
    expect(isValidUtf8(Buffer.from([0xc0, 0xaf]))).toBe(false); // overlong '/'
    expect(isValidUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBe(false); // U+D800 encoded
    expect(isValidUtf8(Buffer.from([0xe2, 0x82]))).toBe(false); // truncated sequence
  });
});

describe('nestedDeeperThan (raw JSON bytes, before parsing)', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  const nest = (levels: number) => `${'[{"a":'.repeat(levels / 2)}1${'}]'.repeat(levels / 2)}`;

  it('counts arrays and objects alike: 64 levels pass, 65 do not', () => {
    expect(nestedDeeperThan(bytes(nest(MAX_JSON_DEPTH)))).toBe(false);
    expect(nestedDeeperThan(bytes(`[${nest(MAX_JSON_DEPTH)}]`))).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = `{"p":"${'['.repeat(200)}\\"${'{'.repeat(200)}","q":[1]}`;
    expect(JSON.parse(text)).toHaveProperty('q', [1]);
    expect(nestedDeeperThan(bytes(text))).toBe(false);
  });

  it('sees nesting that follows a string ending in an escaped backslash', () => {
    const text = `{"p":"a\\\\",${'"q":['.repeat(1)}${'['.repeat(70)}${']'.repeat(71)}}`;
    expect(nestedDeeperThan(bytes(text))).toBe(true);
  });

  it('refuses 300,000 open brackets whether or not they are ever closed', () => {
    expect(nestedDeeperThan(bytes('['.repeat(300_000)))).toBe(true);
    expect(nestedDeeperThan(bytes('['.repeat(300_000) + ']'.repeat(300_000)))).toBe(true);
  });

  it('agrees with the check of the parsed value', () => {
    for (const levels of [1, 2, 63, 64, 65, 66, 100]) {
      const text = `${'['.repeat(levels)}"x"${']'.repeat(levels)}`;
      expect([levels, nestedDeeperThan(bytes(text))]).toEqual([
        levels,
        hostileJsonProblem(JSON.parse(text)) === TOO_DEEP_MESSAGE,
      ]);
    }
  });
});
