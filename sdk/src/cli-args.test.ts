import { checkFlags, closest, editDistance, parseArgs, UsageError } from './cli-args';

describe('CLI arguments', () => {
  it('reads flags with values, boolean flags and --name=value', () => {
    const p = parseArgs(['generate', 'video', '--prompt', 'a boat', '--wait', '--duration=4']);
    expect(p.positional).toEqual(['generate', 'video']);
    expect([...p.flags]).toEqual([
      ['prompt', 'a boat'],
      ['wait', true],
      ['duration', '4'],
    ]);
  });

  it('keeps a flag followed by another flag valueless, so the next flag is not eaten as its value', () => {
    expect([...parseArgs(['--promt', '--wait']).flags]).toEqual([
      ['promt', true],
      ['wait', true],
    ]);
  });

  it('names an unknown option and the one that was probably meant', () => {
    const p = parseArgs(['generate', 'video', '--promt', 'a boat']);
    expect(() => checkFlags(p, ['prompt', 'duration', 'wait'])).toThrow(
      new UsageError(
        'unknown option --promt (did you mean --prompt?). Options of this command: --prompt, --duration, --wait.',
      ),
    );
  });

  it('suggests nothing when no option is close, and says when a command takes none', () => {
    expect(() => checkFlags(parseArgs(['--colour', 'red']), ['prompt', 'wait'])).toThrow(
      new UsageError('unknown option --colour. Options of this command: --prompt, --wait.'),
    );
    expect(() => checkFlags(parseArgs(['--verbose']), [])).toThrow(
      new UsageError('unknown option --verbose. This command takes no options.'),
    );
  });

  it.each([
    ['promt', 'prompt'],
    ['durration', 'duration'],
    ['duraiton', 'duration'],
    ['aspcet', 'aspect'],
    ['stauts', 'status'],
    ['imag-url', 'image-url'],
    ['jbos', 'jobs'],
    ['dur', 'duration'],
    ['xyz', undefined],
    ['resolution-max', undefined],
  ])('takes --%s for --%s', (typo, meant) => {
    expect(closest(typo, ['prompt', 'duration', 'aspect', 'status', 'image-url', 'jobs', 'job', 'resolution'])).toBe(
      meant,
    );
  });

  it('counts an adjacent swap as one edit', () => {
    expect(editDistance('duraiton', 'duration')).toBe(1);
    expect(editDistance('prompt', 'prompt')).toBe(0);
  });
});
