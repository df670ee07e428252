import { resolveFfmpeg, resolveFfprobe } from '@mf/media';
import type { EditorAgentConfig } from '../config';
import type { EditorContext } from '../usecases/context';
import type { AudioGenerator } from './audio';
import { LocalAudioGenerator } from './local-audio';
import { UpstreamAudioGenerator } from './upstream-audio';

type AudioConfig = Pick<
  EditorAgentConfig,
  'AUDIO_PROVIDER' | 'AUDIO_UPSTREAM_URL' | 'AUDIO_UPSTREAM_KEY' | 'ESPEAK_PATH' | 'FFMPEG_PATH' | 'FFPROBE_PATH'
>;

/** Voice, music and sfx as AUDIO_PROVIDER says: local (espeak-ng, ffmpeg) or upstream (AUDIO_UPSTREAM_URL). */
export function createAudioGenerator(
  cfg: AudioConfig,
  deps: Pick<EditorContext, 'download' | 'probe'>,
  timeoutMs = 120_000,
): AudioGenerator {
  if (cfg.AUDIO_PROVIDER === 'upstream') {
    if (!cfg.AUDIO_UPSTREAM_URL) throw new Error('AUDIO_UPSTREAM_URL is required with AUDIO_PROVIDER=upstream');
    return new UpstreamAudioGenerator({
      url: cfg.AUDIO_UPSTREAM_URL,
      apiKey: cfg.AUDIO_UPSTREAM_KEY || undefined,
      timeoutMs,
      download: deps.download,
      probe: deps.probe,
    });
  }
  return new LocalAudioGenerator({
    ffmpegPath: resolveFfmpeg(cfg),
    ffprobePath: resolveFfprobe(cfg),
    espeakPath: cfg.ESPEAK_PATH,
    timeoutMs,
  });
}
