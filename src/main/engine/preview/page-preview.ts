import fs from 'node:fs'
import path from 'node:path'
import type { PreviewRoot } from '../../../shared/contract'
import { contentTypeFromName } from '../../content'
import { renderPreview } from './render-preview'

/**
 * A page of a space folder previewed: the file read (or the markdown given, a change request's version),
 * its images read from the folder's `.gitbook/assets` and nowhere else. Every path is confined twice: by
 * its text (relative, no `..` out of the folder) and by its real path (a symbolic link that leads out of
 * the folder, or out of `.gitbook/assets` for an image, is refused as if absent).
 */

export class PreviewRefused extends Error {
  constructor(
    readonly reason: 'invalid' | 'not-found',
    message: string,
  ) {
    super(message)
  }
}

/** Images the preview shows inline; anything larger is a placeholder. */
export const MAX_PREVIEW_IMAGE_BYTES = 5 * 1024 * 1024
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml', 'image/avif', 'image/bmp'])

export function previewSpacePage(folder: string, pagePath: string, markdown?: string): { title?: string; tree: PreviewRoot } {
  if (!isPagePath(pagePath)) throw new PreviewRefused('invalid', `${pagePath} is not a page file of the space folder`)
  let root: string
  try {
    root = fs.realpathSync(folder)
  } catch {
    throw new PreviewRefused('not-found', `the space folder ${folder} does not exist`)
  }
  let source = markdown
  if (source === undefined) {
    const file = confined(root, pagePath)
    if (!file || !fs.statSync(file).isFile()) throw new PreviewRefused('not-found', `no page file at ${pagePath}`)
    source = fs.readFileSync(file, 'utf8')
  }
  const assets = confined(root, '.gitbook/assets')
  return renderPreview(source, {
    pagePath,
    pageExists: (spacePath) => {
      const file = spacePath.endsWith('.md') ? confined(root, spacePath) : undefined
      return file !== undefined && fs.statSync(file).isFile()
    },
    image: (spacePath) => (assets ? imageData(assets, root, spacePath) : undefined),
  })
}

/** A path as the contract names files: relative, forward slashes, no `..`, a markdown file. */
function isPagePath(value: string): boolean {
  return value.endsWith('.md') && !value.startsWith('/') && !value.includes('\\') && !value.includes('\0') && !value.split('/').some((s) => s === '..' || s === '')
}

/** The real path of `relative` inside `root`, or undefined (absent, or it leads out). */
function confined(root: string, relative: string): string | undefined {
  if (relative.includes('\0')) return undefined
  let real: string
  try {
    real = fs.realpathSync(path.resolve(root, ...relative.split('/')))
  } catch {
    return undefined
  }
  return inside(root, real) ? real : undefined
}

function inside(root: string, real: string): boolean {
  const rel = path.relative(root, real)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

function imageData(assets: string, root: string, spacePath: string): string | undefined {
  const file = confined(root, spacePath)
  if (!file || !inside(assets, file)) return undefined
  const type = contentTypeFromName(file)
  if (!IMAGE_TYPES.has(type)) return undefined
  const stat = fs.statSync(file)
  if (!stat.isFile() || stat.size > MAX_PREVIEW_IMAGE_BYTES) return undefined
  return `data:${type};base64,${fs.readFileSync(file).toString('base64')}`
}

/**
 * The space folder a file belongs to, for `quire preview FILE`: the nearest folder above it that holds
 * `.gitbook` or `SUMMARY.md` (the Git Sync layout's root), else the file's own folder.
 */
export function spaceFolderOf(file: string): { folder: string; pagePath: string } {
  const real = fs.realpathSync(file)
  let dir = path.dirname(real)
  for (let up = dir; ; up = path.dirname(up)) {
    if (fs.existsSync(path.join(up, '.gitbook')) || fs.existsSync(path.join(up, 'SUMMARY.md'))) {
      dir = up
      break
    }
    if (path.dirname(up) === up) break
  }
  return { folder: dir, pagePath: path.relative(dir, real).split(path.sep).join('/') }
}
