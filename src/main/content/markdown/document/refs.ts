/**
 * Link targets <-> the API's content references.
 *
 * Markdown names things by path or URL; a JSON document names them by
 * reference (`{kind: 'page', page: id}`, `{kind: 'file', file: id}`...). The
 * mapping between the two needs the revision's tree, which the caller has and
 * we do not, so it is injected; without it targets become URL references and
 * come back as the same text.
 */
import type { ContentRef } from '@gitbook/api'
import { classifyTarget, type LinkKind } from '../links'

export type { ContentRef }

export interface DocumentConversionOptions {
  /** Reference for a markdown target (page path, asset path...), or undefined to keep it as a URL. */
  resolveTarget?(target: string, kind: LinkKind): ContentRef | undefined
  /** Markdown target for a reference, or undefined for the default (`/pages/<id>`, `/files/<id>`, ...). */
  refToTarget?(ref: ContentRef): string | undefined
}

export function targetToRef(target: string, options: DocumentConversionOptions): ContentRef {
  const kind = classifyTarget(target)
  const resolved = options.resolveTarget?.(target, kind)
  if (resolved) return resolved
  if (kind === 'anchor') return { kind: 'anchor', anchor: target.slice(1) }
  return { kind: 'url', url: target }
}

/** File-or-URL reference, the only kinds images accept. */
export function imageRef(target: string, options: DocumentConversionOptions): Extract<ContentRef, { kind: 'file' | 'url' }> {
  const ref = targetToRef(target, options)
  return ref.kind === 'file' || ref.kind === 'url' ? ref : { kind: 'url', url: target }
}

export function refToTarget(ref: ContentRef, options: DocumentConversionOptions): string {
  const custom = options.refToTarget?.(ref)
  if (custom !== undefined) return custom
  switch (ref.kind) {
    case 'url':
      return ref.url
    case 'anchor':
      return ref.page ? `/pages/${ref.page}#${ref.anchor}` : `#${ref.anchor}`
    case 'page':
      return `/pages/${ref.page}`
    case 'file':
      return `/files/${ref.file}`
    default:
      return ''
  }
}
