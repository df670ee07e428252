/** Prints rows as an aligned text table: the first column left-aligned, the others right-aligned. */
export function printTable(header: string[], rows: string[][], indent = '  '): void {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    indent +
    r.map((cell, i) => (i === 0 ? (cell ?? '').padEnd(widths[i]) : (cell ?? '').padStart(widths[i]))).join('   ');
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}
