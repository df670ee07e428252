import { validateImageRequest, validateVideoRequest } from '@mf/catalog';
import { IMAGE_ASPECT_RATIOS, VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS, type Validated } from '@mf/contracts';
import {
  jobsRpc,
  type JobResultReply,
  type ProjectAspectRatio,
  type SubmitJobReply,
  type SubmitJobRequest,
} from '@mf/contracts';
import { isAppError, isCallerFault, isErrorKind } from '@mf/errors';
import { assetView, type AssetRow } from '../domain/records';
import { findAsset } from '../repositories/assets.repository';
import { assetFromJob } from '../usecases/assets.usecase';
import { requireProject } from '../usecases/projects.usecase';
import { claimMediaSlot, delivered, refundQuietly, seed, type ToolSuccess } from './media-delivery';
import { given, ToolError, type Args } from './tool-args';
import { streamEvent, TurnAbort, type TurnState } from './turn-state';

/** A jobs submit may take a while (the provider is called before it answers). */
const SUBMIT_TIMEOUT_MS = 60_000;
/** A media wait never runs this far past the turn's wall-clock limit (the turn lock lease has 60 s). */
const WAIT_GRACE_MS = 30_000;
/** The project's format as a format the generators take: 4:5 has no match, 3:4 is the closest. */
function closestAspect<T extends string>(projectAspect: ProjectAspectRatio, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(projectAspect)) return projectAspect as unknown as T;
  return (projectAspect === '4:5' && (allowed as readonly string[]).includes('3:4') ? '3:4' : allowed[0]) as T;
}

function checked<T>(v: Validated<T>): T {
  if (!v.ok) throw new ToolError(v.error);
  return v.value;
}

/** The owner, key and project of the turn's jobs: marked as the editor's, so lists and webhooks can tell them apart. */
const jobOrigin = (state: TurnState) => ({
  user_id: state.userId,
  api_key_id: state.apiKeyId,
  source: 'editor' as const,
  project_id: state.projectId,
});

// ---------------------------------------------------------------- image and video (the jobs service)

export async function generateImage(state: TurnState, args: Args): Promise<ToolSuccess> {
  const project = await requireProject(state.ctx, state.userId, state.projectId);
  const body = {
    prompt: args.prompt,
    aspect_ratio: given(args.aspect_ratio)
      ? args.aspect_ratio
      : closestAspect(project.aspect_ratio, IMAGE_ASPECT_RATIOS),
  };
  const req = checked(validateImageRequest(body));
  claimMediaSlot(state);
  return runJob(state, { ...jobOrigin(state), type: 'image', params: { ...req, seed: req.seed ?? seed() } });
}

export async function generateVideo(state: TurnState, args: Args): Promise<ToolSuccess> {
  const project = await requireProject(state.ctx, state.userId, state.projectId);
  if (!given(args.duration_seconds))
    throw new ToolError(`duration_seconds is required: one of ${VIDEO_DURATIONS.join(', ')}`);
  let imageUrl: string | undefined;
  if (given(args.image_asset_id)) {
    const id = args.image_asset_id;
    const asset = typeof id === 'string' ? await findAsset(state.ctx.db, state.projectId, id) : undefined;
    if (!asset) throw new ToolError(`image_asset_id: no asset ${JSON.stringify(id)} in the media library`);
    if (asset.kind !== 'image')
      throw new ToolError(
        `image_asset_id: asset ${asset.id} is ${asset.kind === 'audio' ? 'an' : 'a'} ${asset.kind}, not an image`,
      );
    imageUrl = assetView(asset, state.ctx.settings.publicBaseUrl).url;
    if (!imageUrl.startsWith('https://'))
      throw new ToolError(
        'image-to-video is unavailable on this server (its public URL is not https); generate from text instead',
      );
  }
  const body = {
    prompt: args.prompt,
    duration_seconds: args.duration_seconds,
    aspect_ratio: given(args.aspect_ratio)
      ? args.aspect_ratio
      : closestAspect(project.aspect_ratio, VIDEO_ASPECT_RATIOS),
    ...(given(args.resolution) ? { resolution: args.resolution } : {}),
    ...(imageUrl ? { image_url: imageUrl } : {}),
  };
  const req = checked(validateVideoRequest(body));
  claimMediaSlot(state);
  return runJob(state, { ...jobOrigin(state), type: 'video', params: { ...req, seed: req.seed ?? seed() } });
}

/**
 * Submits a job (jobs charges it), waits for it, and records its output as an asset. Jobs refunds
 * a failed or cancelled job; a job that completed but could not be stored here is refunded by us.
 */
async function runJob(state: TurnState, request: SubmitJobRequest): Promise<ToolSuccess> {
  const { ctx } = state;
  const what = request.type;
  let submitted: SubmitJobReply;
  try {
    submitted = await ctx.bus.rpc(jobsRpc, 'submit', request, { timeoutMs: SUBMIT_TIMEOUT_MS });
  } catch (err) {
    if (isErrorKind(err, 'payment_required')) throw new TurnAbort(err);
    ctx.logger.warn({ err: (err as Error).message, turnId: state.turnId }, `${what} submit failed`);
    if (isAppError(err) && isCallerFault(err))
      throw new ToolError(`the ${what} generation was refused: ${err.body.error}. Nothing was charged.`);
    throw new ToolError(
      `the ${what} generation could not be started (provider error); nothing was charged (a charge, if any, is refunded). Tell the user and ask whether to try again.`,
    );
  }
  const credits = submitted.credits_consumed;
  streamEvent(state, 'generation', { job_id: submitted.job_id, kind: what, credits });
  const result = await waitForJob(state, submitted.job_id, credits);
  if (result.status === 'failed')
    throw new ToolError(
      `the ${what} generation failed (${result.error ?? 'provider error'}); its ${credits} credits were refunded.`,
    );
  if (result.status === 'cancelled')
    throw new ToolError(`the ${what} generation was cancelled; its ${credits} credits were refunded.`);

  const params = request.params;
  let row: AssetRow;
  try {
    row = await assetFromJob(ctx, {
      userId: state.userId,
      projectId: state.projectId,
      jobId: submitted.job_id,
      kind: what,
      prompt: params.prompt,
      model: submitted.model,
    });
  } catch (err) {
    // Completed but not delivered into the project: the contract refunds media that is not delivered.
    ctx.logger.error(
      { err: (err as Error).message, jobId: submitted.job_id, turnId: state.turnId },
      `completed ${what} could not be stored; refunding`,
    );
    await refundQuietly(ctx, state.userId, `job:${submitted.job_id}`, `${what} not delivered to the editor`);
    throw new ToolError(`the ${what} was generated but could not be stored; its ${credits} credits were refunded.`);
  }
  return delivered(state, row, credits, submitted.job_id);
}

/**
 * Waits for the job's terminal event (polling as the safety net) until it leaves processing. Past settings.mediaWaitMs (or the turn's time) the job
 * is cancelled, which refunds it; if it finished meanwhile, that outcome stands.
 */
async function waitForJob(
  state: TurnState,
  jobId: string,
  credits: number,
): Promise<Pick<JobResultReply, 'status' | 'error'>> {
  const { ctx } = state;
  const ref = { user_id: state.userId, job_id: jobId };
  const until = Math.min(Date.now() + ctx.settings.mediaWaitMs, state.deadline + WAIT_GRACE_MS);
  for (;;) {
    await (ctx.jobSettled?.wait(jobId, until - Date.now()) ?? sleep(ctx.settings.mediaPollMs));
    try {
      const r = await ctx.bus.rpc(jobsRpc, 'getResult', ref);
      if (r.status !== 'processing') return r;
    } catch (err) {
      // A missed poll (jobs restarting, a broker blip) is retried until the wait ends.
      ctx.logger.warn({ err: (err as Error).message, jobId }, 'job poll failed');
    }
    if (Date.now() >= until) break;
  }
  try {
    await ctx.bus.rpc(jobsRpc, 'cancel', { ...ref, cancelled_by: 'editor' });
    throw new ToolError(`the generation took too long and was cancelled; its ${credits} credits were refunded.`);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    if (isErrorKind(err, 'conflict')) return ctx.bus.rpc(jobsRpc, 'getResult', ref); // it finished meanwhile
    ctx.logger.error({ err: (err as Error).message, jobId }, 'could not cancel a job that took too long');
    throw new ToolError('the generation took too long; it is being stopped and its credits will be refunded.');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
