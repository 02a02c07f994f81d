import { rewriteLinks, type ContentChange } from '../../content'
import { UnsendableError } from './outbox-errors'
import type { OutboxRepository } from './outbox-repository'

/**
 * Refs defined by earlier batches are ids by now: `page`/`into` and `./<ref>` links are rewritten to
 * the ids (a batch only resolves its own refs).
 */
export function withKnownRefs(outbox: Pick<OutboxRepository, 'idOfRef'>, spaceId: string, changes: readonly ContentChange[], local: ReadonlySet<string>): ContentChange[] {
  const idOf = (handle: string): string => {
    if (!handle.startsWith('quire-') || local.has(handle)) return handle
    const id = outbox.idOfRef(spaceId, handle)
    if (!id) throw new UnsendableError(`this batch depends on ${handle}, which the service never created`)
    return id
  }
  const links = (markdown: string) =>
    rewriteLinks(markdown, (link) => {
      const match = /^\.\/(quire-[A-Za-z0-9-]+?)(\.md)?(#.*)?$/.exec(link.target)
      if (!match || local.has(match[1])) return undefined
      const id = idOf(match[1])
      return `${match[2] ? '/pages/' : '/files/'}${id}${match[3] ?? ''}`
    })
  return changes.map((change) => {
    switch (change.operation) {
      case 'insert_page':
        return {
          ...change,
          ...(change.into !== undefined ? { into: idOf(change.into) } : {}),
          ...('markdown' in change.document && typeof change.document.markdown === 'string' ? { document: { markdown: links(change.document.markdown) } } : {}),
        }
      case 'update_page':
        return {
          ...change,
          page: idOf(change.page),
          ...(typeof change.into === 'string' ? { into: idOf(change.into) } : {}),
          ...(change.document && 'markdown' in change.document && typeof change.document.markdown === 'string' ? { document: { markdown: links(change.document.markdown) } } : {}),
        }
      case 'delete_page':
        return { ...change, page: idOf(change.page) }
      default:
        return change
    }
  })
}

/** The refs a content batch defines itself (pages and files it creates). */
export function definedRefs(defines: readonly string[]): Set<string> {
  return new Set(defines.flatMap((d) => d.split(' ')))
}
