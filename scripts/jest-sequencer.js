// jest's order, with the longest test files first where it has no timings of its own (a fresh
// clone): jest then orders by file size, and the fault-injection files, a few lines each around a
// 100 s scenario, would start last and leave one worker running alone at the end.
// jest loads this file with plain require (no transform): CommonJS.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('@jest/test-sequencer').default;

/** Files that take far longer than their size suggests, in the order they should start. */
const LONG = [/test-e2e\/faults\//];

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const long = (t) => LONG.some((re) => re.test(t.path));
    return [...sorted.filter(long), ...sorted.filter((t) => !long(t))];
  }
}

module.exports = LongestFirst;
