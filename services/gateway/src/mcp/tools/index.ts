import { EDITOR_TOOLS } from './editor.tools';
import { GENERATION_TOOLS } from './generation.tools';
import type { ToolSpec } from './tool';

export type { ToolContext, ToolSpec } from './tool';

/** The contract's 17 tools: list_models, job_status, generate_media and the video_editor_* tools. */
export const TOOLS: readonly ToolSpec[] = [...GENERATION_TOOLS, ...EDITOR_TOOLS];
