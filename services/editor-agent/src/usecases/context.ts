import type { Bus } from '@mf/bus';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { ProbeResult } from '@mf/media';
import type { Storage } from '@mf/storage';
import type { LlmClient } from '../agent/llm-client';
import type { AudioGenerator } from '../media/audio';
import type { JobSettledListener } from '../messaging/job-settled.listener';
import type { RenderProgressListener } from '../messaging/render-progress.listener';

/** Everything the editor use cases need, passed in (tests give fakes). */
export interface EditorContext {
  db: Knex;
  bus: Bus;
  storage: Storage;
  logger: Logger;
  settings: EditorSettings;
  /** Safe download of a user-supplied https URL to a file (SSRF guard, size and time limits). */
  download: (url: string, destPath: string, accept: string[]) => Promise<{ contentType: string | null; bytes: number }>;
  /** ffprobe of a local file (throws when it is not decodable media). */
  probe: (file: string) => Promise<ProbeResult>;
  /** null when LLM_BASE_URL / LLM_MODEL are not configured: instruct answers 503. */
  llm: LlmClient | null;
  /** Voice (TTS), music and sound effects. */
  audio: AudioGenerator;
  /** Wakes a turn when its generation ends (job events); without it, waits poll every mediaPollMs. */
  jobSettled?: JobSettledListener;
  /** The renderer's progress of this replica's background exports; without it they report none. */
  renderProgress?: RenderProgressListener;
}

export interface EditorSettings {
  publicBaseUrl: string;
  /** Credits per instruct turn (contract: 5), never refunded. */
  turnPrice: number;
  voicePrice: number;
  musicPrice: number;
  sfxPrice: number;
  agentMaxSteps: number;
  agentMaxWallMs: number;
  /** One model call's timeout (the turn lock's lease covers a call started at the last moment). */
  llmTimeoutMs?: number;
  /** Longest a turn waits for one image or video generation of the jobs service. */
  mediaWaitMs: number;
  mediaPollMs: number;
  /** How long an instruct waits for another turn on the same video to finish. */
  turnLockWaitMs: number;
  importMaxBytes: number;
  /** Longest an export may take end to end (the renderer's own limit plus a margin). */
  exportTimeoutMs?: number;
}
