import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * The corpus's real Git Sync trees (`../shared/corpus/gitsync`, read at run time, never copied into the
 * project): their markdown and YAML as they are, their assets made to the manifest's names and sizes
 * (PNG-headed bytes, each file's own so no two share a blob by accident).
 */
export const GITSYNC_CORPUS = path.resolve(__dirname, '../../../shared/corpus/gitsync')

const PNG_HEADER = Buffer.from('89504e470d0a1a0a', 'hex')

/** Every file of the tree by its `/`-separated path, assets included; ASSETS.tsv itself is not part of the tree. */
export function corpusTree(name: string): Map<string, Buffer> {
  const root = path.join(GITSYNC_CORPUS, name)
  const files = new Map<string, Buffer>()
  const walk = (dir: string, rel: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) walk(path.join(dir, entry.name), r)
      else if (r !== 'ASSETS.tsv') files.set(r, fs.readFileSync(path.join(dir, entry.name)))
    }
  }
  walk(root, '')
  for (const line of fs.readFileSync(path.join(root, 'ASSETS.tsv'), 'utf8').split('\n').filter(Boolean)) {
    const [size, , rel] = line.split('\t')
    files.set(rel, assetBytes(rel, Number(size)))
  }
  return files
}

function assetBytes(rel: string, size: number): Buffer {
  const bytes = Buffer.alloc(size)
  const stamp = Buffer.concat([PNG_HEADER, Buffer.from(`\n${rel}\n`)])
  stamp.copy(bytes, 0, 0, Math.min(stamp.length, size))
  return bytes
}

/** Writes a tree into `dir`. */
export function writeTree(dir: string, files: Map<string, Buffer>): void {
  for (const [rel, bytes] of files) {
    const target = path.join(dir, ...rel.split('/'))
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, bytes)
  }
}

/**
 * The corpus's SUMMARY.md entries whose text is not their page's H1, [as written, the H1]: the page keeps
 * its H1 as title, so SUMMARY.md comes back listing it by its H1 (the import notes each).
 */
export const SUMMARY_TEXT_NOT_H1: Record<string, Array<[string, string]>> = {
  'gitbook-docs': [
    ['Document an API', 'OpenAPI'],
    ['Free trials', 'Free trial'],
  ],
}

/** SUMMARY.md as it comes back: the entries of `titles` retitled by their page's H1. */
export function retitled(summary: string, titles: Array<[string, string]>): string {
  return titles.reduce((text, [written, h1]) => text.replace(`[${written}](`, `[${h1}](`), summary)
}

/** git with no user or system configuration and a fixed author, so tests run the same on any machine. */
export const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 'Writer', GIT_AUTHOR_EMAIL: 'writer@quire.local', GIT_COMMITTER_NAME: 'Writer', GIT_COMMITTER_EMAIL: 'writer@quire.local' }

export const git = (cwd: string, ...args: string[]): Buffer => execFileSync('git', args, { cwd, env: GIT_ENV, maxBuffer: 512 * 1024 * 1024 })

/** `dir` made a repository on branch main whose one commit holds `files`. */
export function commitTree(dir: string, files: Map<string, Buffer>): string {
  fs.mkdirSync(dir, { recursive: true })
  git(dir, 'init', '--quiet', '--initial-branch=main')
  writeTree(dir, files)
  git(dir, 'add', '--all')
  git(dir, 'commit', '--quiet', '-m', 'docs')
  return dir
}
