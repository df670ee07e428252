import { isValidKey, isValidPrefix, MAX_KEY_LENGTH } from './keys';

describe('isValidKey', () => {
  it.each([
    'a',
    'jobs/job_abc/video.mp4',
    'A-Z_0.9/x',
    '.hidden',
    'a/b/c/d/e/f',
    'file.tar.gz',
    'x'.repeat(MAX_KEY_LENGTH),
  ])('accepts %j', (key) => {
    expect(isValidKey(key)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['parent segment', '../x'],
    ['parent segment inside', 'a/../b'],
    ['a double dot anywhere', 'a..b'],
    ['a dot segment', 'a/./b'],
    ['a lone dot', '.'],
    ['absolute', '/abs'],
    ['trailing slash', 'a/'],
    ['empty segment', 'a//b'],
    ['space', 'with space'],
    ['backslash', 'a\\b'],
    ['percent escape', 'a%2Fb'],
    ['non-ASCII', 'vidéo.mp4'],
    ['NUL', 'a\u0000b'],
    ['newline', 'a\nb'],
    ['over 512 characters', 'x'.repeat(MAX_KEY_LENGTH + 1)],
  ])('rejects a key with %s', (_what, key) => {
    expect(isValidKey(key)).toBe(false);
  });

  it('rejects non-strings that slip past the types', () => {
    expect(isValidKey(undefined as unknown as string)).toBe(false);
    expect(isValidKey(42 as unknown as string)).toBe(false);
  });
});

describe('isValidPrefix', () => {
  it.each(['jobs/job_abc/', 'jobs/job_a', 'jobs/', 'a'])('accepts %j', (prefix) => {
    expect(isValidPrefix(prefix)).toBe(true);
  });

  it.each(['', '/', '/jobs/', 'jobs//', '../', 'a/../', 'jobs/a b/'])('rejects %j', (prefix) => {
    expect(isValidPrefix(prefix)).toBe(false);
  });
});
