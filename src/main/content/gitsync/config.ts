/**
 * `.gitbook.yaml`, Git Sync's configuration at the top of a repository (or of its project folder):
 *
 *   root: ./docs/
 *   structure:
 *     readme: README.md
 *     summary: SUMMARY.md
 *
 * `root` is the folder holding the docs; `readme` and `summary` are relative to it. Absent keys take Git
 * Sync's defaults.
 */
import yaml from 'js-yaml'
import { ContentError } from '../errors'

export interface GitSyncConfig {
  /** Folder of the docs, `/`-separated, '' for the folder holding `.gitbook.yaml`. */
  root: string
  readme: string
  summary: string
  /** Keys Git Sync reads that this reading does not (`redirects`), for a caller to report. */
  otherKeys?: string[]
}

export const GITBOOK_CONFIG_FILE = '.gitbook.yaml'
export const DEFAULT_GITSYNC_CONFIG: GitSyncConfig = { root: '', readme: 'README.md', summary: 'SUMMARY.md' }

/** Reads `.gitbook.yaml` (undefined: no such file). Bad YAML, bad types or a path leaving the tree throw a ContentError. */
export function parseGitSyncConfig(text: string | undefined): GitSyncConfig {
  if (text === undefined) return DEFAULT_GITSYNC_CONFIG
  let doc: unknown
  try {
    doc = yaml.load(text)
  } catch (error) {
    throw new ContentError(`${GITBOOK_CONFIG_FILE} is not valid YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  if (doc === undefined || doc === null) return DEFAULT_GITSYNC_CONFIG
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ContentError(`${GITBOOK_CONFIG_FILE} must be a mapping (root:, structure:)`)
  const { root, structure } = doc as { root?: unknown; structure?: unknown }
  if (structure !== undefined && (typeof structure !== 'object' || structure === null || Array.isArray(structure))) {
    throw new ContentError(`${GITBOOK_CONFIG_FILE}: structure must be a mapping (readme:, summary:)`)
  }
  const { readme, summary } = (structure ?? {}) as { readme?: unknown; summary?: unknown }
  const otherKeys = Object.keys(doc).filter((key) => key !== 'root' && key !== 'structure')
  return {
    root: root === undefined ? '' : treePath(root, 'root', true),
    readme: readme === undefined ? DEFAULT_GITSYNC_CONFIG.readme : treePath(readme, 'structure.readme', false),
    summary: summary === undefined ? DEFAULT_GITSYNC_CONFIG.summary : treePath(summary, 'structure.summary', false),
    ...(otherKeys.length > 0 ? { otherKeys } : {}),
  }
}

/** `./docs/` -> `docs`. Refuses what leaves the tree (`..`, an absolute path) or is not a string. */
export function treePath(value: unknown, key: string, folder: boolean): string {
  if (typeof value !== 'string') throw new ContentError(`${GITBOOK_CONFIG_FILE}: ${key} must be a path, got ${JSON.stringify(value)}`)
  const segments = value.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.')
  if (value.startsWith('/') || segments.includes('..')) throw new ContentError(`${key} "${value}" leaves the repository`)
  if (!folder && segments.length === 0) throw new ContentError(`${GITBOOK_CONFIG_FILE}: ${key} names no file`)
  return segments.join('/')
}
