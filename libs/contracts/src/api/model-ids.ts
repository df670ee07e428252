/**
 * The catalog's model ids (contract section 1), declared once: validation, the catalog, the jobs
 * service's plans, the estimate and the SDK name a model through these.
 */
export const VIDEO_MODEL = 'vidgen-2.0';
export const FAST_VIDEO_MODEL = 'vidgen-2.0-fast';
export const IMAGE_MODEL = 'imagegen-2';

export const VIDEO_MODEL_IDS = [VIDEO_MODEL, FAST_VIDEO_MODEL] as const;
export const IMAGE_MODEL_IDS = [IMAGE_MODEL] as const;
export const MODEL_IDS = [...VIDEO_MODEL_IDS, ...IMAGE_MODEL_IDS] as const;

export type VideoModelId = (typeof VIDEO_MODEL_IDS)[number];
export type ImageModelId = (typeof IMAGE_MODEL_IDS)[number];
export type ModelId = (typeof MODEL_IDS)[number];

/** What a video submit selects: `fast: true` is the fast model. */
export const videoModelOf = (fast: boolean): VideoModelId => (fast ? FAST_VIDEO_MODEL : VIDEO_MODEL);

/** The ways of making media a model can serve (a submit's mode). */
export type Mode = 'text-to-video' | 'image-to-video' | 'text-to-image' | 'image-edit';
