import type { ProbeResult } from '@mf/media';

/**
 * What ffprobe said about a content (by storage ETag), the most recently used `size` kept in
 * memory: a re-export probes, and downloads, only the sources whose content is new.
 */
export class ProbeCache {
  private readonly entries = new Map<string, ProbeResult>();

  constructor(private readonly size = 2000) {}

  get(etag: string): ProbeResult | undefined {
    const hit = this.entries.get(etag);
    if (hit) {
      // Map keeps insertion order: re-inserting makes it the most recent.
      this.entries.delete(etag);
      this.entries.set(etag, hit);
    }
    return hit;
  }

  set(etag: string, result: ProbeResult): void {
    this.entries.delete(etag);
    this.entries.set(etag, result);
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
  }
}
