import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openCache, quirePaths } from '../../src/main/engine/account/account'
import { UsersRepository } from '../../src/main/service/store/users'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { quire, quireHomeForFile } from './support/cli-home'

/**
 * Issue 12, the CLI as a new user meets it: the version, every command in the help, the spaces with
 * their ids and states, and a refused token said plainly everywhere (run quire login), never as a URL.
 */

const t = serviceForFile({ demo: true })
const home = quireHomeForFile('quire-cli-surface-')
const workspace = path.join(home, 'docs')

const login = () => quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)
const revoke = () => t.service.store.repo(UsersRepository).revokeToken(t.service.token)
const reissue = () => t.service.store.repo(UsersRepository).issueToken(t.service.ownerId, t.service.token)

interface SpacesJson {
  signedOut: { reason: string; hint: string } | null
  organizations: Array<{ id: string; title: string; selected: boolean; spaces: Array<{ id: string; title: string; selected: boolean; selectedBy?: string; state?: { kind: string } }> }>
}

describe('quire --version and --help', () => {
  it('--version prints the version of package.json', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string }
    expect(await quire('--version')).toMatchObject({ code: 0, out: version })
    expect(await quire('-V')).toMatchObject({ code: 0, out: version })
  })

  it('--help lists every command on one line, and each answers its own --help', async () => {
    const help = await quire('--help')
    expect(help.code).toBe(0)
    const lines = help.out.split('\n').filter((l) => /^ {2}\S/.test(l))
    const names = lines.map((l) => l.trim().split(/\s+/)[0])
    for (const name of ['service', 'login', 'logout', 'sync', 'spaces', 'status', 'links', 'watch', 'comments', 'comment', 'reply', 'resolve', 'cr', 'serve']) expect(names).toContain(name)
    for (const line of lines) expect(line, line).toMatch(/^ {2}\S+ +\S.{10,}$/)
    expect(help.out).toContain('--version')
    for (const name of names) {
      const own = await quire(name, '--help')
      expect(own.code, `${name} --help: ${own.err}`).toBe(0)
      expect(own.out, name).toMatch(new RegExp(`^quire ${name}\\b`))
    }
  })
})

describe('signed out: status, spaces and sync say run quire login', () => {
  it('before any login, status and spaces exit 1 and say how to sign in', async () => {
    const status = await quire('status')
    expect(status.code).toBe(1)
    expect(status.out).toMatch(/not signed in: run quire login/)
    expect(JSON.parse((await quire('status', '--json')).out)).toMatchObject({ account: null, signedOut: { hint: expect.stringMatching(/run quire login/) } })
    expect(await quire('spaces')).toMatchObject({ code: 1, err: expect.stringMatching(/not signed in: run quire login/) })
  })

  it('after login, quire spaces lists every space from the service with its id, none selected', async () => {
    expect((await login()).code).toBe(0)
    const listed = await quire('spaces')
    expect(listed.code, listed.err).toBe(0)
    const json = JSON.parse((await quire('spaces', '--json')).out) as SpacesJson
    const demo = json.organizations.find((o) => o.title === 'Quire Demo')!
    expect(demo.spaces.map((s) => s.title)).toEqual(['API Reference', 'Engineering Handbook', 'User Guide'])
    for (const space of demo.spaces) {
      expect(space.selected).toBe(false)
      expect(listed.out).toMatch(new RegExp(`^ {2}${space.id} +${space.title} +not selected$`, 'm'))
    }
    expect(listed.out).toContain(`Quire Demo (organization ${demo.id})`)
    expect(listed.out).toMatch(/nothing selected: choose with quire sync --space ID/)
  })

  it('a space synced by id shows as selected with its state; the others stay unselected', async () => {
    const before = JSON.parse((await quire('spaces', '--json')).out) as SpacesJson
    const guide = before.organizations.flatMap((o) => o.spaces).find((s) => s.title === 'User Guide')!
    const sync = await quire('sync', '--once', '--space', guide.id, '--workspace', workspace)
    expect(sync.code, sync.err).toBe(0)
    const listed = await quire('spaces')
    expect(listed.out).toMatch(new RegExp(`^ {2}${guide.id} +User Guide +selected +in sync$`, 'm'))
    expect(listed.out).toMatch(/API Reference +not selected$/m)
    const json = JSON.parse((await quire('spaces', '--json')).out) as SpacesJson
    expect(json.signedOut).toBeNull()
    expect(json.organizations.flatMap((o) => o.spaces).find((s) => s.id === guide.id)).toMatchObject({ selected: true, selectedBy: 'space', state: { kind: 'synced' } })
    expect((await quire('status')).code).toBe(0)
  })

  it('a refused token: sync says run quire login (no URL) and exits 1; status and spaces remember it and exit 1', async () => {
    revoke()
    const sync = await quire('sync', '--once')
    expect(sync.code).toBe(1)
    expect(sync.err).toMatch(/refused the saved token \(HTTP 401\); run quire login/)
    expect(sync.all).not.toMatch(/https?:\/\//)
    expect(sync.all).not.toMatch(/Cannot read properties/)

    // Listing everything (--all) fails on the first request: the same hint.
    const all = await quire('sync', '--once', '--all')
    expect(all.code).toBe(1)
    expect(all.err).toMatch(/refused the saved token \(HTTP 401\); run quire login/)
    expect(all.all).not.toMatch(/https?:\/\//)

    const status = await quire('status')
    expect(status.code).toBe(1)
    expect(status.out).toMatch(/but the service refused the token .*: run quire login/)
    expect(status.out).toMatch(/User Guide: signed out/)
    expect(status.out).not.toMatch(/in sync/)
    const json = JSON.parse((await quire('status', '--json')).out) as { signedOut: { reason: string }; spaces: Array<{ state: string }> }
    expect(json.signedOut.reason).toMatch(/refused the token/)
    expect(json.spaces.map((s) => s.state)).toEqual(['signed-out'])

    const spaces = await quire('spaces')
    expect(spaces.code).toBe(1)
    expect(spaces.out).toMatch(/User Guide +selected +signed out/)
    expect(spaces.err).toMatch(/run quire login/)
    expect((JSON.parse((await quire('spaces', '--json')).out) as SpacesJson).signedOut).toMatchObject({ reason: expect.stringMatching(/refused the token/), hint: expect.stringMatching(/run quire login/) })
    const refreshed = await quire('spaces', '--refresh')
    expect(refreshed).toMatchObject({ code: 1, err: expect.stringMatching(/refused the saved token \(HTTP 401\); run quire login/) })
    expect(refreshed.all).not.toMatch(/https?:\/\//)

    // A command that meets the 401 outside a pass says the same, not the request.
    const crs = await quire('cr', 'list')
    expect(crs.err).toMatch(/quire cr: the service refused the saved token \(HTTP 401\); run quire login/)
    expect(crs.code).toBe(1)
    expect(crs.all).not.toMatch(/https?:\/\//)
  })

  it('the token accepted again (a listing, or signing in) clears the refusal at once: status exits 0 before any sync', async () => {
    reissue()
    expect((await quire('spaces', '--refresh')).code).toBe(0)
    expect(await quire('status')).toMatchObject({ code: 0, out: expect.stringMatching(/User Guide: in sync/) })

    revoke()
    expect((await quire('sync', '--once')).code).toBe(1)
    expect((await quire('status')).code).toBe(1)
    reissue()
    expect((await login()).code).toBe(0)
    const status = await quire('status')
    expect(status.code, status.out).toBe(0)
    expect(status.out).toMatch(/User Guide: in sync/)
  })
})

describe('quire watch --all', () => {
  it('selects every organization like sync --all, and syncs every space', async () => {
    const watched = await quire('watch', '--once', '--all')
    expect(watched.code, watched.err).toBe(0)
    const cache = openCache(quirePaths())
    try {
      const account = cache.activeAccount()!
      expect(cache.organizations(account.id).every((o) => o.selected)).toBe(true)
      expect(cache.selectedSpaces().map((s) => s.title)).toEqual(['API Reference', 'Engineering Handbook', 'User Guide'])
    } finally {
      cache.close()
    }
    expect(fs.readdirSync(path.join(workspace, 'Quire Demo')).sort()).toEqual(['API Reference', 'Engineering Handbook', 'User Guide'])
    const json = JSON.parse((await quire('spaces', '--json')).out) as SpacesJson
    expect(json.organizations.flatMap((o) => o.spaces).map((s) => [s.title, s.selectedBy, s.state?.kind])).toEqual([
      ['API Reference', 'organization', 'synced'],
      ['Engineering Handbook', 'organization', 'synced'],
      ['User Guide', 'organization', 'synced'],
    ])
    expect((await quire('spaces')).out).toMatch(/selected with every space in it/)
    expect(await quire('watch', '--once', '--all', '--space', 'x')).toMatchObject({ code: 1, err: expect.stringMatching(/--all cannot be combined/) })
  })
})
