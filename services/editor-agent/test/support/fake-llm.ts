import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import type { ChatMessage, ToolCall, ToolDefinition } from '../../src/agent/llm-client';

/** One request the fake received, as the client sent it. */
export interface LlmRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  tool_choice?: unknown;
  authorization: string | undefined;
  /** Epoch ms when it arrived. */
  at: number;
}

/** What the script answers: an assistant message, or an HTTP error status (with an optional body). */
export type ScriptReply = ChatMessage | { status: number; body?: unknown };
/** callNo counts every request the fake received, from 0. */
export type Script = (request: LlmRequest, callNo: number) => ScriptReply | Promise<ScriptReply>;

export interface FakeLlm {
  /** The base URL a client is configured with (LLM_BASE_URL): http://127.0.0.1:<port>/v1. */
  baseUrl: string;
  requests: LlmRequest[];
  /** Replaces the script (and keeps the recorded requests). */
  setScript: (script: Script) => void;
  close: () => Promise<void>;
}

/**
 * A scripted OpenAI-compatible Chat Completions server on 127.0.0.1 (POST /v1/chat/completions).
 * Every request is recorded; the script decides each answer.
 */
export async function startFakeLlm(script: Script): Promise<FakeLlm> {
  const requests: LlmRequest[] = [];
  let current = script;
  const app = express();
  app.use(express.json({ limit: '20mb' }));
  const handler: express.RequestHandler = async (req, res) => {
    const body = req.body as {
      model?: string;
      messages?: ChatMessage[];
      tools?: ToolDefinition[];
      tool_choice?: unknown;
    };
    const request: LlmRequest = {
      model: String(body.model ?? ''),
      messages: body.messages ?? [],
      tools: body.tools ?? [],
      tool_choice: body.tool_choice,
      authorization: req.headers.authorization,
      at: Date.now(),
    };
    const callNo = requests.length;
    requests.push(request);
    let reply: ScriptReply;
    try {
      reply = await current(request, callNo);
    } catch (err) {
      res.status(500).json({ error: { message: `fake script failed: ${(err as Error).message}` } });
      return;
    }
    if ('status' in reply && typeof reply.status === 'number') {
      res.status(reply.status).json(reply.body ?? { error: { message: 'scripted failure', type: 'server_error' } });
      return;
    }
    const message = reply as ChatMessage;
    res.json({
      id: `chatcmpl-${callNo}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [{ index: 0, message, finish_reason: message.tool_calls?.length ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  };
  app.post('/v1/chat/completions', handler);
  app.post('/chat/completions', handler);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript: (s) => {
      current = s;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let callIds = 0;

/** A tool call as a model sends it (arguments as a JSON string). */
export function toolCall(name: string, args: Record<string, unknown>, id = `call_${++callIds}`): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** An assistant message with these tool calls (and optional text). */
export function callTools(calls: ToolCall[], text: string | null = null): ChatMessage {
  return { role: 'assistant', content: text, tool_calls: calls };
}

/** A final assistant answer (no tool calls). */
export function say(text: string): ChatMessage {
  return { role: 'assistant', content: text };
}

/** The messages of the current turn: everything after the last user message. */
export function sinceLastUser(request: LlmRequest): ChatMessage[] {
  const i = request.messages.map((m) => m.role).lastIndexOf('user');
  return request.messages.slice(i + 1);
}

/** The last user message's text. */
export function lastUserText(request: LlmRequest): string {
  return [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

/** How many times the model has answered in the current turn so far (0 at the turn's first call). */
export function stepOfTurn(request: LlmRequest): number {
  return sinceLastUser(request).filter((m) => m.role === 'assistant').length;
}

/** The tool results of the current turn, parsed, in order. */
// Tool results are JSON objects whose fields each test reads, hence `any`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function toolResults(request: LlmRequest): any[] {
  return sinceLastUser(request)
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(m.content ?? 'null'));
}
