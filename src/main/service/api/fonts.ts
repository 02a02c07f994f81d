import { created, ok, type RequestContext, type Route } from '../http/context'
import { badRequest, notFound } from '../http/errors'
import { CustomFontsRepository, type CustomFont, type StoredFontFace } from '../store/fonts'
import { deleted } from './serializers/deleted'
import { fontJson } from './serializers/font'
import { orgForAdmin, orgForMember } from './serializers/org-admin-access'

/**
 * Weights every custom font must provide: regular (400) for body text and bold (700) for headings and
 * strong text. Without them browsers synthesize faces, which is what a custom font is meant to avoid.
 */
export const REQUIRED_FONT_WEIGHTS = [400, 700] as const

interface CreateFontBody {
  fontFamily: string
  fontFaces: StoredFontFace[]
}
interface UpdateFontBody {
  fontFamily?: string
  fontFaces?: Array<{ weight: number; storageKey: string | null }>
}

function checkFamily(fontFamily: string): string {
  if (fontFamily.trim() === '') throw badRequest('body/fontFamily must not be blank')
  return fontFamily
}

function checkDistinctWeights(weights: number[]) {
  const repeated = weights.filter((w, i) => weights.indexOf(w) !== i)
  if (repeated.length > 0) throw badRequest(`body/fontFaces names weight ${repeated[0]} more than once`)
}

function checkRequiredWeights(faces: StoredFontFace[]) {
  const missing = REQUIRED_FONT_WEIGHTS.filter((w) => !faces.some((face) => face.weight === w))
  if (missing.length > 0) {
    throw badRequest(`body/fontFaces is missing required font weights ${missing.join(', ')} (a custom font needs ${REQUIRED_FONT_WEIGHTS.join(' and ')})`)
  }
}

function fontOf(ctx: RequestContext, orgId: string): CustomFont {
  const font = ctx.store.repo(CustomFontsRepository).inOrg(orgId, ctx.params.fontId)
  if (!font) throw notFound(`No font ${ctx.params.fontId} in this organization`)
  return font
}

const listFonts: Route = {
  operationId: 'listCustomFonts',
  handler: (ctx) => {
    const { org, isAdmin } = orgForMember(ctx)
    const fonts = ctx.store.repo(CustomFontsRepository).listByOrg(org.id)
    return ok({ count: fonts.length, items: fonts.map((font) => fontJson(font, ctx.origin, isAdmin)) })
  },
}

const createFont: Route = {
  operationId: 'createCustomFont',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const body = ctx.body as CreateFontBody
    const faces = body.fontFaces.map(({ weight, storageKey }) => ({ weight, storageKey }))
    checkDistinctWeights(faces.map((face) => face.weight))
    checkRequiredWeights(faces)
    const font = ctx.store.repo(CustomFontsRepository).create(org.id, checkFamily(body.fontFamily), faces)
    return created(fontJson(font, ctx.origin, true))
  },
}

const getFont: Route = {
  operationId: 'getCustomFont',
  handler: (ctx) => {
    const { org, isAdmin } = orgForMember(ctx)
    return ok(fontJson(fontOf(ctx, org.id), ctx.origin, isAdmin))
  },
}

/**
 * Updates name and faces. Faces merge by weight: a storage key replaces or adds that weight, `null`
 * removes it, weights not named stay. The result must still hold the required weights.
 */
const updateFont: Route = {
  operationId: 'updateCustomFont',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const font = fontOf(ctx, org.id)
    const body = ctx.body as UpdateFontBody
    const changes = body.fontFaces ?? []
    checkDistinctWeights(changes.map((change) => change.weight))
    const faces = new Map(font.faces.map((face) => [face.weight, face.storageKey]))
    for (const { weight, storageKey } of changes) {
      if (storageKey === null) faces.delete(weight)
      else faces.set(weight, storageKey)
    }
    const merged = [...faces].map(([weight, storageKey]) => ({ weight, storageKey }))
    checkRequiredWeights(merged)
    const family = body.fontFamily === undefined ? font.fontFamily : checkFamily(body.fontFamily)
    const updated = ctx.store.repo(CustomFontsRepository).update(font.id, family, merged)
    // The spec answers this operation with 201.
    return created(fontJson(updated, ctx.origin, true))
  },
}

const deleteFont: Route = {
  operationId: 'deleteCustomFont',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    // The interface document answers an unknown font with 404 (the spec's 204 "not found" outcome is not used).
    return deleted(ctx.store.repo(CustomFontsRepository).delete(fontOf(ctx, org.id).id))
  },
}

export const fontRoutes: Route[] = [listFonts, createFont, getFont, updateFont, deleteFont]
