import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { billingRpc } from '@mf/contracts';
import { isErrorKind } from '@mf/errors';
import { newId } from '../domain/ids';
import type { AssetRow } from '../domain/records';
import type { AudioFile } from '../media/audio';
import { storeAssetFile } from '../usecases/assets.usecase';
import { claimMediaSlot, delivered, refundQuietly, seed, type ToolSuccess } from './media-delivery';
import { number, optionalText, text, ToolError, type Args } from './tool-args';
import { TurnAbort, type TurnState } from './turn-state';

export const VOICE_TEXT_MAX = 2000;
export const AUDIO_PROMPT_MAX = 1000;
export const MUSIC_SECONDS = { min: 1, max: 120 } as const;
export const SFX_SECONDS = { min: 0.5, max: 30 } as const;

/** Voice, music and sound effects: made here (not by the jobs service), charged first, refunded on failure. */

type AudioKind = 'voice' | 'music' | 'sfx';
const AUDIO_SOURCE: Record<AudioKind, string> = { voice: 'tts', music: 'music', sfx: 'sfx' };
const AUDIO_LABEL: Record<AudioKind, string> = { voice: 'voice line', music: 'music', sfx: 'sound effect' };

export async function generateAudio(state: TurnState, kind: AudioKind, args: Args): Promise<ToolSuccess> {
  const { ctx } = state;
  // Validated before anything is claimed or charged.
  const spoken = kind === 'voice' ? text(args, 'text', VOICE_TEXT_MAX) : undefined;
  const voice = kind === 'voice' ? optionalText(args, 'voice', 40) : undefined;
  if (voice !== undefined && !/^[A-Za-z0-9+_-]+$/.test(voice))
    throw new ToolError('voice must be a voice name such as en-us, en-gb, female or male');
  const prompt = kind === 'voice' ? undefined : text(args, 'prompt', AUDIO_PROMPT_MAX);
  const limits = kind === 'music' ? MUSIC_SECONDS : SFX_SECONDS;
  const durationSec = kind === 'voice' ? undefined : number(args, 'duration_sec', limits.min, limits.max);
  claimMediaSlot(state);

  const price =
    kind === 'voice' ? ctx.settings.voicePrice : kind === 'music' ? ctx.settings.musicPrice : ctx.settings.sfxPrice;
  // The charge comes first and names the asset this generation will make.
  const reservedId = newId('ast');
  const reference = `media:${reservedId}`;
  if (price > 0) {
    try {
      await ctx.bus.rpc(billingRpc, 'charge', {
        user_id: state.userId,
        reference,
        amount: price,
        description: `Editor ${AUDIO_LABEL[kind]}`,
        model: `editor-${kind}`,
      });
    } catch (err) {
      if (isErrorKind(err, 'payment_required')) throw new TurnAbort(err);
      ctx.logger.warn({ err: (err as Error).message, reference }, 'media charge failed');
      // A charge that timed out may still land: the refund closes the reference either way.
      await refundQuietly(ctx, state.userId, reference, 'charge not confirmed');
      throw new ToolError(
        `the ${AUDIO_LABEL[kind]} could not be charged (billing unavailable); nothing was charged. Ask the user to try again shortly.`,
      );
    }
  }

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mf-agent-audio-'));
  let row: AssetRow;
  try {
    const outFile = path.join(dir, `${kind}.m4a`);
    const s = seed();
    let audio: AudioFile;
    if (kind === 'voice') audio = await ctx.audio.voice({ text: spoken!, voice, outFile });
    else if (kind === 'music')
      audio = await ctx.audio.music({ prompt: prompt!, durationSec: durationSec!, seed: s, outFile });
    else audio = await ctx.audio.sfx({ prompt: prompt!, durationSec: durationSec!, seed: s, outFile });
    const metadata: Record<string, unknown> =
      kind === 'voice'
        ? { text: spoken, ...(voice ? { voice } : {}), charge_reference: reference }
        : { prompt, seed: s, charge_reference: reference };
    row = await storeAssetFile(ctx, {
      id: reservedId,
      projectId: state.projectId,
      kind: 'audio',
      source: AUDIO_SOURCE[kind],
      file: audio.path,
      contentType: audio.contentType,
      metadata,
    });
  } catch (err) {
    ctx.logger.warn(
      { err: (err as Error).message, reference, turnId: state.turnId },
      `${kind} generation failed; refunding`,
    );
    if (price > 0) await refundQuietly(ctx, state.userId, reference, `${AUDIO_LABEL[kind]} generation failed`);
    const reason = err instanceof RangeError ? ` (${err.message})` : '';
    throw new ToolError(
      `the ${AUDIO_LABEL[kind]} could not be generated${reason}; ${price > 0 ? `its ${price} credits were refunded` : 'nothing was charged'}.`,
    );
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  return delivered(state, row, price);
}
