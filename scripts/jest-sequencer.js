// jest's order: longest test files first, so that the two workers end together. jest knows each
// file's time only from an earlier run on the same checkout (its cache); a fresh clone has none, and
// jest then orders by file size: short files that take long (a fault-injection file is a few lines
// around a 100 s scenario) would start last and leave one worker running alone at the end.
// EXPECTED holds each long file's time as measured on 2 cores (npx jest --json, perfStats); files
// not listed (all under ~10 s) follow by size.
// jest loads this file with plain require (no transform): CommonJS.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds per file, from a whole run of the suite; what matters is the order, not the figure. */
const EXPECTED = [
  [/test-e2e\/faults\//, 92],
  [/test-e2e\/dashboard\/tour\.e2e\.test/, 54],
  [/test-e2e\/safety\/bad-input-surfaces\.e2e\.test/, 44],
  [/test-e2e\/foundation\/start-command\.e2e\.test/, 42],
  [/test-e2e\/events\/events\.e2e\.test/, 41],
  [/test-e2e\/safety\/bad-input-bodies\.e2e\.test/, 40],
  [/services\/jobs\/test\/local-renderers\.test/, 39],
  [/test-e2e\/sdk\/package\.e2e\.test/, 36],
  [/services\/export-renderer\/test\/export-reuse\.test/, 34],
  [/services\/jobs\/test\/local-provider\.test/, 33],
  [/test-e2e\/foundation\/api-surface\.e2e\.test/, 33],
  [/test-e2e\/dashboard\/studio\.e2e\.test/, 33],
  [/test-e2e\/dashboard\/ui\.e2e\.test/, 30],
  [/test-e2e\/jobs\/local-provider\.e2e\.test/, 28],
  [/test-e2e\/tenants\/webhooks\.e2e\.test/, 27],
  [/test-e2e\/jobs\/provider-routes\.e2e\.test/, 24],
  [/test-e2e\/safety\/abuse-limits\.e2e\.test/, 24],
  [/services\/webhook-dispatcher\/test\/outbound-rpc\.test/, 22],
  [/test-e2e\/safety\/bad-input-requests\.e2e\.test/, 22],
  [/test-e2e\/webhooks\/delivery-tools\.e2e\.test/, 21],
  [/test-e2e\/editor\/agent\.e2e\.test/, 20],
  [/test-e2e\/editor\/export\.e2e\.test/, 19],
  [/scripts\/build\/test\/build\.test/, 18],
  [/test-e2e\/safety\/money-and-ssrf\.e2e\.test/, 18],
  [/test-e2e\/dashboard\/getting-started\.e2e\.test/, 17],
  [/test-e2e\/events\/shared-stream-limit\.e2e\.test/, 16],
  [/test-e2e\/jobs\/fal-provider\.e2e\.test/, 16],
  [/test-e2e\/webhooks\/endpoint-api\.e2e\.test/, 16],
  [/services\/export-renderer\/test\/export-errors\.test/, 16],
  [/services\/export-renderer\/test\/export-cache\.test/, 15],
  [/test-e2e\/tenants\/streams\.e2e\.test/, 15],
  [/test-e2e\/dashboard\/api\.e2e\.test/, 14],
  [/test-e2e\/dashboard\/studio-drag-upload\.e2e\.test/, 13],
  [/test-e2e\/foundation\/resilience\.e2e\.test/, 13],
  [/test-e2e\/webhooks\/webhooks\.e2e\.test/, 13],
  [/services\/export-renderer\/test\/export-render\.test/, 12],
  [/test-e2e\/billing\/operator-report\.e2e\.test/, 12],
  [/test-e2e\/idempotency\/idempotency\.e2e\.test/, 12],
  [/test-e2e\/jobs\/jobs-list\.e2e\.test/, 11],
  [/services\/editor-agent\/test\/agent-local-audio\.test/, 11],
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
