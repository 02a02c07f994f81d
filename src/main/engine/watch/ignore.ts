import { TEMP_MARK } from '../workspace/atomic-write'

/**
 * Files that are never a writer's content: version control, editors' swap, backup and lock files, the
 * probe file vim writes to test a folder (`4913`), and Quire's own temporary files.
 */
export function isIgnoredName(name: string): boolean {
  return (
    name === '.git' ||
    name === '4913' ||
    name === '.DS_Store' ||
    name === 'Thumbs.db' ||
    name.startsWith(TEMP_MARK) ||
    name.startsWith('.quire-') ||
    name.startsWith('.#') || // emacs lock
    (name.startsWith('#') && name.endsWith('#')) || // emacs auto-save
    name.endsWith('~') || // emacs, vim, gedit backups
    /\.sw[a-p]$/i.test(name) || // vim swap
    /\.(tmp|temp|bak|orig|crswap)$/i.test(name) ||
    /^\.~lock\..*#$/.test(name) || // LibreOffice
    /\.sb-[A-Za-z0-9]+-[A-Za-z0-9]+$/.test(name) // Sublime's atomic save
  )
}

/** True when any segment of the `/`-separated relative path is ignored. */
export function isIgnoredPath(relative: string): boolean {
  return relative.split('/').some((segment) => segment !== '' && isIgnoredName(segment))
}
