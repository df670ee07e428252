export {
  createHttpApp,
  finish,
  toAppError,
  route,
  requestId,
  jsonBody,
  queryTextGuard,
  answerClientError,
  answerClientErrors,
  NOT_AN_OBJECT,
  UNSUPPORTED_MEDIA_TYPE,
} from './app';
export { answerMethodNotAllowed } from './method-not-allowed';
export type { HttpAppOptions, JsonBodyOptions } from './app';
export {
  hostileJsonProblem,
  textProblem,
  textProblemMessage,
  isValidUtf8,
  MAX_JSON_DEPTH,
  TOO_DEEP_MESSAGE,
} from './hostile-input';
export type { TextProblem } from './hostile-input';
