import { lastStatementRows } from './connection';

describe('simple-query helpers', () => {
  it('answers the rows of the last statement of a multi-statement query', () => {
    expect(lastStatementRows([{ rows: [] }, { rows: [{ id: 1 }] }])).toEqual([{ id: 1 }]);
    expect(lastStatementRows({ rows: [{ id: 2 }] })).toEqual([{ id: 2 }]);
  });
});
