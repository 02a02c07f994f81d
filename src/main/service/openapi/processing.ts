import { newId } from '../store/ids'
import { OpenApiSpecsRepository, type OpenApiSpec, type ProcessOutcome } from '../store/openapi-specs'
import type { ServiceStore } from '../store/service-store'
import { fetchSpecSource, type FetchOptions } from './fetch-source'
import { parseOpenApiText } from './parse-spec'

export type OpenApiProcessingOptions = FetchOptions

const DEFAULTS: OpenApiProcessingOptions = { timeoutMs: 5_000, maxBytes: 10 * 1024 * 1024 }
const settings = new WeakMap<ServiceStore, Partial<OpenApiProcessingOptions>>()

/** Per service: tests shorten the fetch deadline without touching other services in the process. */
export function configureOpenApiProcessing(store: ServiceStore, options: Partial<OpenApiProcessingOptions>) {
  settings.set(store, { ...settings.get(store), ...options })
}

function optionsFor(store: ServiceStore): OpenApiProcessingOptions {
  return { ...DEFAULTS, ...settings.get(store) }
}

/** A fresh token for a processing run; only the run holding the spec's current token may record results. */
export const newProcessToken = () => newId()

export function outcomeFromText(text: string, url: string | null): ProcessOutcome {
  const parsed = parseOpenApiText(text)
  return parsed.ok ? { ok: true, url, text, format: parsed.format } : { ok: false, code: 'PARSE_ERROR', errors: parsed.errors }
}

/** Processes a text source at once: parsing needs no I/O, so the caller sees the result immediately. */
export function processTextSpec(store: ServiceStore, spec: OpenApiSpec, processToken: string, text: string): OpenApiSpec {
  const repo = store.repo(OpenApiSpecsRepository)
  if (!repo.markInProgress(spec.id, processToken)) return spec
  return repo.finishProcessing(spec.id, processToken, outcomeFromText(text, null)) ?? spec
}

/**
 * Fetches and parses a URL source: pending -> progress -> complete, with the error code and errors of a
 * failed run recorded on the spec. A run that a newer one (or a delete) superseded writes nothing.
 */
export async function processUrlSpec(store: ServiceStore, specId: string, processToken: string, url: string): Promise<void> {
  const repo = store.repo(OpenApiSpecsRepository)
  if (!repo.markInProgress(specId, processToken)) return
  const fetched = await fetchSpecSource(url, optionsFor(store))
  const outcome: ProcessOutcome = fetched.ok ? outcomeFromText(fetched.text, url) : { ok: false, code: fetched.code, errors: [fetched.error] }
  // The service may have shut down while the fetch was running.
  if (!store.db.open) return
  repo.finishProcessing(specId, processToken, outcome)
}
