import type { SiteType } from '../../store/sites'

export type Settings = Record<string, unknown>

/** Site types whose plan includes advanced customization; the others see premium settings masked. */
const ADVANCED_CUSTOMIZATION_TYPES: ReadonlySet<SiteType> = new Set(['ultimate'])

export function hasAdvancedCustomization(type: SiteType): boolean {
  return ADVANCED_CUSTOMIZATION_TYPES.has(type)
}

const SEMANTIC_COLORS = ['infoColor', 'successColor', 'warningColor', 'dangerColor'] as const
const FONT_KEYS = ['font', 'headingFont', 'monospaceFont'] as const

/** The settings of a site nobody has customized yet; every key the published schema requires. */
export function defaultSiteCustomization(): Settings {
  const themed = (color: string) => ({ light: color, dark: color })
  const codeTheme = { light: 'default-light', dark: 'default-dark' }
  return {
    styling: {
      theme: 'clean',
      primaryColor: themed('#346DDB'),
      infoColor: themed('#787878'),
      successColor: themed('#00C950'),
      warningColor: themed('#FE9A00'),
      dangerColor: themed('#FB2C36'),
      corners: 'straight',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      background: 'plain',
      icons: 'regular',
      codeTheme: { default: codeTheme, openapi: codeTheme },
      sidebar: { background: 'default', list: 'default' },
      search: 'prominent',
    },
    internationalization: { locale: 'en' },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'light', toggeable: true },
    feedback: { enabled: false },
    ai: { mode: 'none' },
    advancedCustomization: { enabled: true },
    trademark: { enabled: true },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    pageActions: { items: ['markdown'] },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: true },
  }
}

// Objects that are groups of independent settings: an override changes their keys one by one. Every
// other object (a themed colour, a favicon, an announcement, a content reference) is one value.
const GROUPS: ReadonlySet<string> = new Set([
  'styling',
  'styling.sidebar',
  'styling.codeTheme',
  'internationalization',
  'header',
  'footer',
  'themes',
  'feedback',
  'externalLinks',
  'pagination',
  'trademark',
  'privacyPolicy',
  'socialPreview',
])

const isPlainObject = (value: unknown): value is Settings => typeof value === 'object' && value !== null && !Array.isArray(value)
const clone = <T>(value: T): T => structuredClone(value)

/** The settings `base` with an override laid over it, group by group. */
export function mergeSettings(base: Settings, override: Settings, prefix = ''): Settings {
  const out = clone(base)
  for (const [key, value] of Object.entries(override)) {
    const path = prefix + key
    out[key] = GROUPS.has(path) && isPlainObject(value) && isPlainObject(out[key]) ? mergeSettings(out[key] as Settings, value, `${path}.`) : clone(value)
  }
  return out
}

/**
 * Applies a PATCH to a site space's override: an absent key leaves the override unchanged, null resets
 * it (the site's value shows through again), groups are patched key by key.
 */
export function applyOverridePatch(override: Settings, patch: Settings, prefix = ''): Settings {
  const out = clone(override)
  for (const [key, value] of Object.entries(patch)) {
    const path = prefix + key
    if (value === null) {
      delete out[key]
    } else if (GROUPS.has(path) && isPlainObject(value)) {
      const nested = applyOverridePatch(isPlainObject(out[key]) ? (out[key] as Settings) : {}, value, `${path}.`)
      if (Object.keys(nested).length > 0) out[key] = nested
      else delete out[key]
    } else {
      out[key] = clone(value)
    }
  }
  return out
}

const differs = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b)

/** Which premium customizations (the spec's `SiteCustomizationFeature`) the settings use. */
export function premiumCustomizationsUsed(settings: Settings): string[] {
  const defaults = defaultSiteCustomization()
  const styling = (settings.styling ?? {}) as Settings
  const header = (settings.header ?? {}) as Settings
  const footer = (settings.footer ?? {}) as Settings
  const defaultStyling = defaults.styling as Settings
  const used: string[] = []
  if (header.logo) used.push('header-logo')
  if (header.primaryLink) used.push('header-primary-link')
  if (styling.theme !== undefined && styling.theme !== defaultStyling.theme) used.push('theme-preset')
  if (FONT_KEYS.some((key) => isPlainObject(styling[key]))) used.push('premium-fonts')
  if (styling.icons !== undefined && styling.icons !== defaultStyling.icons) used.push('custom-icons')
  if (footer.logo) used.push('footer-logo')
  if (Array.isArray(footer.groups) && footer.groups.length > 0) used.push('footer-links')
  if (footer.copyright) used.push('footer-copyright')
  if (SEMANTIC_COLORS.some((key) => styling[key] !== undefined && differs(styling[key], defaultStyling[key]))) used.push('semantic-colors')
  return used
}

/**
 * What a site without advanced customization shows: premium settings are kept as stored (the
 * deprecated `unmasked` reads them) but replaced by their defaults in effect.
 */
export function maskSettings(settings: Settings, type: SiteType): Settings {
  if (hasAdvancedCustomization(type)) return clone(settings)
  const out = clone(settings)
  const defaults = defaultSiteCustomization()
  const defaultStyling = defaults.styling as Settings
  const styling = isPlainObject(out.styling) ? out.styling : undefined
  if (styling) {
    styling.theme = defaultStyling.theme
    styling.icons = defaultStyling.icons
    for (const key of SEMANTIC_COLORS) styling[key] = defaultStyling[key]
    for (const key of FONT_KEYS) if (isPlainObject(styling[key])) styling[key] = key === 'headingFont' ? null : defaultStyling[key]
  }
  if (isPlainObject(out.header)) {
    delete out.header.logo
    delete out.header.primaryLink
  }
  if (isPlainObject(out.footer)) {
    delete out.footer.logo
    delete out.footer.copyright
    out.footer.groups = []
  }
  out.advancedCustomization = { enabled: false }
  return out
}
