import type { Translation } from '../../store/translations'
import { apiUrl } from '../urls'

/**
 * The spec's `Translation` object. `lastRun` is this service's addition (the spec has no field for it):
 * which translator ran and whether the text was really translated, since the default one only copies.
 */
export function translationJson(translation: Translation, origin: string, canEdit: boolean) {
  const { resultSpaceId, resultRevisionId } = translation
  return {
    object: 'translation' as const,
    id: translation.id,
    status: translation.status,
    source: { space: translation.sourceSpaceId, language: translation.sourceLanguage },
    language: translation.language,
    instructions: translation.instructions,
    ...(resultSpaceId && resultRevisionId ? { result: { space: resultSpaceId, revision: resultRevisionId, language: translation.language } } : {}),
    createdAt: translation.createdAt,
    updatedAt: translation.updatedAt,
    stats: translation.stats,
    permissions: { view: true, edit: canEdit },
    urls: { location: apiUrl(origin, `/orgs/${translation.orgId}/translations/${translation.id}`) },
    ...(translation.data.lastRun ? { lastRun: translation.data.lastRun } : {}),
  }
}
