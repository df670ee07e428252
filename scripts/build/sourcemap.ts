/**
 * Keeps a bundle's source map to our own code. With --enable-source-maps, Node 20 parses every
 * mapping of a loaded bundle into memory at start: the full map of a service (every line of
 * express, knex, pino... mapped) cost about 65 MiB of RSS per process, the trimmed one about 5.
 * Library code is marked unmapped instead (its frames show the bundle's line), our TypeScript keeps
 * every mapping.
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
    for (const seg of segments) {
      before++;
      const source = seg[1];
      if (source !== undefined && !ours[source]) {
        if (!inLibrary) kept.push([seg[0]]);
        inLibrary = true;
        continue;
      }
      inLibrary = false;
      kept.push(seg);
    }
    after += kept.length;
    return kept;
  });
  map.mappings = encode(lines);
  fs.writeFileSync(mapFile, JSON.stringify(map));
  return { before, after };
}
