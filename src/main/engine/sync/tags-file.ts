import type { Revision } from '@gitbook/api'
import { gitBlobOid } from '../../content'
import { renderTagsYaml } from '../../content/gitsync/tags-yaml'
import type { RemoteEntry } from './plan-types'

/** Where Git Sync keeps a space's tags, beside the assets. */
export const TAGS_FILE = '.gitbook/tags.yaml'
/** The journal's id of the tags file (no tag has an id of its own: the file is the revision's list). */
export const TAGS_ENTRY_ID = 'quire:tags'

type RevisionTags = Extract<Revision, { tags: unknown }>['tags']

/**
 * `.gitbook/tags.yaml` as Git Sync writes it from a revision's tags, one item per tag in the
 * revision's order with its keys in Git Sync's order (`tag`, `label`, `emoji` or `icon`, `color` unless
 * the default), or undefined when the revision has none (Git Sync writes no file then):
 *
 *   - tag: beta
 *     label: Beta
 *     icon: flask-round-potion
 *
 * Read-only for Quire: the content API has no operation on tags, so an edit of the file stays local
 * (sync down then keeps it and says so) and is never sent.
 */
export function renderTagsFile(tags: RevisionTags | undefined): string | undefined {
  return renderTagsYaml(tags?.map((tag) => ({ slug: tag.slug, label: tag.label, color: tag.color, ...('emoji' in tag && tag.emoji ? { emoji: tag.emoji } : {}), ...('icon' in tag && tag.icon ? { icon: tag.icon } : {}) })))
}

/** The remote entry of the tags file, written from its rendered text like SUMMARY.md (no download). */
export function tagsEntry(tags: RevisionTags | undefined): RemoteEntry | undefined {
  const text = renderTagsFile(tags)
  return text === undefined ? undefined : { id: TAGS_ENTRY_ID, kind: 'file', path: TAGS_FILE, oid: gitBlobOid(text), content: text }
}
