/**
 * Keeps a bundle's source map to our own code. With --enable-source-maps, Node 20 parses every
 * mapping of a loaded bundle into memory at start: the full map of a service (every line of
 * express, knex, pino... mapped) cost about 65 MiB of RSS per process, the trimmed one about 5.
 * Library code is marked unmapped instead (its frames show the bundle's line). Our TypeScript keeps
 * one mapping per run of code from the same source line: frames name the file and line, and the
 * column where the line's code starts. Node 20 parses the map on the first stack it formats (about
 * 105 bytes per mapping), and column mappings are about four in five of them.
 */
import fs from 'node:fs';
import { decode, encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec';

interface RawSourceMap {
  sources: string[];
  mappings: string;
}

/** Rewrites `mapFile` in place; resolves how many segments it had and has. */
export function trimSourceMap(mapFile: string, isOurs: (source: string) => boolean): { before: number; after: number } {
  const map = JSON.parse(fs.readFileSync(mapFile, 'utf8')) as RawSourceMap;
  const ours = map.sources.map(isOurs);
  let before = 0;
  let after = 0;
  // Node finds the nearest preceding mapping, across lines too: one unmapped marker where a run of
  // library code starts stops our last mapping from claiming it.
  let inLibrary = false;
  const lines = decode(map.mappings).map((segments) => {
    const kept: SourceMapSegment[] = [];
    let lastLine: string | null = null;
    for (const seg of segments) {
      before++;
      const source = seg[1];
      if (source !== undefined && !ours[source]) {
        if (!inLibrary) kept.push([seg[0]]);
        inLibrary = true;
        lastLine = null;
        continue;
      }
      inLibrary = false;
      // A later segment of the same source line adds only a column: the preceding one covers it.
      const line = source === undefined ? null : `${source}:${seg[2]}`;
      if (line !== null && line === lastLine) continue;
      lastLine = line;
      kept.push(seg);
    }
    after += kept.length;
    return kept;
  });
  map.mappings = encode(lines);
  fs.writeFileSync(mapFile, JSON.stringify(map));
  return { before, after };
}
