import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { main } from '../../../src/main/cli/main'
import { OrganizationsRepository } from '../../../src/main/service/store/organizations'
import { corpusTree, writeTree } from '../../support/gitsync-corpus'
import { startTestService, type TestService } from '../../support/service'

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
export function importFixture(prefix: string) {
  const fixture = {} as { t: TestService; base: string; orgId: string; signedInHome(name: string): Promise<string> }
  beforeAll(async () => {
    fixture.t = await startTestService()
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
    const login = await quire('login', '--endpoint', fixture.t.service.baseUrl, '--token', fixture.t.service.token)
    expect(login.code, login.err).toBe(0)
    return dir
  }
  return fixture
}

/** Runs the CLI in this process, output captured. */
export async function quire(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), isTTY: false })
  return { code, out: out.join('\n'), err: err.join('\n') }
}
