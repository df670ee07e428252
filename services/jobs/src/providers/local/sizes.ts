import type { ImageParams, VideoParams } from '@mf/contracts';

export type VideoAspect = VideoParams['aspect_ratio'];
export type VideoResolution = VideoParams['resolution'];
export type ImageAspect = ImageParams['aspect_ratio'];

export interface FrameSize {
  width: number;
  height: number;
}

/**
 * Frame sizes of local video renders. The short side is 720 px at 720p and 480 px at 480p; the
 * long side follows the aspect ratio, rounded to an even number (H.264 with yuv420p needs even
 * dimensions).
 *
 * | aspect | 720p      | 480p      |
 * |--------|-----------|-----------|
 * | 16:9   | 1280x720  | 854x480   |
 * | 9:16   | 720x1280  | 480x854   |
 * | 1:1    | 720x720   | 480x480   |
 * | 4:3    | 960x720   | 640x480   |
 * | 3:4    | 720x960   | 480x640   |
 * | 21:9   | 1680x720  | 1120x480  |
 */
export const VIDEO_SIZES: Readonly<Record<VideoAspect, Readonly<Record<VideoResolution, FrameSize>>>> = {
  '16:9': { '720p': { width: 1280, height: 720 }, '480p': { width: 854, height: 480 } },
  '9:16': { '720p': { width: 720, height: 1280 }, '480p': { width: 480, height: 854 } },
  '1:1': { '720p': { width: 720, height: 720 }, '480p': { width: 480, height: 480 } },
  '4:3': { '720p': { width: 960, height: 720 }, '480p': { width: 640, height: 480 } },
  '3:4': { '720p': { width: 720, height: 960 }, '480p': { width: 480, height: 640 } },
  '21:9': { '720p': { width: 1680, height: 720 }, '480p': { width: 1120, height: 480 } },
};

/**
 * Sizes of local image renders: about one megapixel, both sides multiples of 16.
 *
 * | aspect | size      |
 * |--------|-----------|
 * | 1:1    | 1024x1024 |
 * | 16:9   | 1344x768  |
 * | 9:16   | 768x1344  |
 * | 4:3    | 1152x864  |
 * | 3:4    | 864x1152  |
 */
export const IMAGE_SIZES: Readonly<Record<ImageAspect, FrameSize>> = {
  '1:1': { width: 1024, height: 1024 },
  '16:9': { width: 1344, height: 768 },
  '9:16': { width: 768, height: 1344 },
  '4:3': { width: 1152, height: 864 },
  '3:4': { width: 864, height: 1152 },
};

export function videoSize(aspect: VideoAspect, resolution: VideoResolution): FrameSize {
  const size = VIDEO_SIZES[aspect]?.[resolution];
  if (!size) throw new RangeError(`no video size for ${aspect} at ${resolution}`);
  return { ...size };
}

export function imageSize(aspect: ImageAspect): FrameSize {
  const size = IMAGE_SIZES[aspect];
  if (!size) throw new RangeError(`no image size for ${aspect}`);
  return { ...size };
}
