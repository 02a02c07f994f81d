/**
 * `.gitbook/tags.yaml`, where Git Sync keeps a space's tags: one item per tag in the revision's order,
 * its keys in Git Sync's order (`tag`, `label`, `emoji` or `icon`, `color` unless the default):
 *
 *   - tag: beta
 *     label: Beta
 *     icon: flask-round-potion
 */
import yaml from 'js-yaml'
import type { TreeTag } from '../types'

export const TAGS_FILE = '.gitbook/tags.yaml'

/** The file's text, or undefined when there are no tags (Git Sync writes no file then). */
export function renderTagsYaml(tags: readonly TreeTag[] | undefined): string | undefined {
  if (!tags || tags.length === 0) return undefined
  const items = tags.map((tag) => ({
    tag: tag.slug,
    label: tag.label,
    ...(tag.emoji ? { emoji: tag.emoji } : tag.icon ? { icon: tag.icon } : {}),
    ...(tag.color && tag.color !== 'default' ? { color: tag.color } : {}),
  }))
  return yaml.dump(items, { lineWidth: -1, noRefs: true })
}
