import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Debian's fonts-dejavu-core; when missing, drawtext asks fontconfig for any sans font. */
export const DEFAULT_FONT_FILE = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

/** Name of the prompt file inside a render's scratch dir (ffmpeg runs there, so no escaping). */
export const PROMPT_FILE = 'prompt.txt';

/** Decoders refuse larger reference images: a tiny PNG can claim a gigapixel canvas. */
export const MAX_REFERENCE_PIXELS = 40_000_000;

/** Arguments that make encoders and muxers write the same bytes for the same input. */
export const BITEXACT_ARGS = [
  '-fflags',
  '+bitexact',
  '-flags:v',
  '+bitexact',
  '-flags:a',
  '+bitexact',
  '-map_metadata',
  '-1',
];

/** ffmpeg output/input path: the file: prefix keeps names like "a:b" or "-x" from being misread. */
export function fileArg(file: string): string {
  return `file:${path.resolve(file)}`;
}

/**
 * A reference image input. `-f image2` only ever decodes an image: a downloaded "image" that is
 * really a playlist or another container is refused instead of being followed. `-pattern_type
 * none` keeps a '%d' in the path from being read as an image-sequence pattern.
 */
export function referenceInputArgs(file: string): string[] {
  return ['-f', 'image2', '-pattern_type', 'none', '-max_pixels', String(MAX_REFERENCE_PIXELS), '-i', fileArg(file)];
}

/** `count` colours as ffmpeg hex (0xRRGGBB) spread around the hue circle from a random start. */
export function palette(rand: () => number, count: number): string[] {
  const start = rand() * 360;
  const colours: string[] = [];
  for (let i = 0; i < count; i++) {
    const hue = (start + (i * 360) / count + rand() * 40) % 360;
    const saturation = 0.55 + rand() * 0.35;
    const lightness = 0.35 + rand() * 0.25;
    colours.push(hslHex(hue, saturation, lightness));
  }
  return colours;
}

function hslHex(h: number, s: number, l: number): string {
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((h / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] =
    h < 60
      ? [c, x, 0]
      : h < 120
        ? [x, c, 0]
        : h < 180
          ? [0, c, x]
          : h < 240
            ? [0, x, c]
            : h < 300
              ? [x, 0, c]
              : [c, 0, x];
  const hex = (v: number) =>
    Math.round((v + m) * 255)
      .toString(16)
      .padStart(2, '0');
  return `0x${hex(r)}${hex(g)}${hex(b)}`;
}

export interface PromptLayout {
  /** Lines to draw, joined by newlines; empty when the prompt has nothing printable. */
  text: string;
  fontSize: number;
  lineSpacing: number;
  /** Distance of the text block from the bottom edge. */
  margin: number;
}

/** Most characters drawn from a prompt; longer prompts end with an ellipsis. */
export const MAX_DRAWN_CHARS = 280;

/**
 * Fits the prompt on a frame: control and format characters (newlines, bidi overrides) become
 * spaces, the text is word-wrapped to the frame width and cut to `maxLines` lines with an ellipsis.
 * Widths are estimated from the font size (DejaVu Sans averages about 0.55 em per character).
 */
export function layoutPrompt(prompt: string, width: number, height: number, maxLines = 5): PromptLayout {
  const fontSize = Math.max(14, Math.round(Math.min(width, height) / 20));
  const lineSpacing = Math.round(fontSize * 0.25);
  const margin = Math.round(Math.min(width, height) / 12);
  const perLine = Math.max(10, Math.min(80, Math.floor((width * 0.86) / (fontSize * 0.6))));

  const clean = prompt
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  let chars = Array.from(clean); // code points, so no surrogate pair is split
  let cut = false;
  if (chars.length > MAX_DRAWN_CHARS) {
    chars = chars.slice(0, MAX_DRAWN_CHARS);
    cut = true;
  }

  const lines: string[] = [];
  let current: string[] = [];
  for (const word of chars.join('').split(' ')) {
    let rest = Array.from(word);
    if (rest.length === 0) continue;
    if (current.length > 0 && current.length + 1 + rest.length <= perLine) {
      current.push(' ', ...rest);
      continue;
    }
    if (current.length > 0) lines.push(current.join(''));
    // A word longer than a line is split across lines.
    while (rest.length > perLine) {
      lines.push(rest.slice(0, perLine).join(''));
      rest = rest.slice(perLine);
    }
    current = rest;
  }
  if (current.length > 0) lines.push(current.join(''));

  if (lines.length > maxLines) {
    lines.length = maxLines;
    cut = true;
  }
  if (cut && lines.length > 0) {
    const last = Array.from(lines[lines.length - 1]).slice(0, perLine - 1);
    lines[lines.length - 1] = `${last.join('').trimEnd()}…`;
  }
  return { text: lines.join('\n'), fontSize, lineSpacing, margin };
}

/**
 * The drawtext filter for a laid-out prompt, reading PROMPT_FILE from the working directory:
 * the text never passes through filtergraph escaping, and expansion=none keeps `%{...}` literal.
 */
export function drawtextFilter(layout: PromptLayout, fontFile = DEFAULT_FONT_FILE): string | null {
  if (!layout.text) return null;
  // The default path has no filtergraph metacharacters; fontconfig's name is the fallback.
  const font = existsSync(fontFile) && !/[\\':,;[\]]/.test(fontFile) ? `fontfile=${fontFile}` : 'font=Sans';
  return [
    `drawtext=${font}`,
    `textfile=${PROMPT_FILE}`,
    'expansion=none',
    `fontsize=${layout.fontSize}`,
    'fontcolor=white',
    `line_spacing=${layout.lineSpacing}`,
    'box=1',
    'boxcolor=black@0.5',
    `boxborderw=${Math.round(layout.fontSize / 2)}`,
    'x=(w-text_w)/2',
    `y=h-text_h-${layout.margin}`,
    'fix_bounds=1',
  ].join(':');
}

/**
 * Runs `fn` with a fresh scratch dir beside `outFile` holding the prompt file, and removes the
 * dir afterwards. On failure the partial output is removed too.
 */
export async function withScratch(
  outFile: string,
  promptText: string,
  fn: (scratchDir: string) => Promise<void>,
): Promise<void> {
  const scratch = await mkdtemp(path.join(path.dirname(path.resolve(outFile)), '.render-'));
  try {
    await writeFile(path.join(scratch, PROMPT_FILE), promptText, 'utf8');
    await fn(scratch);
  } catch (err) {
    await rm(outFile, { force: true }).catch(() => undefined);
    throw err;
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Seed for output number `index` of a request: seed, seed+1, ... wrapping within 32 bits. */
export function nthSeed(seed: number, index: number): number {
  return (seed + index) % 4294967296;
}
