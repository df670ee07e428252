import type { ChatMessage, LlmClient } from './llm-client';
import { executeToolCall, toolDefinitions } from './tools';
import { recordEvent, type TurnState } from './turn-state';

export const OUT_OF_STEPS =
  'I could not finish everything this turn (I reached my limit of steps or time). Here is where things stand; shall I continue?';
export const NO_ANSWER = 'Done. What would you like to do next?';

export interface LoopInput {
  llm: LlmClient;
  system: string;
  /** Earlier turns of this video's thread: user instruction, then the final assistant text. */
  history: ChatMessage[];
  /** This turn's user message. */
  user: ChatMessage;
}

export interface LoopResult {
  /** The reply to the user. */
  text: string;
  /** This turn's conversation after the system message and history: user, assistant and tool messages. */
  messages: ChatMessage[];
  /** true when the loop stopped on agentMaxSteps or agentMaxWallMs instead of a final answer. */
  exhausted: boolean;
}

/**
 * One turn of the agent: ask the model, run its tool calls in order (each answered with a tool
 * message), ask again with the results, until it answers without tool calls. Bounded by
 * settings.agentMaxSteps model calls and by the turn's deadline; when a bound stops it, the reply is
 * the model's last text or a short apology. An LLM failure (502) and a TurnAbort (402) propagate.
 */
export async function runAgentLoop(state: TurnState, input: LoopInput): Promise<LoopResult> {
  const { settings } = state.ctx;
  const tools = toolDefinitions(settings);
  const messages: ChatMessage[] = [input.user];
  let lastText = '';

  for (let step = 1; step <= settings.agentMaxSteps; step++) {
    if (Date.now() >= state.deadline) break;
    recordEvent(state, 'step', { step });
    const { message } = await input.llm.complete(
      [{ role: 'system', content: input.system }, ...input.history, ...messages],
      tools,
    );
    messages.push(message);
    const said = message.content?.trim() ?? '';
    if (said) {
      lastText = said;
      recordEvent(state, 'message', { text: said });
    }
    const calls = message.tool_calls ?? [];
    if (!calls.length) return { text: said || lastText || NO_ANSWER, messages, exhausted: false };

    for (const call of calls) {
      // Every call gets its tool message (the API requires one per call id), even when time is up.
      if (Date.now() >= state.deadline) {
        const error = 'skipped: the turn ran out of time before this call';
        recordEvent(state, 'tool_error', { name: call.function.name, error });
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ ok: false, error }) });
        continue;
      }
      const outcome = await executeToolCall(state, call);
      messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
    }
  }
  const text = lastText || OUT_OF_STEPS;
  if (!lastText) recordEvent(state, 'message', { text });
  return { text, messages, exhausted: true };
}
