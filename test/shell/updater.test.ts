import { describe, expect, it, vi } from 'vitest'
import { checkForUpdates, type Updater } from '../../src/main/shell/updater'

function updater(outcome: 'ok' | 'fail') {
  const fake: Updater = {
    logger: undefined,
    checkForUpdatesAndNotify: vi.fn(async () => {
      if (outcome === 'fail') throw new Error('net::ERR_INTERNET_DISCONNECTED')
      return null
    }),
  }
  return fake
}

describe('update check', () => {
  it('never loads the updater in a development run, or when turned off', async () => {
    const load = vi.fn(async () => updater('ok'))
    expect(await checkForUpdates({ isPackaged: false, env: {}, log: () => {}, load })).toBe('skipped')
    expect(await checkForUpdates({ isPackaged: true, env: { QUIRE_NO_UPDATE: '1' }, log: () => {}, load })).toBe('skipped')
    expect(load).not.toHaveBeenCalled()
  })

  it('checks the feed once in a packaged app', async () => {
    const fake = updater('ok')
    expect(await checkForUpdates({ isPackaged: true, env: {}, log: () => {}, load: async () => fake })).toBe('checked')
    expect(fake.checkForUpdatesAndNotify).toHaveBeenCalledOnce()
    expect(fake.logger).toBeDefined()
  })

  it('logs a failed check instead of failing the app', async () => {
    const log = vi.fn()
    expect(await checkForUpdates({ isPackaged: true, env: {}, log, load: async () => updater('fail') })).toBe('failed')
    expect(log).toHaveBeenCalledWith(expect.stringContaining('ERR_INTERNET_DISCONNECTED'))
  })
})
