import type { ProjectAspectRatio } from '@mf/contracts';

/** Export frame size per project aspect ratio: 720 on the short side, even dimensions. */
export const EXPORT_SIZES: Record<ProjectAspectRatio, { width: number; height: number }> = {
  '9:16': { width: 720, height: 1280 },
  '1:1': { width: 720, height: 720 },
  '4:5': { width: 720, height: 900 },
  '16:9': { width: 1280, height: 720 },
  '4:3': { width: 960, height: 720 },
};
