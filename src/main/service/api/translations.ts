import type { JSONDocument } from '../../content/types'
import { created, noContent, ok, type RequestContext, type Route } from '../http/context'
import { badRequest, conflict, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { SpacesRepository } from '../store/spaces'
import { EMPTY_DOCUMENT, TranslationsRepository, type Translation } from '../store/translations'
import { requestTranslationRun } from '../translation/runner'
import { orgForAdmin, orgForMember, type OrgCaller } from './serializers/org-admin-access'
import { translationJson } from './serializers/translation'
import { deleteIfFound } from './delete-if-found'

interface CreateTranslationBody {
  source: { space: string; language: string }
  language: string
  instructions?: JSONDocument
}

const findTranslation = (ctx: RequestContext, caller: OrgCaller) => ctx.store.repo(TranslationsRepository).getInOrg(caller.org.id, ctx.params.translationId)

function translationOr404(ctx: RequestContext, caller: OrgCaller): Translation {
  const translation = findTranslation(ctx, caller)
  if (!translation) throw notFound(`No translation ${ctx.params.translationId} in this organization`)
  return translation
}

/** Members see translations; only administrators create, change, delete and run them. */
const json = (ctx: RequestContext, caller: OrgCaller, translation: Translation) => translationJson(translation, ctx.origin, caller.isAdmin)

export const translationRoutes: Route[] = [
  {
    operationId: 'listTranslations',
    handler: (ctx) => {
      const caller = orgForMember(ctx)
      const translations = ctx.store.repo(TranslationsRepository).listByOrg(caller.org.id)
      return ok(paginate(translations, ctx.query, (t) => json(ctx, caller, t)))
    },
  },
  {
    operationId: 'createTranslation',
    handler: (ctx) => {
      const caller = orgForAdmin(ctx)
      const body = ctx.body as CreateTranslationBody
      const space = ctx.store.repo(SpacesRepository).get(body.source.space)
      if (!space || space.deletedAt !== null || space.orgId !== caller.org.id) {
        throw badRequest(`body/source/space: no space ${body.source.space} in this organization`)
      }
      if (body.language === body.source.language) throw badRequest('body/language must differ from body/source/language')
      const translations = ctx.store.repo(TranslationsRepository)
      const existing = translations.findBySourceAndLanguage(space.id, body.language)
      if (existing) throw conflict(`Space ${space.id} already has a translation to ${body.language} (${existing.id})`)
      const translation = translations.create({
        orgId: caller.org.id,
        sourceSpaceId: space.id,
        sourceLanguage: body.source.language,
        language: body.language,
        instructions: body.instructions ?? EMPTY_DOCUMENT,
        createdBy: ctx.user.id,
      })
      return created(json(ctx, caller, translation))
    },
  },
  {
    operationId: 'getTranslation',
    handler: (ctx) => {
      const caller = orgForMember(ctx)
      return ok(json(ctx, caller, translationOr404(ctx, caller)))
    },
  },
  {
    operationId: 'updateTranslation',
    handler: (ctx) => {
      const caller = orgForAdmin(ctx)
      const translation = translationOr404(ctx, caller)
      const { instructions } = ctx.body as { instructions: JSONDocument }
      return ok(json(ctx, caller, ctx.store.repo(TranslationsRepository).setInstructions(translation.id, instructions)))
    },
  },
  {
    operationId: 'deleteTranslation',
    handler: (ctx) => {
      const caller = orgForAdmin(ctx)
      // The translated space stays: it is content of its own.
      return deleteIfFound(findTranslation(ctx, caller), (translation) => ctx.store.repo(TranslationsRepository).delete(translation.id))
    },
  },
  {
    operationId: 'runTranslation',
    handler: (ctx) => {
      const caller = orgForAdmin(ctx)
      const translation = translationOr404(ctx, caller)
      ctx.defer(requestTranslationRun(ctx.store, translation.id, ctx.user.id))
      return noContent()
    },
  },
]
