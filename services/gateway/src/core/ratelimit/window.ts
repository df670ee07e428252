/** The limit's window, seconds: fixed, starting with a key's first request (docs/api-behaviour.md). */
export const WINDOW_SEC = 60;
