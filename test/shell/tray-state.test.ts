import { describe, expect, it } from 'vitest'
import { TRAY_STATES, trayStateFrom, worstOf, type TrayState } from '../../src/main/shell/tray-state'
import { space, status } from './fixtures'

describe('trayStateFrom', () => {
  it('is synced when every selected space is synced; a refused token is an error, waiting edits are syncing', () => {
    expect(trayStateFrom(status([space('a', 'synced'), space('b', 'synced')]))).toBe('synced')
    expect(trayStateFrom(status([space('a', 'synced'), space('b', 'signed-out')]))).toBe('error')
    expect(trayStateFrom(status([space('a', 'synced'), space('b', 'pending')]))).toBe('syncing')
    expect(trayStateFrom(status([]))).toBe('synced')
  })

  it('lets the worst space decide: error > conflict > offline > syncing > paused > synced', () => {
    const order: TrayState[] = ['error', 'conflict', 'offline', 'syncing', 'paused', 'synced']
    for (let i = 0; i < order.length; i++) {
      for (let j = i; j < order.length; j++) {
        // Both orders of the spaces give the same answer: the worse one.
        expect(trayStateFrom(status([space('a', order[i]), space('b', order[j])]))).toBe(order[i])
        expect(trayStateFrom(status([space('a', order[j]), space('b', order[i])]))).toBe(order[i])
      }
    }
  })

  it('ignores spaces the user does not sync', () => {
    expect(trayStateFrom(status([space('a', 'synced'), space('b', 'error', { selected: false, synced: false })]))).toBe('synced')
  })

  it('shows a conflict copy even when every space says synced', () => {
    expect(trayStateFrom(status([space('a', 'synced')], { conflicts: [{ spaceId: 'a', path: 'x.md', copyPath: 'x (conflict).md' }] }))).toBe('conflict')
  })

  it('shows paused, unless something needs more attention or a "sync now" pass runs', () => {
    expect(trayStateFrom(status([space('a', 'synced')], { paused: true }))).toBe('paused')
    expect(trayStateFrom(status([space('a', 'syncing')], { paused: true }))).toBe('syncing')
    expect(trayStateFrom(status([space('a', 'error')], { paused: true }))).toBe('error')
  })

  it("takes the backend's overall verdict into account, signed out showing as offline", () => {
    expect(trayStateFrom(status([space('a', 'synced')], { overall: 'offline' }))).toBe('offline')
    expect(trayStateFrom(status([], { overall: 'signed-out' }))).toBe('offline')
    expect(trayStateFrom(status([space('a', 'error')], { overall: 'signed-out' }))).toBe('error')
  })

  it('worstOf covers every tray state', () => {
    expect(worstOf([])).toBe('synced')
    expect(worstOf(TRAY_STATES)).toBe('error')
    for (const state of TRAY_STATES) expect(worstOf([state, 'synced'])).toBe(state)
  })
})
