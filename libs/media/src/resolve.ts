import { existsSync } from 'node:fs';

export interface BinaryEnv {
  FFMPEG_PATH?: string;
  FFPROBE_PATH?: string;
}

/**
 * The ffmpeg binary to run: FFMPEG_PATH when set; else the binary of the `ffmpeg-static` package
 * when that package is installed and its binary is on disk; else `ffmpeg` on PATH.
 */
export function resolveFfmpeg(env: Pick<BinaryEnv, 'FFMPEG_PATH'> = process.env): string {
  const fromEnv = env.FFMPEG_PATH?.trim();
  if (fromEnv) return fromEnv;
  return packagedBinary(['ffmpeg-static']) ?? 'ffmpeg';
}

/**
 * The ffprobe binary to run: FFPROBE_PATH when set; else the binary of `ffprobe-static` or
 * `@ffprobe-installer/ffprobe` when installed and on disk; else `ffprobe` on PATH.
 */
export function resolveFfprobe(env: Pick<BinaryEnv, 'FFPROBE_PATH'> = process.env): string {
  const fromEnv = env.FFPROBE_PATH?.trim();
  if (fromEnv) return fromEnv;
  return packagedBinary(['ffprobe-static', '@ffprobe-installer/ffprobe']) ?? 'ffprobe';
}

/**
 * The first of these optional packages that is installed and whose binary exists. These packages
 * are optional: none is a dependency, so a missing one (the usual case) is not an error.
 * ffmpeg-static exports the path itself; the ffprobe packages export `{ path }`.
 */
function packagedBinary(packageNames: string[]): string | null {
  for (const name of packageNames) {
    let exported: unknown;
    try {
      require.resolve(name);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional package, loaded only when present
      exported = require(name);
    } catch {
      continue;
    }
    const candidate = typeof exported === 'string' ? exported : pathProperty(exported);
    if (candidate && existsSync(candidate)) return candidate;
  }
  return null;
}

function pathProperty(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || !('path' in value)) return null;
  const p = value.path;
  return typeof p === 'string' ? p : null;
}
