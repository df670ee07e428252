export { resolveFfmpeg, resolveFfprobe } from './resolve';
export type { BinaryEnv } from './resolve';
export { runFfmpeg, FfmpegError, progressReader } from './run';
export type { FfmpegErrorKind, RunFfmpegOptions } from './run';
export { probe, ProbeError } from './probe';
export type { ProbeOptions, ProbeResult } from './probe';
export { seededRandom } from './seeded-random';
