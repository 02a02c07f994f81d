import fs from 'node:fs'
import type { PagePreview } from '../../shared/contract'
import { previewSpacePage, PreviewRefused, spaceFolderPath, type CacheRepository } from '../engine'
import { AppError } from './errors'

/**
 * The app's page preview: the engine renders (engine/preview), this finds the space's folder. Only
 * synced spaces with a folder on disk are previewed; the path is checked again by the engine.
 */
export function previewPage(cache: CacheRepository, workspace: string, input: { spaceId: string; path: string; markdown?: string }): PagePreview {
  const space = cache.selectedSpaces().find((s) => s.id === input.spaceId)
  if (!space) throw new AppError('not-found', `No synced space ${input.spaceId}.`)
  const folder = spaceFolderPath(cache, workspace, space)
  if (!folder || !fs.existsSync(folder)) throw new AppError('not-found', `${space.title} has no folder yet: it is previewed once its first sync wrote it.`)
  try {
    const { title, tree } = previewSpacePage(folder, input.path, input.markdown)
    return { spaceId: input.spaceId, path: input.path, ...(title ? { title } : {}), tree }
  } catch (error) {
    if (error instanceof PreviewRefused) throw new AppError(error.reason, `Cannot preview ${input.path}: ${error.message}.`)
    throw error
  }
}
