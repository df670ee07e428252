import type { ImageParams, VideoParams } from '@mf/contracts';
import type { ProviderJob } from '../../src/providers/provider';

type JobFields = Partial<Pick<ProviderJob, 'jobId' | 'upstreamModel' | 'callbackUrl' | 'attempt' | 'mode'>>;

/** What a video attempt asks of a provider (mode from the params unless given). */
export function videoJob(prompt: string, params: Partial<VideoParams> = {}, fields: JobFields = {}): ProviderJob {
  return {
    jobId: 'job_video1',
    type: 'video',
    modelId: 'vidgen-2.0',
    mode: params.image_url ? 'image-to-video' : 'text-to-video',
    attempt: 1,
    upstreamModel: 'upstream/video',
    ...fields,
    params: {
      prompt,
      image_url: null,
      fast: false,
      duration_seconds: 5,
      aspect_ratio: '16:9',
      resolution: '720p',
      generate_audio: true,
      seed: 42,
      ...params,
    },
  };
}

/** What an image attempt asks of a provider (mode from the params unless given). */
export function imageJob(prompt: string, params: Partial<ImageParams> = {}, fields: JobFields = {}): ProviderJob {
  return {
    jobId: 'job_image1',
    type: 'image',
    modelId: 'imagegen-2',
    mode: params.image_urls?.length ? 'image-edit' : 'text-to-image',
    attempt: 1,
    upstreamModel: 'upstream/image',
    ...fields,
    params: { prompt, image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 7, ...params },
  };
}
