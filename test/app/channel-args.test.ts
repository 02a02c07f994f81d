import { describe, expect, it } from 'vitest'
import { ChannelArgsError, isQuireChannel, parseChannelArgs } from '../../src/main/app/channel-args'
import { overallState } from '../../src/main/app/status'
import { QUIRE_CHANNELS } from '../../src/shared/contract'

describe('channel arguments', () => {
  it('knows every channel of the contract and nothing else', () => {
    for (const channel of QUIRE_CHANNELS) expect(isQuireChannel(channel)).toBe(true)
    for (const name of ['constructor', '__proto__', 'toString', 'onEvent', 'close', '']) expect(isQuireChannel(name)).toBe(false)
  })

  it('passes well-formed arguments through, without extra keys', () => {
    expect(parseChannelArgs('getSession', [])).toEqual([])
    expect(parseChannelArgs('setPaused', [true])).toEqual([true])
    expect(parseChannelArgs('useDemoServiceAs', [{ as: 'reviewer' }])).toEqual([{ as: 'reviewer' }])
    expect(parseChannelArgs('signIn', [{ endpoint: 'https://api.example.com', token: 'gb_api_x' }])).toEqual([{ endpoint: 'https://api.example.com', token: 'gb_api_x' }])
    expect(parseChannelArgs('listChangeRequests', [{}])).toEqual([{}])
    expect(parseChannelArgs('listChangeRequests', [{ mine: true }])).toEqual([{ mine: true }])
    expect(parseChannelArgs('openLocalFile', [{ file: '/home/a/Quire/x.md', line: 3 }])).toEqual([{ file: '/home/a/Quire/x.md', line: 3 }])
    expect(parseChannelArgs('updateSettings', [{ intervalSeconds: 30, paused: false }])).toEqual([{ intervalSeconds: 30, paused: false }])
  })

  it.each([
    ['getSession', [1], /takes 0 argument/],
    ['getSession', 'nope', /JSON array/],
    ['setPaused', ['true'], /true or false/],
    ['useDemoServiceAs', [{ as: 'owner' }], /must be one of writer, reviewer/],
    ['useDemoServiceAs', [], /takes 1 argument/],
    ['signIn', [{ endpoint: 'not a url', token: 't' }], /must be a URL/],
    ['signIn', [{ endpoint: 'file:///etc', token: 't' }], /http\(s\)/],
    ['signIn', [{ endpoint: 'https://x.example', token: '' }], /must not be empty/],
    ['signIn', [null], /must be an object/],
    ['signIn', [[]], /must be an object/],
    ['setSelection', [{ kind: 'space', id: 'a/b', selected: true }], /identifier/],
    ['setSelection', [{ kind: 'space', id: 'x'.repeat(201), selected: true }], /at most 200/],
    ['setSelection', [{ kind: 'space', id: 'a', selected: true, extra: 1 }], /not a known field/],
    ['postComment', [{ spaceId: 's', pageId: 'p', markdown: 'x'.repeat(20_001) }], /at most 20000/],
    ['openLocalFile', [{ file: 'x.md' }], /absolute path/],
    ['openLocalFile', [{ file: '/x.md', line: 1.5 }], /integer/],
    ['openExternal', [{ url: 'javascript:alert(1)' }], /http\(s\)/],
    // Settings are refused in the Settings screen's words (issue 27), never `updateSettings[0].workspace`.
    ['updateSettings', [{ intervalSeconds: 5 }], /^"Sync every \(seconds\)" must be between 10 seconds and 86400 \(a day\)\. Nothing was saved\.$/],
    ['updateSettings', [{ workspace: '~/Quire' }], /^The workspace folder must be a full path, from the top of the disk .*: "~\/Quire" is not\. Nothing was saved\.$/],
  ] as const)('refuses %s %j', (channel, args, message) => {
    expect(() => parseChannelArgs(channel, args)).toThrow(ChannelArgsError)
    expect(() => parseChannelArgs(channel, args)).toThrow(message)
  })
})

describe('overall state: the worst space decides', () => {
  it('orders signed-out > error > conflict > offline > syncing > pending > paused > synced', () => {
    expect(overallState(false, [{ state: 'error' }])).toBe('signed-out')
    expect(overallState(true, [])).toBe('synced')
    expect(overallState(true, [{ state: 'synced' }, { state: 'syncing' }])).toBe('syncing')
    expect(overallState(true, [{ state: 'synced' }, { state: 'pending' }])).toBe('pending')
    expect(overallState(true, [{ state: 'offline' }, { state: 'syncing' }])).toBe('offline')
    expect(overallState(true, [{ state: 'conflict' }, { state: 'offline' }])).toBe('conflict')
    expect(overallState(true, [{ state: 'conflict' }, { state: 'error' }])).toBe('error')
    expect(overallState(true, [{ state: 'paused' }, { state: 'synced' }])).toBe('paused')
    expect(overallState(true, [{ state: 'error' }, { state: 'signed-out' }])).toBe('signed-out')
  })
})
