import type { ServiceStore } from '../store/service-store'

export interface TranslateOptions {
  /** Language codes of the spec's `TranslationLanguage` (e.g. `en`, `fr`, `pt-br`). */
  from: string
  to: string
  /** The translation's instructions as plain text; empty when none were given. */
  instructions: string
}

/**
 * Turns text of one language into another. Texts are page titles, descriptions and whole markdown page
 * bodies: a translator must leave markdown syntax, links and `{% %}` blocks intact.
 */
export interface Translator {
  /** Shown in the translation's run report. */
  readonly name: string
  /** False for translators that do not change the text, so the run report can say the copy is untranslated. */
  readonly machineTranslation: boolean
  translate(text: string, options: TranslateOptions): Promise<string>
}

/**
 * The local service has no translation engine: by default a run copies the text unchanged, and every run
 * report says so.
 */
export const copyTranslator: Translator = {
  name: 'copy',
  machineTranslation: false,
  translate: (text) => Promise.resolve(text),
}

const translators = new WeakMap<ServiceStore, Translator>()

/** Plugs a translator into one running service (an embedding app or a test supplies a real one). */
export function setTranslator(store: ServiceStore, translator: Translator) {
  translators.set(store, translator)
}

export function translatorFor(store: ServiceStore): Translator {
  return translators.get(store) ?? copyTranslator
}
