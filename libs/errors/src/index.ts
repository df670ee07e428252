export * from './app-error';
export { httpHeadersOf, httpResponseOf, httpStatusOf, kindOfHttpStatus, type HttpErrorResponse } from './http-mapping';
export { fromWire, toWire, type WireError } from './wire';

/** Fixed texts of body errors, shared by the HTTP layer and the request validators. */
export const INVALID_JSON_BODY = 'Invalid JSON body';
export const NOT_AN_OBJECT = 'Request body must be a JSON object';
