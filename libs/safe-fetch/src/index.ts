export { isPublicAddress } from './addresses';
export { guardedAgents, keepAliveDownloadAgents } from './agents';
export {
  downloadToBuffer,
  downloadToFile,
  type DownloadOptions,
  type Agents as DownloadAgents,
  type DownloadedBuffer,
  type DownloadedFile,
} from './download';
export { FetchError, UnsafeUrlError, type FetchErrorKind, type UnsafeUrlReason } from './errors';
export { assertFetchableUrl, type SafeFetchPolicy } from './policy';
