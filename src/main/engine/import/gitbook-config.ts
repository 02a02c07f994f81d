import yaml from 'js-yaml'

/**
 * `.gitbook.yaml` of a Git Sync tree: where the docs are (`root`) and which files are the home page and
 * the table of contents (`structure.readme`, `structure.summary`), relative to the root. Git Sync's
 * defaults when the file or a key is absent.
 */
export interface GitBookConfig {
  /** Folder of the docs inside the tree, `/`-separated, '' for the tree itself. */
  root: string
  readme: string
  summary: string
}

export const CONFIG_FILE = '.gitbook.yaml'
export const DEFAULT_CONFIG: GitBookConfig = { root: '', readme: 'README.md', summary: 'SUMMARY.md' }

/** Reads `.gitbook.yaml` (undefined: no such file). Bad YAML or a path leaving the tree is a clear error. */
export function parseGitBookConfig(text: string | undefined): GitBookConfig {
  if (text === undefined) return DEFAULT_CONFIG
  let doc: unknown
  try {
    doc = yaml.load(text)
  } catch (error) {
    throw new Error(`${CONFIG_FILE} is not valid YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  if (doc === undefined || doc === null) return DEFAULT_CONFIG
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${CONFIG_FILE} must be a mapping (root:, structure:)`)
  const { root, structure } = doc as { root?: unknown; structure?: unknown }
  if (structure !== undefined && (typeof structure !== 'object' || structure === null || Array.isArray(structure))) {
    throw new Error(`${CONFIG_FILE}: structure must be a mapping (readme:, summary:)`)
  }
  const { readme, summary } = (structure ?? {}) as { readme?: unknown; summary?: unknown }
  return {
    root: root === undefined ? '' : treePath(root, 'root', true),
    readme: readme === undefined ? DEFAULT_CONFIG.readme : treePath(readme, 'structure.readme', false),
    summary: summary === undefined ? DEFAULT_CONFIG.summary : treePath(summary, 'structure.summary', false),
  }
}

/** `./docs/` -> `docs`; refuses what leaves the tree (`..`, an absolute path) or is not a string. */
function treePath(value: unknown, key: string, folder: boolean): string {
  if (typeof value !== 'string') throw new Error(`${CONFIG_FILE}: ${key} must be a path, got ${JSON.stringify(value)}`)
  const segments = value.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.')
  if (value.startsWith('/') || segments.includes('..')) throw new Error(`${CONFIG_FILE}: ${key} "${value}" leaves the tree`)
  if (!folder && segments.length === 0) throw new Error(`${CONFIG_FILE}: ${key} names no file`)
  return segments.join('/')
}
