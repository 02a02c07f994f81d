import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid } from '../../content'
import { relinkedText } from '../links/relink'
import { writeFileAtomic } from '../workspace/atomic-write'
import { SpaceFolder } from '../workspace/space-folder'
import type { ImportContext } from './import-runner'
import type { ImportNote } from './import-notes'
import type { ImportPlan } from './import-plan'
import { readBack } from './verify-import'

/**
 * After the pages of an import are in the change request, where the content API placed them is known
 * (the tree's `## Group`s cannot be created, so their pages come back at the top level; a name taken
 * there gets a `-2`): links between pages written for the tree's places are re-pointed to those places.
 *
 * Why here, after the pages are placed, and through the space folder: only the service's tree says for
 * sure where each page went (a prediction would have to copy its placing and naming), and a page's
 * body that holds the right links is what makes both the service's link report and every mirror's
 * files right. The space folder holds each page as the service returned it (sync down wrote it); the
 * pages whose links change are written there whole (temp file, then rename) and the next push sends
 * them as edits, the way any writer's edit goes. A file changed in the folder since sync down wrote it
 * is the writer's: left as it is, and named.
 *
 * Each link is worked out from the tree's own text (relink.ts), so running this again (a resumed
 * import) changes nothing more.
 */
export async function relinkImportedPages(ctx: ImportContext, plan: ImportPlan): Promise<{ rewritten: string[]; notes: ImportNote[] }> {
  const { cache, outbox, gateway, space, tree } = ctx
  const back = await readBack({ gateway, cache, outbox, spaceId: space.id, tree, plan })
  // Only page links: links to uploaded files the service re-pointed itself when it resolved their refs.
  const placements = { pages: back.placements.pages }
  const journal = new Map(cache.journal(space.id).filter((j) => j.kind === 'page').map((j) => [j.id, j]))
  const folder = new SpaceFolder(ctx.folder)
  const rewritten: string[] = []
  const notes: ImportNote[] = []
  for (const { step, id, path: placed } of back.pages) {
    const j = journal.get(id)
    if (!j) continue // not synced down (yet): nothing on disk to fix
    const file = folder.resolve(j.path)
    const bytes = await fs.readFile(file).catch(() => undefined)
    if (!bytes) continue
    const source = await fs.readFile(path.join(tree.root, ...step.from.split('/')), 'utf8')
    const text = bytes.toString('utf8')
    const relinked = relinkedText(text, source, step.from, placed, placements)
    if (relinked === undefined) {
      if (source !== text && relinkedText(source, source, step.from, placed, placements) !== source) {
        notes.push({ kind: 'links', path: step.from, reason: `comes back as ${placed} with its links otherwise than written: its links to other pages were not re-pointed` })
      }
      continue
    }
    if (relinked === text) continue
    if (gitBlobOid(bytes) !== j.baseHash) {
      notes.push({ kind: 'links', path: step.from, reason: `${j.path} was changed in the space folder since it was imported: kept as it is, its links to other pages not re-pointed` })
      continue
    }
    await writeFileAtomic(file, Buffer.from(relinked, 'utf8'))
    rewritten.push(j.path)
  }
  return { rewritten, notes }
}
