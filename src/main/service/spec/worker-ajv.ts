/**
 * ajv in a worker thread, set up exactly as the registry sets it up (openapi-spec.ts: AJV_OPTIONS,
 * UNCHECKED_FORMATS, the spec's components under SPEC_ID), for the workers that compile or run request
 * validators off the event loop (standalone-validators.ts, body-validator-pool.ts). Their scripts are
 * CommonJS run with `eval` (no build entry of their own): each starts with AJV_WORKER_PRELUDE and is given
 * ajvWorkerData() among its workerData.
 */
import { AJV_OPTIONS, applySpecErrata, SPEC_ID, UNCHECKED_FORMATS } from './openapi-spec'

/** The workerData fields AJV_WORKER_PRELUDE reads. Packages are required from this module's location. */
export function ajvWorkerData() {
  return {
    requireFrom: import.meta.url,
    specFile: '@gitbook/api/spec/openapi.json',
    specId: SPEC_ID,
    options: AJV_OPTIONS,
    uncheckedFormats: UNCHECKED_FORMATS,
    specErrataSource: String(applySpecErrata),
  }
}

/**
 * Worker source that defines `parentPort`, `workerData`, `load` (require from the service's packages) and
 * `createAjv(extra)`: an Ajv2020 with the registry's options, then `extra`, formats and spec components.
 */
export const AJV_WORKER_PRELUDE = `
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const { createRequire } = require('node:module')
const load = createRequire(workerData.requireFrom)
const Ajv2020 = load('ajv/dist/2020').default
const addFormats = load('ajv-formats').default

function createAjv(extra) {
  const ajv = new Ajv2020({ ...workerData.options, ...extra })
  addFormats(ajv)
  for (const format of workerData.uncheckedFormats) ajv.addFormat(format, true)
  const components = load(workerData.specFile).components
  ;(0, eval)('(' + workerData.specErrataSource + ')')(components)
  ajv.addSchema({ $id: workerData.specId, components })
  return ajv
}
`
