import { describe, expect, it } from 'vitest'
import { trayStateWords } from '../../src/main/shell/tray-state'
import { space, status } from './fixtures'

const now = new Date('2025-01-01T00:10:00.000Z')
const syncedAt = '2025-01-01T00:06:00.000Z'

describe('trayStateWords: the window header’s words, in the tray', () => {
  it('never says in sync when nothing is selected', () => {
    expect(trayStateWords(status([]), now)).toBe('No spaces chosen to sync (Choose spaces)')
  })

  it('names each state in plain words with its way out', () => {
    expect(trayStateWords(status([space('a', 'synced', { lastSyncAt: syncedAt })]), now)).toBe('In sync')
    expect(trayStateWords(status([space('a', 'offline', { lastSyncAt: syncedAt })], { overall: 'offline' }), now)).toBe('Offline, last synced 4 min ago (Retry now)')
    expect(trayStateWords(status([space('a', 'pending', { pending: 3 })], { overall: 'pending' }), now)).toBe('3 edits waiting to be sent')
    expect(trayStateWords(status([space('a', 'syncing', { syncDone: 2, syncTotal: 9 })], { overall: 'syncing' }), now)).toBe('Syncing 2 of 9')
    expect(trayStateWords(status([space('a', 'paused')], { overall: 'paused', paused: true }), now)).toBe('Paused (Resume)')
    expect(trayStateWords(status([space('a', 'conflict')], { overall: 'conflict', conflicts: [{ spaceId: 'a', path: 'guide/install.md', copyPath: 'guide/install (conflicted copy).md' }] }), now)).toBe(
      '1 conflict: guide/install.md (Show conflicts)',
    )
    expect(trayStateWords(status([space('a', 'signed-out')], { overall: 'signed-out' }), now, 'the service refused the token')).toBe('Signed out (Sign in again)')
  })
})
