import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { SYNC_PROCESS_NODE_FLAGS } from '../../src/main/node-flags'

const bin = path.resolve(__dirname, '../../bin/quire.mjs')

describe('the flags a syncing process starts with', () => {
  it("bin/quire.mjs's first line starts node with SYNC_PROCESS_NODE_FLAGS, in a form env -S and npm's Windows shim read", () => {
    const first = fs.readFileSync(bin, 'utf8').split('\n')[0]
    // cmd-shim's pattern for a shebang (npm's Windows shim): env, an optional -S, the program, its arguments.
    const shim = /^#!\s*(?:\/usr\/bin\/env\s+(?:-S\s+)?((?:[^ \t=]+=[^ \t=]+\s+)*))?([^ \t]+)(.*)$/.exec(first)
    expect(shim?.[2]).toBe('node')
    expect(shim?.[3].trim().split(/\s+/)).toEqual([...SYNC_PROCESS_NODE_FLAGS])
    expect(first).toBe(`#!/usr/bin/env -S node ${SYNC_PROCESS_NODE_FLAGS.join(' ')}`)
  })

  it.runIf(process.platform !== 'win32')('run as a program (its first line), quire starts node with them', () => {
    // What a user's shell does with `quire` (npm links node_modules/.bin/quire to the file itself).
    const probe = spawnSync(bin, ['--help'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '--require ./test/cli/support/print-exec-argv.cjs' } })
    expect(probe.status, probe.stderr).toBe(0)
    const execArgv = JSON.parse(/exec-argv=(.*)/.exec(probe.stderr)?.[1] ?? '[]') as string[]
    expect(execArgv).toEqual(expect.arrayContaining([...SYNC_PROCESS_NODE_FLAGS]))
  })
})
