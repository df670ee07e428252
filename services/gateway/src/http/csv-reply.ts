import { once } from 'node:events';
import type { Request, Response } from 'express';
import type { ReportSink } from '../core/reports/report-sink';

/**
 * Whether a report is answered as CSV: `format=csv`, or no format and an Accept header that
 * prefers text/csv to JSON (a client sending `*\/*` gets JSON).
 */
export function wantsCsv(req: Request, format: 'json' | 'csv' | undefined): boolean {
  if (format) return format === 'csv';
  return req.accepts(['application/json', 'text/csv']) === 'text/csv';
}

/**
 * Streams a CSV report (chunked, UTF-8, no-store) as an attachment. An error once rows have gone
 * out cannot become an error answer: the connection is cut, so the client sees a truncated body,
 * never a short file that looks whole.
 */
export async function sendCsv(
  res: Response,
  filename: string,
  write: (sink: ReportSink) => Promise<void>,
): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  res.setHeader('Cache-Control', 'no-store');
  const sink: ReportSink = {
    write: async (chunk) => {
      if (res.destroyed) throw new Error('the client went away');
      // A slow client holds the next page back; one that leaves ends the report.
      if (chunk && !res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    },
  };
  try {
    await write(sink);
    res.end();
  } catch (err) {
    res.destroy(err as Error);
    throw err;
  }
}
