import { describe, expect, it } from 'vitest'
import { ChannelArgsError, parseChannelArgs } from '../../src/main/app/channel-args'
import { Reconnect } from '../../src/main/app/reconnect'
import { until } from '../support/until'

describe('Reconnect: the app leaves offline by itself', () => {
  it('probes while offline, with a growing delay, and runs one cycle when the service answers', async () => {
    let offline = true
    let answers = false
    let probes = 0
    let cycles = 0
    const reconnect = new Reconnect({
      offline: () => offline,
      probe: async () => {
        probes++
        return answers
      },
      reconnected: () => {
        cycles++
        offline = false
      },
      firstDelayMs: 5,
      maxDelayMs: 20,
    })
    reconnect.check()
    await until(() => (probes >= 3 ? true : undefined), 'three failed probes')
    expect(cycles).toBe(0)
    answers = true
    await until(() => (cycles === 1 ? true : undefined), 'the cycle after the service answered')
    const after = probes
    reconnect.check() // online now: nothing is armed
    await new Promise((r) => setTimeout(r, 50))
    expect(probes).toBe(after)
    reconnect.stop()
  })

  it('a probe that throws counts as no answer; stop() ends the probing', async () => {
    let probes = 0
    const reconnect = new Reconnect({
      offline: () => true,
      probe: async () => {
        probes++
        throw new Error('fetch failed')
      },
      reconnected: () => {
        throw new Error('must not be called')
      },
      firstDelayMs: 5,
      maxDelayMs: 10,
    })
    reconnect.check()
    await until(() => (probes >= 2 ? true : undefined), 'two probes')
    reconnect.stop()
    const stoppedAt = probes
    await new Promise((r) => setTimeout(r, 60))
    expect(probes).toBeLessThanOrEqual(stoppedAt + 1)
  })
})

describe('the conflict and change request channels check their arguments', () => {
  it('a conflict copy is a relative path inside the space folder; keep is mine or theirs', () => {
    expect(parseChannelArgs('resolveConflict', [{ spaceId: 's1', copyPath: 'guide/install (conflicted copy).md', keep: 'mine' }])).toEqual([{ spaceId: 's1', copyPath: 'guide/install (conflicted copy).md', keep: 'mine' }])
    expect(() => parseChannelArgs('resolveConflict', [{ spaceId: 's1', copyPath: '../secrets.md', keep: 'mine' }])).toThrow(ChannelArgsError)
    expect(() => parseChannelArgs('resolveConflict', [{ spaceId: 's1', copyPath: '/etc/passwd', keep: 'theirs' }])).toThrow(ChannelArgsError)
    expect(() => parseChannelArgs('resolveConflict', [{ spaceId: 's1', copyPath: 'a.md', keep: 'both' }])).toThrow(/must be one of mine, theirs/)
    expect(() => parseChannelArgs('compareConflict', [{ spaceId: 's1', copyPath: 'a\\..\\b.md' }])).toThrow(ChannelArgsError)
  })

  it('change request lists take a status filter; changes take a space and a change request', () => {
    expect(parseChannelArgs('listChangeRequests', [{ status: 'merged' }])).toEqual([{ status: 'merged' }])
    expect(() => parseChannelArgs('listChangeRequests', [{ status: 'closed' }])).toThrow(ChannelArgsError)
    expect(parseChannelArgs('changeRequestChanges', [{ spaceId: 's1', changeRequestId: 'cr1' }])).toEqual([{ spaceId: 's1', changeRequestId: 'cr1' }])
  })
})
