import { appPageUrl } from './app-pages'

/**
 * URLs the service puts in `urls` objects. `location` points at the API; `app` and `published` point at
 * pages the local service would serve for a browser, under the same origin.
 */
export const apiUrl = (origin: string, path: string) => `${origin}/v1${path}`
// Spaces' and change requests' app pages are served (signed links, app-pages.ts); other paths are not.
export const appUrl = (origin: string, path: string) => appPageUrl(origin, path)
export const publishedUrl = (origin: string, path: string) => `${origin}/published${path}`
