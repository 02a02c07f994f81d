import fs from 'node:fs'
import path from 'node:path'
import { main } from '../../../src/main/cli/main'
import { PNG } from '../../engine/sync-up/support/workspace'

/** The corpus of real Git Sync trees (read in place, never copied into the project). */
export const CORPUS = path.resolve(__dirname, '../../../../shared/corpus/gitsync')

/** Every file of a tree, `/`-separated, relative to `root`. */
export function listTree(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string, rel: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) walk(path.join(dir, entry.name), r)
      else out.push(r)
    }
  }
  walk(root, '')
  return out.sort()
}

/**
 * A corpus tree made whole in `dir`: its markdown and YAML as they are, and its assets as PNG-headed
 * files of the manifest's names and sizes (the bytes are not in the corpus).
 */
export function makeTree(name: string, dir: string): { assets: number } {
  const source = path.join(CORPUS, name)
  for (const rel of listTree(source)) {
    if (rel === 'ASSETS.tsv') continue
    const target = path.join(dir, ...rel.split('/'))
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.copyFileSync(path.join(source, ...rel.split('/')), target)
  }
  const lines = fs.readFileSync(path.join(source, 'ASSETS.tsv'), 'utf8').split('\n').filter(Boolean)
  for (const line of lines) {
    const [size, , rel] = line.split('\t')
    const bytes = Buffer.alloc(Number(size))
    PNG.copy(bytes, 0, 0, Math.min(PNG.length, bytes.length))
    const target = path.join(dir, ...rel.split('/'))
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, bytes)
  }
  return { assets: lines.length }
}

/** Runs the CLI in this process, output captured. */
export async function quire(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), isTTY: false })
  return { code, out: out.join('\n'), err: err.join('\n') }
}
