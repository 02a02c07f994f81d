import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { main } from '../../../src/main/cli/main'
import type { TestService } from '../../support/service'
import { seedSpace, type SeededSpace } from '../../engine/sync-up/support/workspace'

/** What a CLI run printed: each stream's lines joined, and both in the order of the streams. */
export interface CliRun {
  code: number
  out: string
  err: string
  /** Standard output then standard error. */
  all: string
}

/** Runs the CLI in this process (not a terminal), output captured. */
export async function quire(...args: string[]): Promise<CliRun> {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), isTTY: false })
  return { code, out: out.join('\n'), err: err.join('\n'), all: [...out, ...err].join('\n') }
}

/**
 * A Quire home for the CLI tests of one file: a new folder (named from `prefix`) that is QUIRE_HOME
 * while they run, so the cache and the tokens (in files: QUIRE_TOKEN_STORE=file, never the machine's
 * keychain) are the file's own. Removed after them, both variables unset.
 */
export function quireHomeForFile(prefix: string): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  beforeAll(() => {
    process.env.QUIRE_HOME = home
    process.env.QUIRE_TOKEN_STORE = 'file'
  })
  afterAll(() => {
    fs.rmSync(home, { recursive: true, force: true })
    delete process.env.QUIRE_HOME
    delete process.env.QUIRE_TOKEN_STORE
  })
  return home
}

/** `quire login` to the service `t` as its owner; the run must succeed. */
export async function loginTo(t: TestService): Promise<void> {
  const login = await quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)
  expect(login.code, login.err).toBe(0)
}

/**
 * A newly seeded space (Acme/Docs) mirrored into `home`/ws by `quire login` and `quire sync --once`,
 * as a writer has it before editing; `folder` is the space's folder.
 */
export async function mirroredSeededSpace(t: TestService, home: string): Promise<{ seeded: SeededSpace; folder: string }> {
  const seeded = await seedSpace(t)
  await loginTo(t)
  const sync = await quire('sync', '--once', '--space', seeded.spaceId, '--workspace', path.join(home, 'ws'))
  expect(sync.code, sync.err).toBe(0)
  return { seeded, folder: path.join(home, 'ws', 'Acme', 'Docs') }
}
