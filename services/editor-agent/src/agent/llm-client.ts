/**
 * The language model behind the agent: OpenAI-compatible Chat Completions with tool calling.
 * (Interface only here; the HTTP implementation lives beside it.)
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface LlmClient {
  /** One completion; rejects with an AppError 502 on provider error or timeout. */
  complete(messages: ChatMessage[], tools: ToolDefinition[]): Promise<{ message: ChatMessage }>;
}
