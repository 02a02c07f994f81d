import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { electronSqliteBinding } from '../../src/main/shell/native-binding'

describe('better-sqlite3 for Electron in development', () => {
  let appPath: string
  beforeEach(() => {
    appPath = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-native-'))
  })
  afterEach(() => fs.rmSync(appPath, { recursive: true, force: true }))

  const build = (electron: string) => {
    const dir = path.join(appPath, 'node_modules', '.quire-electron')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'better_sqlite3.node'), 'addon')
    fs.writeFileSync(path.join(dir, 'stamp.json'), JSON.stringify({ electron }))
  }

  it('uses the default (rebuilt) addon in a packaged app', async () => {
    expect(await electronSqliteBinding({ isPackaged: true, appPath, electronVersion: '45.4.1' })).toEqual({})
  })

  it('finds the Electron build made for this Electron', async () => {
    build('45.4.1')
    expect(await electronSqliteBinding({ isPackaged: false, appPath, electronVersion: '45.4.1' })).toEqual({
      file: path.join(appPath, 'node_modules', '.quire-electron', 'better_sqlite3.node'),
    })
  })

  it('says what to run when the build is missing or made for another Electron', async () => {
    expect((await electronSqliteBinding({ isPackaged: false, appPath, electronVersion: '45.4.1' })).problem).toMatch(/npm run rebuild:electron/)
    build('44.0.0')
    expect((await electronSqliteBinding({ isPackaged: false, appPath, electronVersion: '45.4.1' })).problem).toMatch(/built for Electron 44\.0\.0, this is 45\.4\.1/)
  })
})
