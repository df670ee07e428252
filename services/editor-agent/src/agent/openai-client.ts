import axios, { type AxiosInstance } from 'axios';
import { AppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import type { ChatMessage, LlmClient, ToolCall, ToolDefinition } from './llm-client';

export interface OpenAiCompatibleOptions {
  /** LLM_BASE_URL, up to and including the version: https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), http://vllm:8000/v1. */
  baseUrl: string;
  /** LLM_API_KEY; local servers usually need none. */
  apiKey?: string;
  /** LLM_MODEL. */
  model: string;
  /** One completion; a slow local model may need minutes. */
  timeoutMs: number;
  logger: Logger;
  /** Largest reply body accepted. Default 5 MB. */
  maxReplyBytes?: number;
}

export const PROVIDER_FAILED = 'Agent runtime error: the language-model provider failed';

/** The parts of a Chat Completions reply we read; everything is checked, nothing trusted. */
interface RawToolCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}
interface RawMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: RawToolCall[] | null;
}
interface RawReply {
  choices?: { message?: RawMessage }[];
}

/**
 * Chat Completions with tool calling over HTTP, as OpenAI, Ollama (/v1) and vLLM serve it. Any
 * failure (non-2xx, network, timeout, a reply without a message) is the contract's 502; what went
 * wrong is logged (status, error code, the provider's short error message), never returned.
 */
export class OpenAiCompatibleClient implements LlmClient {
  private readonly http: AxiosInstance;
  private readonly url: string;
  private readonly log: Logger;

  constructor(private readonly opts: OpenAiCompatibleOptions) {
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.log = opts.logger.child({ component: 'llm' });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    const maxBytes = opts.maxReplyBytes ?? 5 * 1024 * 1024;
    this.http = axios.create({
      timeout: opts.timeoutMs,
      headers,
      maxContentLength: maxBytes,
      maxBodyLength: 20 * 1024 * 1024,
      maxRedirects: 0,
    });
  }

  async complete(messages: ChatMessage[], tools: ToolDefinition[]): Promise<{ message: ChatMessage }> {
    // Some servers refuse an empty tools array: without tools, neither field is sent.
    const body = {
      model: this.opts.model,
      messages: messages.map(wireMessage),
      ...(tools.length ? { tools, tool_choice: 'auto' } : {}),
    };
    const started = Date.now();
    let data: RawReply;
    try {
      const res = await this.http.post<RawReply>(this.url, body);
      data = res.data;
    } catch (err) {
      this.log.warn(
        { ...describeError(err, this.opts.apiKey), model: this.opts.model, ms: Date.now() - started },
        'language-model request failed',
      );
      throw new AppError('upstream_failed', { error: PROVIDER_FAILED });
    }
    const message = parseMessage(data);
    if (!message) {
      this.log.warn(
        { model: this.opts.model, ms: Date.now() - started },
        'language-model reply has no choices[0].message',
      );
      throw new AppError('upstream_failed', { error: PROVIDER_FAILED });
    }
    this.log.debug(
      { model: this.opts.model, ms: Date.now() - started, toolCalls: message.tool_calls?.length ?? 0 },
      'language-model completion',
    );
    return { message };
  }
}

/** Only the fields the API knows: our messages may carry nothing else, but keep the wire exact. */
function wireMessage(m: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role, content: m.content };
  if (m.tool_calls?.length) out.tool_calls = m.tool_calls;
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  if (m.name) out.name = m.name;
  return out;
}

/**
 * choices[0].message as a ChatMessage, or null. Tolerates what compatible servers differ on:
 * arguments as an object instead of a JSON string (some Ollama versions), a missing tool call id
 * or type, content absent instead of null.
 */
export function parseMessage(data: unknown): ChatMessage | null {
  const msg = (data as RawReply | null)?.choices?.[0]?.message;
  if (!msg || typeof msg !== 'object') return null;
  const content = typeof msg.content === 'string' ? msg.content : null;
  const calls: ToolCall[] = [];
  for (const [i, raw] of (Array.isArray(msg.tool_calls) ? msg.tool_calls : []).entries()) {
    const name = raw?.function?.name;
    if (typeof name !== 'string' || !name) continue;
    const args = raw.function?.arguments;
    calls.push({
      id: typeof raw.id === 'string' && raw.id ? raw.id : `call_${i}`,
      type: 'function',
      function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
    });
  }
  return { role: 'assistant', content, ...(calls.length ? { tool_calls: calls } : {}) };
}

/** Loggable facts about a failed request; the provider's message is cut short and our key removed. */
function describeError(err: unknown, apiKey: string | undefined): Record<string, unknown> {
  if (!axios.isAxiosError(err)) return { err: (err as Error)?.message ?? String(err) };
  const status = err.response?.status;
  const data = err.response?.data as { error?: { message?: unknown } | string } | undefined;
  let providerMessage: string | undefined;
  const raw = typeof data?.error === 'string' ? data.error : data?.error?.message;
  if (typeof raw === 'string') providerMessage = raw.slice(0, 200);
  if (providerMessage && apiKey) providerMessage = providerMessage.split(apiKey).join('[redacted]');
  return { status, code: err.code, providerMessage };
}
