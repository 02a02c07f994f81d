/**
 * The atomic floor's writes (bench:mirror, bench:scale): each file written as Quire's promises require
 * and no more, so a sync's time can be set against what those promises cost by themselves on this disk.
 */
import fs from 'node:fs'
import path from 'node:path'

/**
 * The least a write must do to keep the promises (atomic, never over a file that appeared, durable):
 * a temp file beside the target, created exclusively and written O_DSYNC, linked to its name (`link`
 * fails if the name is taken), the temp removed. What the engine adds beyond this is its own cost.
 */
export async function writeAtomicNoClobber(full: string, data: string | Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(full), `.floor-tmp-${Math.random().toString(36).slice(2)}`)
  const { O_WRONLY, O_CREAT, O_EXCL, O_DSYNC } = fs.constants
  const handle = await fs.promises.open(temp, O_WRONLY | O_CREAT | O_EXCL | (O_DSYNC ?? 0), 0o644)
  try {
    await handle.writeFile(data)
  } finally {
    await handle.close()
  }
  await fs.promises.link(temp, full)
  await fs.promises.unlink(temp)
}

/** One fsync of a folder, after its last file: the new names durable. */
export async function syncFolder(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
