export { isPublicAddress } from './addresses';
export { guardedAgents } from './agents';
export {
  downloadToBuffer,
  downloadToFile,
  type DownloadOptions,
  type DownloadedBuffer,
  type DownloadedFile,
} from './download';
export { FetchError, UnsafeUrlError, type FetchErrorKind, type UnsafeUrlReason } from './errors';
export { assertFetchableUrl, type SafeFetchPolicy } from './policy';
