import fs from 'node:fs'
import path from 'node:path'

/**
 * Whether the file system holding `folder` takes names differing only by case for one file (macOS and
 * Windows by default), so sync down must give such server names distinct local names. A case-sensitive
 * disk (Linux, a case-sensitive APFS volume) keeps them as the server has them, as a Git Sync checkout
 * does: `Image.png` and `image.png` side by side, each page link naming its own file.
 *
 * Probed without writing anything: an existing folder of the path (the folder itself or its nearest
 * existing parent) is looked up under its name with the case of its letters swapped; the same file
 * answering means the disk folds case. When no part of the path has a letter to swap, or the probe
 * fails, the answer is "folds": distinct names are safe on every disk. `QUIRE_FOLD_CASE=1` or `=0`
 * decides instead (tests force the case-insensitive path on a case-sensitive disk with it).
 */
export function foldsCase(folder: string): boolean {
  const forced = process.env.QUIRE_FOLD_CASE
  if (forced === '1' || forced === '0') return forced === '1'
  const existing = nearestExisting(path.resolve(folder))
  if (existing === undefined) return true
  let answer = probed.get(existing)
  if (answer === undefined) probed.set(existing, (answer = probe(existing)))
  return answer
}

const probed = new Map<string, boolean>()

function nearestExisting(start: string): string | undefined {
  for (let at = start; ; at = path.dirname(at)) {
    if (fs.statSync(at, { throwIfNoEntry: false })) return at
    if (path.dirname(at) === at) return undefined
  }
}

function probe(existing: string): boolean {
  // The deepest segment with a letter whose case can be swapped: the disk of the folder itself decides.
  for (let at = existing; path.dirname(at) !== at; at = path.dirname(at)) {
    const name = path.basename(at)
    const swapped = swapCase(name)
    if (swapped === name) continue
    try {
      const original = fs.statSync(at)
      const other = fs.statSync(path.join(path.dirname(at), swapped), { throwIfNoEntry: false })
      return other !== undefined && other.ino === original.ino && other.dev === original.dev
    } catch {
      return true
    }
  }
  return true
}

function swapCase(name: string): string {
  return Array.from(name, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')
}
