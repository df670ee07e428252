/**
 * What failed in a test run, from its printed output, short enough to be read last in a CI log:
 * the failing files, then jest's "Summary of all failing tests" (each failed test and its
 * assertion) without stack frames and code frames. A run that failed before jest (the lint or type
 * check) has no such section: its last lines are what failed.
 */
export function failureSummary(log: string, maxLines = 30): string[] {
  // eslint-disable-next-line no-control-regex -- jest's colour codes start with ESC
  const lines = log.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const failedFiles = [...new Set(lines.filter((l) => /^FAIL /.test(l)))];
  const start = lines.findIndex((l) => l.trim() === 'Summary of all failing tests');
  if (start < 0) return tail(lines, maxLines);
  const end = lines.findIndex((l, i) => i > start && /^Test Suites:/.test(l));
  const detail = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .filter((l) => !isStackOrCodeFrame(l) && !/^FAIL /.test(l))
    .filter((l, i, all) => l.trim() !== '' || (all[i - 1] ?? '').trim() !== '');
  const totals = end < 0 ? [] : lines.slice(end, end + 2);
  const room = Math.max(0, maxLines - failedFiles.length - totals.length - 1);
  const shown = detail.length > room ? [...detail.slice(0, room), `  ... ${detail.length - room} more lines`] : detail;
  return [...failedFiles, ...shown, ...totals];
}

function isStackOrCodeFrame(line: string): boolean {
  return /^\s+at /.test(line) || /^\s*>?\s*\d+ \|/.test(line) || /^\s+\|\s+\^/.test(line);
}

function tail(lines: string[], n: number): string[] {
  return lines.filter((l, i) => l.trim() !== '' || i < lines.length - 1).slice(-n);
}
