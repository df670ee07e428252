import type { Logger } from '@mf/logger';
import type { EditorAgentConfig } from '../config';
import type { LlmClient } from './llm-client';
import { OpenAiCompatibleClient } from './openai-client';

/** The configured language model, or null when LLM_BASE_URL is unset (instruct then answers 503). */
export function createLlmClient(
  cfg: Pick<EditorAgentConfig, 'LLM_BASE_URL' | 'LLM_API_KEY' | 'LLM_MODEL' | 'LLM_TIMEOUT_MS'>,
  logger: Logger,
): LlmClient | null {
  if (!cfg.LLM_BASE_URL || !cfg.LLM_MODEL) return null;
  return new OpenAiCompatibleClient({
    baseUrl: cfg.LLM_BASE_URL,
    apiKey: cfg.LLM_API_KEY || undefined,
    model: cfg.LLM_MODEL,
    timeoutMs: cfg.LLM_TIMEOUT_MS,
    logger,
  });
}
