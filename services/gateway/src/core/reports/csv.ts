/**
 * CSV as RFC 4180 writes it: CRLF line ends, a field quoted when it holds a comma, a quote, CR or
 * LF, quotes inside doubled. null and undefined are empty fields. UTF-8 is the caller's encoding.
 */
export type CsvValue = string | number | boolean | null | undefined;

export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** The lines of `rows` under `columns` (each row read by column name), header first. */
export function csvLines(columns: readonly string[], rows: readonly object[]): string {
  return rows.map((r) => csvLine(columns.map((c) => (r as Record<string, CsvValue>)[c]))).join('');
}
