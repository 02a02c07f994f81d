const MAX_URL = 2048

/**
 * Whether a URL may be handed to the OS's browser: http(s) only (no file:, smb:, javascript: or custom
 * schemes that launch other programs), and no user:password@ part, a phishing favourite.
 */
export function isAllowedExternalUrl(raw: string): boolean {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL) return false
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.hostname !== ''
}

export interface ExternalOpener {
  openExternal(url: string): Promise<void>
}

/** The one way the shell opens a URL outside the app; everything else is refused with a clear error. */
export async function openExternalUrl(shell: ExternalOpener, url: string): Promise<void> {
  if (!isAllowedExternalUrl(url)) throw new Error(`refused to open "${String(url).slice(0, 100)}": only http(s) links open in the browser`)
  await shell.openExternal(url)
}
