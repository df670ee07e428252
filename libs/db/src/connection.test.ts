import { lastStatementRows, sqlInteger } from './connection';

describe('simple-query helpers', () => {
  it('inlines safe integers and refuses anything else', () => {
    expect(sqlInteger(42)).toBe('42');
    expect(sqlInteger(-7)).toBe('-7');
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1; DROP TABLE x' as unknown as number])
      expect(() => sqlInteger(bad)).toThrow(TypeError);
  });

  it('answers the rows of the last statement of a multi-statement query', () => {
    expect(lastStatementRows([{ rows: [] }, { rows: [{ id: 1 }] }])).toEqual([{ id: 1 }]);
    expect(lastStatementRows({ rows: [{ id: 2 }] })).toEqual([{ id: 2 }]);
  });
});
