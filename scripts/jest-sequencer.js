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
  [/test-e2e\/faults\//, 120],
  [/test-e2e\/events\/events\.e2e/, 75],
  [/test-e2e\/dashboard\/tour\.e2e/, 70],
  [/test-e2e\/safety\/bad-input-bodies\.e2e/, 65],
  [/test-e2e\/foundation\/start-command\.e2e/, 60],
  [/test-e2e\/safety\/money-and-ssrf\.e2e/, 60],
  [/services\/export-renderer\/test\/export-reuse\.test/, 55],
  [/test-e2e\/sdk\/sdk\.e2e/, 50],
  [/test-e2e\/webhooks\/delivery-tools\.e2e/, 50],
  [/scripts\/build\/test\/build\.test/, 48],
  [/test-e2e\/webhooks\/webhooks\.e2e/, 48],
  [/test-e2e\/sdk\/package\.e2e/, 45],
  [/test-e2e\/jobs\/local-provider\.e2e/, 42],
  [/services\/export-renderer\/test\/export-stream-copy\.test/, 38],
  [/test-e2e\/foundation\/api-surface\.e2e/, 37],
  [/test-e2e\/tenants\/webhooks\.e2e/, 35],
  [/services\/export-renderer\/test\/export-cache\.test/, 34],
  [/services\/jobs\/test\/local-renderers\.test/, 33],
  [/test-e2e\/ratelimit\/shared-limiter\.e2e/, 32],
  [/test-e2e\/billing\/estimate\.e2e/, 32],
  [/test-e2e\/jobs\/jobs-list\.e2e/, 32],
  [/test-e2e\/jobs\/fal-provider\.e2e/, 30],
  [/test-e2e\/editor\/media-in\.e2e/, 29],
  [/services\/export-renderer\/test\/export-render\.test/, 29],
  [/test-e2e\/billing\/key-limits\.e2e/, 29],
  [/test-e2e\/foundation\/key-revocation\.e2e/, 28],
  [/services\/export-renderer\/test\/export-errors\.test/, 27],
  [/services\/jobs\/test\/local-provider\.test/, 26],
  [/test-e2e\/safety\/abuse-limits\.e2e/, 25],
  [/test-e2e\/editor\/export\.e2e/, 25],
  [/test-e2e\/safety\/bad-input-requests\.e2e/, 25],
  [/test-e2e\/jobs\/provider-routes\.e2e/, 24],
  [/test-e2e\/webhooks\/endpoint-api\.e2e/, 22],
  [/test-e2e\/events\/shared-stream-limit\.e2e/, 22],
  [/test-e2e\/idempotency\/idempotency\.e2e/, 20],
  [/test-e2e\/foundation\/resilience\.e2e/, 20],
  [/test-e2e\/dashboard\/ui\.e2e/, 20],
  [/test-e2e\/tenants\/streams\.e2e/, 18],
  [/test-e2e\/editor\/projects\.e2e/, 18],
  [/test-e2e\/safety\/bad-input-surfaces\.e2e/, 16],
  [/test-e2e\/dashboard\/getting-started\.e2e/, 16],
  [/services\/editor-agent\/test\/agent-local-audio\.test/, 14],
  [/libs\/storage\/test\/s3\.test/, 10],
  [/test-e2e\/observability\/tracing\.e2e/, 10],
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
