import { sqlInteger, sqlString } from './literals';

describe('SQL literals of simple queries', () => {
  it('inlines safe integers and refuses anything else', () => {
    expect(sqlInteger(42)).toBe('42');
    expect(sqlInteger(-7)).toBe('-7');
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1; DROP TABLE x' as unknown as number])
      expect(() => sqlInteger(bad)).toThrow(TypeError);
  });

  it('doubles quotes, and doubles backslashes in an E string only when there are any', () => {
    expect(sqlString("job:o'brien")).toBe("'job:o''brien'");
    expect(sqlString('job:a\\b')).toBe(" E'job:a\\\\b'");
    expect(sqlString("x\\'; DROP TABLE ledger; --")).toBe(" E'x\\\\''; DROP TABLE ledger; --'");
  });

  it('refuses a string with a NUL, which would cut the query text short', () => {
    expect(() => sqlString('job:bad\u0000')).toThrow('NUL');
  });
});
