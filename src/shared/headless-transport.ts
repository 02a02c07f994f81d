/**
 * How the renderer served by `quire serve` proves who it is. Nothing here is ambient: browsers send
 * cookies to every port of 127.0.0.1, so the session is a per-tab token the page holds and sends itself.
 */

/** The address-bar fragment that carries the one-time secret: `http://127.0.0.1:PORT/#secret=…`. */
export const HEADLESS_SECRET_PARAM = 'secret'
/** Trades the secret for a tab token: `POST` with `{ "secret": "…" }`, answers `{ "result": { "token": "…" } }`. */
export const HEADLESS_SESSION_PATH = '/api/session'
/** Carries the tab token on every channel call. */
export const HEADLESS_TOKEN_HEADER = 'X-Quire-Session'
/** Carries the tab token in the event stream's URL (EventSource cannot send headers). */
export const HEADLESS_TOKEN_QUERY = 'session'
/** Where the tab keeps its token: sessionStorage lives and dies with the tab and is never sent anywhere. */
export const HEADLESS_TOKEN_STORAGE_KEY = 'quire-session'
