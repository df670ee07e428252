export { LocalProvider } from './local-provider';
export { LOCAL_ERRORS } from './render-failure';
export type { LocalProviderDeps } from './local-provider';
export { renderVideo } from './render-video';
export type { RenderVideoOptions } from './render-video';
export { renderImage } from './render-image';
export type { RenderImageOptions } from './render-image';
export { IMAGE_SIZES, VIDEO_SIZES, imageSize, videoSize } from './sizes';
export type { FrameSize, ImageAspect, VideoAspect, VideoResolution } from './sizes';
