import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { migrate, NewerDatabaseError, type Migration } from '../../src/main/db/migrate'
import { openServiceDatabase } from '../../src/main/service/store/database'
import { serviceMigrations } from '../../src/main/service/store/migrations'

const dirs: string[] = []
function throwawayFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-migrate-'))
  dirs.push(dir)
  return path.join(dir, 'test.db')
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const table = (version: number, name: string): Migration => ({ version, name, up: (db) => db.exec(`CREATE TABLE ${name} (id INTEGER)`) })

describe('migrate', () => {
  it('applies pending migrations in order and records user_version', () => {
    const db = new Database(throwawayFile())
    expect(migrate(db, [table(2, 'b'), table(1, 'a')])).toBe(2)
    expect(db.pragma('user_version', { simple: true })).toBe(2)
    expect(migrate(db, [table(1, 'a'), table(2, 'b'), table(3, 'c')])).toBe(3)
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()
    expect(names).toEqual(['a', 'b', 'c'])
    db.close()
  })

  it('rolls a failing migration back whole and keeps the previous version', () => {
    const db = new Database(throwawayFile())
    migrate(db, [table(1, 'a')])
    const failing: Migration = {
      version: 2,
      name: 'half',
      up: (d) => {
        d.exec('CREATE TABLE half (id INTEGER)')
        throw new Error('disk on fire')
      },
    }
    expect(() => migrate(db, [table(1, 'a'), failing])).toThrow('disk on fire')
    expect(db.pragma('user_version', { simple: true })).toBe(1)
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0)
    db.close()
  })

  it('refuses a database written by a newer version', () => {
    const db = new Database(throwawayFile())
    db.pragma('user_version = 9')
    expect(() => migrate(db, [table(1, 'a')])).toThrow(NewerDatabaseError)
    db.close()
  })

  it('rejects gaps in the version numbers', () => {
    const db = new Database(':memory:')
    expect(() => migrate(db, [table(1, 'a'), table(3, 'c')])).toThrow(/without gaps/)
  })

  it('brings a fresh service database to the latest version in WAL mode, and reopens it', () => {
    const file = throwawayFile()
    const db = openServiceDatabase(file)
    expect(db.pragma('user_version', { simple: true })).toBe(serviceMigrations.length)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    db.close()
    const again = openServiceDatabase(file)
    expect(again.pragma('user_version', { simple: true })).toBe(serviceMigrations.length)
    again.close()
  })
})
