import type { CustomFont } from '../../store/fonts'

/**
 * Where a font file is downloaded from, and its format when the storage key's extension tells it.
 * The local service keeps no uploaded files: the URL names the key under the service origin.
 */
export function fontSource(origin: string, storageKey: string) {
  const url = `${origin}/storage/${storageKey.split('/').map(encodeURIComponent).join('/')}`
  const extension = /\.(woff2?)$/i.exec(storageKey)?.[1].toLowerCase()
  return extension === 'woff' || extension === 'woff2' ? { url, format: extension } : { url }
}

/** The spec's `CustomizationFontDefinition`. */
export function fontJson(font: CustomFont, origin: string, canEdit: boolean) {
  return {
    id: font.id,
    custom: true,
    fontFamily: font.fontFamily,
    fontFaces: font.faces.map((face) => ({ weight: face.weight, sources: [fontSource(origin, face.storageKey)] })),
    permissions: { edit: canEdit },
  }
}
