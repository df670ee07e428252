// jest's order: longest test files first, so that the two workers end together. jest knows each
// file's time only from an earlier run on the same checkout (its cache); a fresh clone has none, and
// jest then orders by file size: short files that take long (a fault-injection file is a few lines
// around a 100 s scenario) would start last and leave one worker running alone at the end.
// EXPECTED holds each long file's time from a whole run on 2 cores (npx jest --json, perfStats; a
// slow day's figures: only the order counts); files not listed follow by size.
// jest loads this file with plain require (no transform): CommonJS.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds per file, from a whole run of the suite; what matters is the order, not the figure. */
const EXPECTED = [
  [/test-e2e\/dashboard\/tour\.e2e\.test/, 70],
  [/test-e2e\/dashboard\/ui\.e2e\.test/, 125],
  [/services\/export-renderer\/test\/export-reuse\.test/, 75],
  [/test-e2e\/safety\/bad-input-surfaces\.e2e\.test/, 111],
  [/test-e2e\/faults\//, 106],
  [/test-e2e\/dashboard\/studio\.e2e\.test/, 98],
  [/test-e2e\/safety\/abuse-limits\.e2e\.test/, 95],
  [/services\/export-renderer\/test\/export-cache\.test/, 88],
  [/test-e2e\/tenants\/webhooks\.e2e\.test/, 86],
  [/test-e2e\/sdk\/package\.e2e\.test/, 76],
  [/test-e2e\/editor\/agent\.e2e\.test/, 72],
  [/test-e2e\/webhooks\/delivery-tools\.e2e\.test/, 71],
  [/scripts\/build\/test\/build\.test/, 70],
  [/test-e2e\/foundation\/start-command\.e2e\.test/, 66],
  [/test-e2e\/jobs\/local-provider\.e2e\.test/, 63],
  [/test-e2e\/safety\/bad-input-bodies\.e2e\.test/, 60],
  [/services\/jobs\/test\/local-renderers\.test/, 59],
  [/test-e2e\/safety\/bad-input-requests\.e2e\.test/, 59],
  [/test-e2e\/editor\/export\.e2e\.test/, 59],
  [/test-e2e\/dashboard\/studio-drag-upload\.e2e\.test/, 57],
  [/test-e2e\/events\/shared-stream-limit\.e2e\.test/, 55],
  [/test-e2e\/events\/events\.e2e\.test/, 53],
  [/test-e2e\/jobs\/provider-routes\.e2e\.test/, 52],
  [/services\/export-renderer\/test\/export-render\.test/, 52],
  [/test-e2e\/jobs\/fal-provider\.e2e\.test/, 51],
  [/test-e2e\/foundation\/api-surface\.e2e\.test/, 50],
  [/services\/jobs\/test\/local-provider\.test/, 50],
  [/test-e2e\/dashboard\/api\.e2e\.test/, 50],
  [/test-e2e\/safety\/money-and-ssrf\.e2e\.test/, 49],
  [/test-e2e\/webhooks\/endpoint-api\.e2e\.test/, 43],
  [/test-e2e\/idempotency\/idempotency\.e2e\.test/, 43],
  [/test-e2e\/billing\/operator-report\.e2e\.test/, 43],
  [/test-e2e\/webhooks\/webhooks\.e2e\.test/, 41],
  [/services\/export-renderer\/test\/export-errors\.test/, 39],
  [/test-e2e\/tenants\/streams\.e2e\.test/, 38],
  [/test-e2e\/dashboard\/getting-started\.e2e\.test/, 36],
  [/test-e2e\/foundation\/resilience\.e2e\.test/, 29],
  [/test-e2e\/jobs\/jobs-list\.e2e\.test/, 29],
  [/services\/export-renderer\/test\/export-stream-copy\.test/, 29],
  [/services\/webhook-dispatcher\/test\/outbound-rpc\.test/, 26],
];

const expectedMs = (path) => {
  const hit = EXPECTED.find(([re]) => re.test(path.split('\\').join('/')));
  return hit ? hit[1] * 1000 : undefined;
};

class LongestFirst extends Sequencer {
  sort(tests) {
    const bySize = super.sort(tests); // jest's order: failed first, then its timings, then size
    const rank = new Map(bySize.map((t, i) => [t, i]));
    // A time for every file jest has none for but this list has; jest's own (this checkout's) wins.
    const ms = (t) => this.time(t) ?? expectedMs(t.path);
    return [...bySize].sort((a, b) => {
      const failed = Number(this.hasFailed(b)) - Number(this.hasFailed(a));
      if (failed) return failed;
      const [ta, tb] = [ms(a), ms(b)];
      if (ta !== undefined && tb !== undefined) return tb - ta;
      if (ta !== undefined || tb !== undefined) return ta !== undefined ? -1 : 1;
      return rank.get(a) - rank.get(b);
    });
  }
}

module.exports = LongestFirst;
