import { Joi, loadConfig, refuseTestSwitches, serviceEnv, type ServiceEnv } from '@mf/config';
import { storageEnv, type StorageEnv } from '@mf/storage';

export interface EditorAgentConfig extends ServiceEnv, StorageEnv {
  PUBLIC_BASE_URL: string;
  LLM_BASE_URL?: string;
  LLM_API_KEY?: string;
  LLM_MODEL?: string;
  LLM_TIMEOUT_MS: number;
  AGENT_MAX_STEPS: number;
  AGENT_MAX_WALL_MS: number;
  TURN_PRICE: number;
  VOICE_PRICE: number;
  MUSIC_PRICE: number;
  SFX_PRICE: number;
  AUDIO_PROVIDER: 'local' | 'upstream';
  AUDIO_UPSTREAM_URL?: string;
  AUDIO_UPSTREAM_KEY?: string;
  ESPEAK_PATH: string;
  FFMPEG_PATH?: string;
  FFPROBE_PATH?: string;
  MEDIA_WAIT_MS: number;
  MEDIA_POLL_MS: number;
  TURN_LOCK_WAIT_MS: number;
  ALLOW_PRIVATE_URLS: boolean;
  IMPORT_MAX_BYTES: number;
  IMPORT_TIMEOUT_MS: number;
  EXPORT_REQUEST_TIMEOUT_MS: number;
}

export const editorAgentConfigSchema = Joi.object<EditorAgentConfig>({
  ...serviceEnv(8083),
  ...storageEnv,
  /** Base URL clients reach the gateway at: asset URLs are <PUBLIC_BASE_URL>/media/<key>. */
  PUBLIC_BASE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://localhost:8080'),
  /** OpenAI-compatible API base (https://api.openai.com/v1, http://localhost:11434/v1 for Ollama); unset: instruct answers 503. */
  LLM_BASE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .optional(),
  /** Bearer key of the language-model API (optional for local servers). */
  LLM_API_KEY: Joi.string().optional(),
  /** Model name, e.g. gpt-4o-mini or llama3.1; required with LLM_BASE_URL. */
  LLM_MODEL: Joi.string().when('LLM_BASE_URL', { is: Joi.exist(), then: Joi.required() }),
  /** Timeout of one model call, ms. */
  LLM_TIMEOUT_MS: Joi.number().integer().min(100).default(120_000),
  /** Model calls per turn at most. */
  AGENT_MAX_STEPS: Joi.number().integer().min(1).max(50).default(8),
  /** Longest one turn may run, ms (a video generation can take minutes). */
  AGENT_MAX_WALL_MS: Joi.number()
    .integer()
    .min(1000)
    .default(8 * 60_000),
  /** Credits per instruct turn (contract: 5), never refunded. */
  TURN_PRICE: Joi.number().integer().min(0).default(5),
  /** Credits per generated voice line. */
  VOICE_PRICE: Joi.number().integer().min(0).default(10),
  /** Credits per generated music piece. */
  MUSIC_PRICE: Joi.number().integer().min(0).default(20),
  /** Credits per generated sound effect. */
  SFX_PRICE: Joi.number().integer().min(0).default(10),
  /** Voice, music and sfx: local (espeak-ng and ffmpeg) or upstream (AUDIO_UPSTREAM_URL). */
  AUDIO_PROVIDER: Joi.string().valid('local', 'upstream').default('local'),
  /** Upstream audio endpoint (POST {kind, text|prompt, duration_sec, seed} -> {url}). */
  AUDIO_UPSTREAM_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .when('AUDIO_PROVIDER', { is: 'upstream', then: Joi.required() }),
  /** Bearer key of the upstream audio endpoint. */
  AUDIO_UPSTREAM_KEY: Joi.string().optional(),
  /** espeak-ng binary for local voice lines. */
  ESPEAK_PATH: Joi.string().default('espeak-ng'),
  /** ffmpeg binary (else ffmpeg-static if installed, else ffmpeg on PATH). */
  FFMPEG_PATH: Joi.string().optional(),
  /** ffprobe binary (else ffprobe on PATH). */
  FFPROBE_PATH: Joi.string().optional(),
  /** Longest a turn waits for one image or video generation, ms (then it is cancelled and refunded). */
  MEDIA_WAIT_MS: Joi.number()
    .integer()
    .min(1000)
    .default(6 * 60_000),
  /** How often a turn polls its generation job, ms. */
  MEDIA_POLL_MS: Joi.number().integer().min(50).default(1000),
  /** How long an instruct waits for another turn on the same video, ms (then 409). */
  TURN_LOCK_WAIT_MS: Joi.number()
    .integer()
    .min(0)
    .default(10 * 60_000),
  /** Let imported URLs reach private addresses (tests and local development only). */
  ALLOW_PRIVATE_URLS: Joi.boolean().default(false),
  /** Largest imported file, bytes. */
  IMPORT_MAX_BYTES: Joi.number()
    .integer()
    .min(1)
    .default(200 * 1024 * 1024),
  /** Longest an import download may take, ms. */
  IMPORT_TIMEOUT_MS: Joi.number().integer().min(100).default(60_000),
  /** Longest an export may take end to end, ms (longer than export-renderer's EXPORT_TIMEOUT_MS). */
  EXPORT_REQUEST_TIMEOUT_MS: Joi.number().integer().min(1000).default(660_000),
});

export function loadEditorAgentConfig(env: NodeJS.ProcessEnv = process.env): EditorAgentConfig {
  const config = loadConfig(editorAgentConfigSchema, env);
  refuseTestSwitches(config, { ALLOW_PRIVATE_URLS: config.ALLOW_PRIVATE_URLS });
  return config;
}
