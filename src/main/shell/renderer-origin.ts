import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface RendererLocation {
  /** The built renderer, loaded with loadFile in production and `npm start`. */
  rendererFile: string
  /** electron-vite's dev server (ELECTRON_RENDERER_URL), only under `npm run dev`. */
  devServerUrl?: string
}

const samePath = (a: string, b: string) =>
  // Windows paths compare case-insensitively; elsewhere case matters.
  process.platform === 'win32' ? path.resolve(a).toLowerCase() === path.resolve(b).toLowerCase() : path.resolve(a) === path.resolve(b)

/**
 * Whether a frame's URL is the app's own renderer: exactly the built index.html over file://, or a page
 * of the dev server's origin. Query and hash do not matter (the renderer routes with them); anything else,
 * another local file included, is foreign.
 */
export function isAppRendererUrl(raw: string, location: RendererLocation): boolean {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  if (url.protocol === 'file:') {
    if (url.host !== '') return false // file://server/share is a network path, never ours
    try {
      return samePath(fileURLToPath(url), location.rendererFile)
    } catch {
      return false
    }
  }
  if (!location.devServerUrl) return false
  const dev = new URL(location.devServerUrl)
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === dev.origin
}
