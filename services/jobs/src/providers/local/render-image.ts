import { runFfmpeg, seededRandom } from '@mf/media';
import {
  BITEXACT_ARGS,
  drawtextFilter,
  fileArg,
  layoutPrompt,
  palette,
  referenceInputArgs,
  withScratch,
} from './render-common';

export interface RenderImageOptions {
  outFile: string;
  width: number;
  height: number;
  prompt: string;
  seed: number;
  /** Local image files: an edit composes them (tiled) as the background. */
  references?: string[];
  ffmpegPath: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Font for the prompt (default DejaVu Sans). */
  fontFile?: string;
}

/**
 * Renders a PNG deterministically (same options, same bytes): a seed-coloured gradient, or the
 * references tiled in a grid under a translucent seed-coloured wash, with the prompt drawn over.
 */
export async function renderImage(opts: RenderImageOptions): Promise<void> {
  if (opts.width <= 0 || opts.height <= 0 || !Number.isInteger(opts.width) || !Number.isInteger(opts.height))
    throw new RangeError('width and height must be positive integers');
  const { width: w, height: h } = opts;
  const references = opts.references ?? [];
  const rand = seededRandom(opts.seed);
  const layout = layoutPrompt(opts.prompt, w, h, 6);
  const text = drawtextFilter(layout, opts.fontFile);

  const colours = palette(rand, 4);
  const type = ['linear', 'radial', 'circular', 'spiral'][Math.floor(rand() * 4)];
  const gradient = `gradients=s=${w}x${h}:r=1:seed=${opts.seed >>> 0}:n=${colours.length}:${colours.map((c, i) => `c${i}=${c}`).join(':')}:type=${type},trim=end_frame=1,setsar=1`;

  const inputs: string[] = [];
  const graph: string[] = [];
  let last: string;
  if (references.length === 0) {
    graph.push(`${gradient}[bg]`);
    last = 'bg';
  } else {
    graph.push(`${gradient},split=2[base][washsrc]`, '[washsrc]format=rgba,colorchannelmixer=aa=0.22[wash]');
    const cells = grid(references.length, w, h);
    last = 'base';
    references.forEach((ref, i) => {
      inputs.push(...referenceInputArgs(ref));
      const c = cells[i];
      graph.push(
        `[${i}:v]scale=${c.w}:${c.h}:force_original_aspect_ratio=increase:flags=bicubic,crop=${c.w}:${c.h},setsar=1[r${i}]`,
      );
      graph.push(`[${last}][r${i}]overlay=x=${c.x}:y=${c.y}[b${i}]`);
      last = `b${i}`;
    });
    graph.push(`[${last}][wash]overlay=0:0[washed]`);
    last = 'washed';
  }
  graph.push(`[${last}]${text ? `${text},` : ''}format=rgb24[out]`);

  const args = [
    ...inputs,
    '-filter_complex',
    graph.join(';'),
    '-map',
    '[out]',
    '-frames:v',
    '1',
    '-c:v',
    'png',
    ...BITEXACT_ARGS,
    '-f',
    'image2',
    '-update',
    '1',
    '-y',
    fileArg(opts.outFile),
  ];
  await withScratch(opts.outFile, layout.text, (cwd) =>
    runFfmpeg(args, { ffmpegPath: opts.ffmpegPath, timeoutMs: opts.timeoutMs, signal: opts.signal, cwd }),
  );
}

interface Cell {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Cells of a near-square grid for `count` tiles, with more columns on a landscape frame and more
 * rows on a portrait one; cells split the frame exactly (edges rounded to whole pixels).
 */
export function grid(count: number, width: number, height: number): Cell[] {
  const major = Math.ceil(Math.sqrt(count));
  const minor = Math.ceil(count / major);
  const [cols, rows] = width >= height ? [major, minor] : [minor, major];
  const xs = Array.from({ length: cols + 1 }, (_, i) => Math.round((i * width) / cols));
  const ys = Array.from({ length: rows + 1 }, (_, i) => Math.round((i * height) / rows));
  const cells: Cell[] = [];
  for (let i = 0; i < count; i++) {
    const col = i % cols;
    const row = Math.floor(i / cols);
    cells.push({ x: xs[col], y: ys[row], w: xs[col + 1] - xs[col], h: ys[row + 1] - ys[row] });
  }
  return cells;
}
