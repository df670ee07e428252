import { failureSummary } from './failure-summary';

// jest's own output for a failing run of more than 20 files (colours as jest prints them in CI).
const JEST_RUN = `PASS unit libs/a.test.ts
FAIL e2e test-e2e/faults/fault-injection-routes.e2e.test.ts (76.6 s)
  ● Console

    console.log
      a long report
PASS unit libs/b.test.ts
\x1b[1mSummary of all failing tests\x1b[22m
FAIL e2e test-e2e/faults/fault-injection-routes.e2e.test.ts (76.6 s)
  ● the fleet under fire › delivers every webhook once

    expect(received).toEqual(expected) // deep equality

    - Expected  - 1
    + Received  + 4

    - Array []
    + Array [
    +   "event evt_1 has 2 delivered attempts",
    +   "user 2: the stream went on",
    + ]

      3 |     const violations = [];
    > 5 |     expect(violations).toEqual([]);
        |                        ^
      6 |   });

      at Object.toEqual (test-e2e/support/faults/under-fire.ts:5:24)


Test Suites: 1 failed, 277 passed, 278 total
Tests:       1 failed, 5184 passed, 5185 total
Snapshots:   0 total
Time:        1384 s
`;

describe('failureSummary', () => {
  it('names the failing files, then each failed test and its assertion without stack or code frames', () => {
    expect(failureSummary(JEST_RUN)).toEqual([
      'FAIL e2e test-e2e/faults/fault-injection-routes.e2e.test.ts (76.6 s)',
      '  ● the fleet under fire › delivers every webhook once',
      '',
      '    expect(received).toEqual(expected) // deep equality',
      '',
      '    - Expected  - 1',
      '    + Received  + 4',
      '',
      '    - Array []',
      '    + Array [',
      '    +   "event evt_1 has 2 delivered attempts",',
      '    +   "user 2: the stream went on",',
      '    + ]',
      '',
      'Test Suites: 1 failed, 277 passed, 278 total',
      'Tests:       1 failed, 5184 passed, 5185 total',
    ]);
  });

  it('keeps to its line budget and says how much it left out', () => {
    const out = failureSummary(JEST_RUN, 8);
    expect(out).toHaveLength(8);
    expect(out[0]).toMatch(/^FAIL /);
    expect(out[5]).toBe('  ... 9 more lines');
    expect(out.slice(-2)).toEqual([
      'Test Suites: 1 failed, 277 passed, 278 total',
      'Tests:       1 failed, 5184 passed, 5185 total',
    ]);
  });

  it('gives the last lines of a run that failed before jest summarised anything', () => {
    const lint = ['==> format and lint', 'src/a.ts', '  3:1  error  no-unused-vars', 'failed: lint', ''].join('\n');
    expect(failureSummary(lint, 2)).toEqual(['  3:1  error  no-unused-vars', 'failed: lint']);
  });
});
