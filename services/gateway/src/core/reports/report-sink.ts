/** Where a CSV report is written, chunk by chunk: the HTTP adapter streams it (waiting when the client is slow). */
export interface ReportSink {
  write(chunk: string): Promise<void>;
}
