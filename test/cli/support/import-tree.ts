import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { OrganizationsRepository } from '../../../src/main/service/store/organizations'
import { corpusTree, writeTree } from '../../support/gitsync-corpus'
import { startTestService, type TestService } from '../../support/service'
import type { LocalServiceOptions } from '../../../src/main/service/local-service'
import { loginTo } from './cli-home'

export { quire } from './cli-home'

/** Every file of a tree, `/`-separated, relative to `root`. */
export function listTree(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string, rel: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) walk(path.join(dir, entry.name), r)
      else out.push(r)
    }
  }
  walk(root, '')
  return out.sort()
}

/** A corpus tree made whole in `dir` (see test/support/gitsync-corpus.ts: assets to the manifest's names and sizes). */
export function makeTree(name: string, dir: string): { assets: number } {
  const files = corpusTree(name)
  writeTree(dir, files)
  return { assets: [...files.keys()].filter((rel) => rel.startsWith('.gitbook/assets/')).length }
}

/**
 * The local service and a test folder for a file of import tests: an organization "Acme" to import into,
 * and Quire homes signed in to the service (each with its own cache and tokens, QUIRE_HOME set to it).
 */
export function importFixture(prefix: string, serviceOptions: LocalServiceOptions = {}) {
  const fixture = {} as { t: TestService; base: string; orgId: string; signedInHome(name: string): Promise<string> }
  beforeAll(async () => {
    fixture.t = await startTestService(serviceOptions)
    fixture.base = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
    process.env.QUIRE_TOKEN_STORE = 'file'
    fixture.orgId = fixture.t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: fixture.t.service.ownerId }).id
  })
  afterAll(async () => {
    await fixture.t.close()
    fs.rmSync(fixture.base, { recursive: true, force: true })
    delete process.env.QUIRE_HOME
    delete process.env.QUIRE_TOKEN_STORE
  })
  fixture.signedInHome = async (name: string) => {
    const dir = path.join(fixture.base, name)
    fs.mkdirSync(dir, { recursive: true })
    process.env.QUIRE_HOME = dir
    await loginTo(fixture.t)
    return dir
  }
  return fixture
}
