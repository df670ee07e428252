import { arrayLiteral, inlineArrays, scalarLiteral } from './sql-literal';

describe('SQL literals of the batch queries', () => {
  it('refuses a string with a NUL (quoting itself is @mf/db sqlString, tested there)', () => {
    expect(() => scalarLiteral('job:bad\u0000')).toThrow('NUL');
  });

  it('writes integers, booleans and NULL bare, and refuses numbers that are not safe integers', () => {
    expect([scalarLiteral(42), scalarLiteral(-1), scalarLiteral(true), scalarLiteral(null)]).toEqual([
      '42',
      '-1',
      'TRUE',
      'NULL',
    ]);
    for (const n of [1.5, Number.NaN, Infinity, 2 ** 60]) expect(() => scalarLiteral(n)).toThrow('not an integer');
  });

  it('types every array, the empty one too, and only with the types the batch uses', () => {
    expect(arrayLiteral([], 'bigint')).toBe('ARRAY[]::bigint[]');
    expect(arrayLiteral(['a', null], 'text')).toBe("ARRAY['a',NULL]::text[]");
    expect(() => arrayLiteral([1], 'bigint[]; DROP TABLE x')).toThrow('unsupported array type');
  });

  it('fills the placeholders in order, leaving a ? inside a value alone', () => {
    expect(inlineArrays('SELECT f(?::text[], ?::bigint[])', [['a?b'], [1, 2]])).toBe(
      "SELECT f(ARRAY['a?b']::text[], ARRAY[1,2]::bigint[])",
    );
    expect(() => inlineArrays('SELECT f(?::text[])', [])).toThrow('differ in number');
  });
});
