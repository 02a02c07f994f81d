import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid } from '../../content'
import { writeFileAtomic } from '../workspace/atomic-write'
import { GITBOOK_CONFIG_FILE as CONFIG_FILE, parseGitSyncConfig, type GitSyncConfig } from '../../content/gitsync/config'
import type { CopyStep, SourceFile } from './import-plan'

/** A Git Sync tree on disk, read for an import: its `.gitbook.yaml`, its files under the root, its SUMMARY. */
export interface SourceTree {
  /** The folder given (the tree). */
  folder: string
  config: GitSyncConfig
  /** Absolute folder of the docs (`folder` + `root`). */
  root: string
  files: SourceFile[]
  skipped: Array<{ path: string; reason: string }>
  summary: string
}

/**
 * Reads the tree: `.gitbook.yaml` at its top, then every regular file under its root, hashed (git blob
 * ids, the hashes the push path uses). Symbolic links are never followed and `.git` is not looked into.
 * Bad input is a clear error: no folder, no SUMMARY.
 */
export async function readSourceTree(folder: string): Promise<SourceTree> {
  const top = path.resolve(folder)
  const stat = await fs.stat(top).catch(() => undefined)
  if (!stat) throw new ImportInputError(`${folder}: no such folder`)
  if (!stat.isDirectory()) throw new ImportInputError(`${folder} is not a folder (give the Git Sync tree's folder)`)
  const configText = await fs.readFile(path.join(top, CONFIG_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  let config: GitSyncConfig
  try {
    config = parseGitSyncConfig(configText)
  } catch (error) {
    const message = (error as Error).message
    throw new ImportInputError(`${folder}: ${message.startsWith(CONFIG_FILE) ? message : `${CONFIG_FILE}: ${message}`}`)
  }
  const root = path.join(top, ...config.root.split('/').filter(Boolean))
  if (!(await fs.stat(root).catch(() => undefined))?.isDirectory()) throw new ImportInputError(`${folder}: ${CONFIG_FILE} names root "${config.root}", which is not a folder of the tree`)
  const files: SourceFile[] = []
  const skipped: Array<{ path: string; reason: string }> = []
  const visit = async (dir: string, rel: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.name === '.git') continue // the repository's own store, never content
      if (entry.isSymbolicLink()) skipped.push({ path: r, reason: 'a symbolic link (never followed)' })
      else if (entry.isDirectory()) await visit(path.join(dir, entry.name), r)
      else if (entry.isFile()) {
        const bytes = await fs.readFile(path.join(dir, entry.name))
        files.push({ path: r, size: bytes.byteLength, hash: gitBlobOid(bytes) })
      } else skipped.push({ path: r, reason: 'not a regular file' })
    }
  }
  await visit(root, '')
  const summary = await fs.readFile(path.join(root, ...config.summary.split('/')), 'utf8').catch(() => undefined)
  if (summary === undefined) {
    throw new ImportInputError(`${folder}: no ${config.summary}${config.root ? ` under ${config.root}` : ''}: a Git Sync tree lists its pages there (.gitbook.yaml structure.summary names another file)`)
  }
  return { folder: top, config, root, files, skipped, summary }
}

/** Hashes of the files the plan would write that are already in the space folder (a resumed import). */
export async function targetHashes(spaceFolder: string, paths: readonly string[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>()
  for (const p of paths) {
    const bytes = await fs.readFile(path.join(spaceFolder, ...p.split('/'))).catch(() => undefined)
    if (bytes) hashes.set(p, gitBlobOid(bytes))
  }
  return hashes
}

/**
 * Copies the plan's files into the space folder, each written whole (temp file, then rename), so a kill
 * leaves every file either absent, as it was, or complete: the next run skips those already identical.
 */
export async function copyFiles(tree: SourceTree, spaceFolder: string, steps: readonly CopyStep[], onCopied: (step: CopyStep, index: number) => void): Promise<number> {
  let copied = 0
  for (const [i, step] of steps.entries()) {
    if (!step.identical) {
      const bytes = await fs.readFile(path.join(tree.root, ...step.from.split('/')))
      if (gitBlobOid(bytes) !== step.hash) throw new Error(`${step.from} changed while importing; run the import again`)
      const target = path.join(spaceFolder, ...step.to.split('/'))
      await fs.mkdir(path.dirname(target), { recursive: true })
      await writeFileAtomic(target, bytes)
      copied++
    }
    onCopied(step, i + 1)
  }
  return copied
}

/** Bad input of the user's (no folder, no SUMMARY, no such space): said as it is, exit code 2. */
export class ImportInputError extends Error {}
