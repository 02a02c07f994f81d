import fs from 'node:fs'
import { afterAll, beforeAll } from 'vitest'
import type { LocalServiceOptions } from '../../../../src/main/service/local-service'
import { startTestService, type TestService } from '../../../support/service'
import { seedSpace, tempDir, Workstation } from './workspace'

/**
 * The real local service for the tests of one file: started before them (with `options`, e.g. the
 * demo's content), closed after them unless a test closed it already (to play offline). The object is
 * returned at once and reads through to the service, so it can be used at the top level of the file.
 */
export function serviceForFile(options: LocalServiceOptions = {}): TestService {
  let started: TestService | undefined
  let closed = false
  beforeAll(async () => {
    started = await startTestService(options)
  })
  afterAll(async () => {
    if (!closed) await started?.close()
  })
  const current = (): TestService => {
    if (!started) throw new Error('the test service is started in beforeAll')
    return started
  }
  return {
    get service() {
      return current().service
    },
    get api() {
      return current().api
    },
    close: () => {
      closed = true
      return current().close()
    },
  }
}

/** A workstation in a new temporary folder, for a newly seeded space (not pulled yet). */
export async function seededWorkstation(t: TestService, prefix?: string): Promise<Workstation> {
  const dir = tempDir(prefix)
  return new Workstation(t, await seedSpace(t), dir)
}

/** Closes the workstation and removes its folder. */
export function removeWorkstation(ws: Workstation) {
  ws.close()
  fs.rmSync(ws.dir, { recursive: true, force: true })
}

/** A fetch that records each request as `METHOD /path` (the API's `/v1` prefix dropped) in `requests`, then sends it. */
export function recordingFetch(requests: string[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    requests.push(`${(init?.method ?? 'GET').toUpperCase()} ${url.pathname.replace(/^\/v1/, '')}`)
    return fetch(input, init)
  }
}
