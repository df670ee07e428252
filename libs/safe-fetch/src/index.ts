export { isPublicAddress } from './addresses';
export { guardedAgents, keepAliveDownloadAgents } from './agents';
export {
  downloadToBuffer,
  downloadToFile,
  downloadToStream,
  type DownloadOptions,
  type Agents as DownloadAgents,
  type DownloadedBuffer,
  type DownloadedFile,
  type DownloadedResponse,
} from './download';
export { FetchError, UnsafeUrlError, type FetchErrorKind, type UnsafeUrlReason } from './errors';
export { assertFetchableUrl, type SafeFetchPolicy } from './policy';
