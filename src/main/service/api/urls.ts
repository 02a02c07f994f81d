/**
 * URLs the service puts in `urls` objects. `location` points at the API; `app` and `published` point at
 * pages the local service would serve for a browser, under the same origin.
 */
export const apiUrl = (origin: string, path: string) => `${origin}/v1${path}`
export const appUrl = (origin: string, path: string) => `${origin}/app${path}`
export const publishedUrl = (origin: string, path: string) => `${origin}/published${path}`
