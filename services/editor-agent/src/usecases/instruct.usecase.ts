import type { InstructReply, InstructRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import type { EditorContext } from './context';

/** One agent turn (placeholder until the agent lands: it is being written now). */
export async function instruct(ctx: EditorContext, _req: InstructRequest): Promise<InstructReply> {
  if (!ctx.llm) throw new AppError(503, { error: 'The language-model provider is not configured on this server' });
  throw AppError.internal();
}
