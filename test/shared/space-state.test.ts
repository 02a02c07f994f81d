import { describe, expect, it } from 'vitest'
import type { SpaceNode, StatusSnapshot } from '../../src/shared/contract'
import { deriveSpaceState, describeState, type SpaceFacts } from '../../src/shared/space-state'
import { overallWords, spaceWords } from '../../src/shared/status-words'

const facts = (over: Partial<SpaceFacts> = {}): SpaceFacts => ({ folder: 'synced', issues: [], paused: false, pushesEdits: true, pendingEdits: 0, refused: [], conflicts: [], ...over })

describe('one state per space', () => {
  it('says synced only when nothing is pending, refused, conflicted, offline or signed out', () => {
    expect(deriveSpaceState(facts())).toEqual({ kind: 'synced' })
    expect(deriveSpaceState(facts({ pendingEdits: 2 }))).toEqual({ kind: 'pending', edits: 2 })
    expect(deriveSpaceState(facts({ refused: [{ files: ['a.md'], error: 'HTTP 400: bad' }] }))).toEqual({ kind: 'error', reason: 'the service refused a change of a.md: HTTP 400: bad' })
    expect(deriveSpaceState(facts({ conflicts: [{ path: 'a.md', copy: 'a (conflicted copy).md' }] }))).toEqual({ kind: 'conflict', files: ['a.md'] })
    expect(deriveSpaceState(facts({ folder: 'offline', lastError: 'down' }))).toEqual({ kind: 'offline', reason: 'down' })
    expect(deriveSpaceState(facts({ pushStopped: { reason: 'offline', message: 'refused' }, pendingEdits: 1 }))).toEqual({ kind: 'offline', reason: 'refused', queued: 1 })
  })

  it('a refused token beats everything, and says how back', () => {
    const state = deriveSpaceState(facts({ authError: 'the service refused the token', conflicts: [{ path: 'a.md', copy: 'c' }], folder: 'error' }))
    expect(state).toEqual({ kind: 'signed-out', reason: 'the service refused the token' })
    expect(describeState(state)).toMatch(/sign in again/)
  })

  it('pausing hides progress and success, never trouble', () => {
    expect(deriveSpaceState(facts({ paused: true }))).toEqual({ kind: 'paused' })
    expect(deriveSpaceState(facts({ paused: true, pendingEdits: 3 }))).toEqual({ kind: 'paused', queued: 3 })
    expect(deriveSpaceState(facts({ paused: true, folder: 'offline' })).kind).toBe('offline')
    expect(deriveSpaceState(facts({ paused: true, issues: [{ kind: 'failed', message: 'disk full' }] }))).toEqual({ kind: 'error', reason: 'disk full' })
  })

  it('a kept local edit is a conflict only when nothing sends it', () => {
    const issues = [{ kind: 'local-edit', path: 'guide.md', message: 'kept' }]
    expect(deriveSpaceState(facts({ issues }))).toEqual({ kind: 'synced' })
    expect(deriveSpaceState(facts({ issues, pushesEdits: false }))).toEqual({ kind: 'conflict', files: ['guide.md'] })
  })

  it('a service that cannot be reached outranks running work: offline with the queued count, never syncing', () => {
    const away = 'the service at http://127.0.0.1:1 cannot be reached: fetch failed'
    expect(deriveSpaceState(facts({ unreachable: away, running: { done: 1, total: 4 }, pendingEdits: 2 }))).toEqual({ kind: 'offline', reason: away, queued: 2 })
    expect(deriveSpaceState(facts({ unreachable: away, folder: 'idle' }))).toEqual({ kind: 'offline', reason: away })
    expect(deriveSpaceState(facts({ unreachable: away }))).toEqual({ kind: 'offline', reason: away })
    // What needs the writer whatever the network does still shows, and a refused token still says how back.
    expect(deriveSpaceState(facts({ unreachable: away, conflicts: [{ path: 'a.md', copy: 'c' }] })).kind).toBe('conflict')
    expect(deriveSpaceState(facts({ unreachable: away, authError: 'refused' })).kind).toBe('signed-out')
  })

  it('running work is syncing with its counts; a space never synced is syncing too', () => {
    expect(deriveSpaceState(facts({ running: { done: 3, total: 10 } }))).toEqual({ kind: 'syncing', done: 3, total: 10 })
    expect(deriveSpaceState(facts({ folder: 'idle' }))).toEqual({ kind: 'syncing', done: 0, total: 0 })
  })
})

describe('queued work is counted while offline or paused (issue 27)', () => {
  const now = new Date('2026-01-01T12:00:00Z')
  const space = (over: Partial<SpaceNode>): SpaceNode => ({ id: 's', title: 'Docs', selected: true, synced: true, state: 'synced', lastSyncAt: '2026-01-01T11:59:50Z', ...over })
  const status = (spaces: SpaceNode[], overall: StatusSnapshot['overall']): StatusSnapshot => ({ overall, paused: overall === 'paused', spaces, brokenLinks: 0, conflicts: [], updatedAt: now.toISOString() })

  it('the CLI and the tray say how many changes wait, per space', () => {
    expect(describeState(deriveSpaceState(facts({ folder: 'offline', lastError: 'down', pendingEdits: 3 })))).toBe('offline: down; 3 changes queued')
    expect(describeState(deriveSpaceState(facts({ paused: true, pendingEdits: 1 })))).toBe('paused; 1 change queued')
    expect(describeState(deriveSpaceState(facts({ folder: 'offline', lastError: 'down' })))).toBe('offline: down')
  })

  it('the header and each space row count them', () => {
    expect(spaceWords(space({ state: 'offline', pending: 2 }), now).headline).toBe('Offline, last synced just now, 2 changes queued')
    expect(spaceWords(space({ state: 'paused', pending: 1 }), now).headline).toBe('Paused, 1 change queued')
    const offline = status([space({ state: 'offline', pending: 2 }), space({ id: 't', title: 'Notes', state: 'offline', pending: 1 })], 'offline')
    expect(overallWords(offline, now).headline).toBe('Offline, last synced just now, 3 changes queued')
    expect(overallWords(status([space({ state: 'paused', pending: 4 })], 'paused'), now).headline).toBe('Paused, 4 changes queued')
    expect(overallWords(status([space({ state: 'offline' })], 'offline'), now).headline).toBe('Offline, last synced just now')
  })
})
