/**
 * Issue 26, item 1: where file bytes may come from. The policy is a pure function of the API's network,
 * the target URL and the addresses its name resolves to, tested directly here in both directions (a
 * hosted service on the internet, a service on this machine); then through the gateway against a real
 * loopback server behind a name that resolves one way for the check and another for the connection.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiGateway } from '../../src/main/engine/gateway/api-gateway'
import { addressNetwork, DownloadPolicy, DownloadRefusedError, hostNetwork, judgeDownload } from '../../src/main/engine/gateway/download-policy'

const hosted = { origin: 'https://api.gitbook.com', network: 'public' as const }
const local = { origin: 'http://127.0.0.1:4000', network: 'private' as const }
const judge = (api: typeof hosted | typeof local, url: string, addresses: string[] = []) => judgeDownload(api, new URL(url), addresses)

describe('addresses and hosts', () => {
  it('loopback, private, link-local, unspecified and unique-local addresses are private, IPv4-mapped ones too', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      expect(addressNetwork(a), a).toBe('private')
    }
    for (const a of ['8.8.8.8', '172.32.0.1', '151.101.1.1', '2606:4700::1111', '::ffff:8.8.8.8']) expect(addressNetwork(a), a).toBe('public')
  })

  it('a host is told without DNS when it is an IP literal or localhost; other names need their addresses', () => {
    expect(hostNetwork('localhost')).toBe('private')
    expect(hostNetwork('files.localhost')).toBe('private')
    expect(hostNetwork('[::1]')).toBe('private')
    // The URL parser writes numeric IPv4 forms out: http://2130706433/ is 127.0.0.1.
    expect(hostNetwork(new URL('http://2130706433/').hostname)).toBe('private')
    expect(hostNetwork('files.gitbook.com')).toBeUndefined()
  })
})

describe('a service on the public internet', () => {
  it('may name any https file host on the internet', () => {
    for (const url of ['https://files.gitbook.com/v0/b/x.png?token=t', 'https://gblobscdn.gitbook.com/assets/a.png', 'https://acme-files.gitbook.io/x', 'https://cdn.example.net/a.svg']) {
      expect(judge(hosted, url, ['151.101.1.1']), url).toEqual({ allowed: true })
    }
    expect(judge(hosted, 'https://api.gitbook.com/files/x')).toEqual({ allowed: true })
  })

  it('may not make Quire fetch from this machine or its network, by address or by a name that resolves there, nor over plain http', () => {
    const refusals: Array<[string, string[], RegExp]> = [
      ['https://127.0.0.1:9000/x', [], /this machine or a private network/],
      ['https://localhost/x', [], /this machine or a private network/],
      ['https://[::1]/x', [], /this machine or a private network/],
      ['https://169.254.169.254/latest/meta-data', [], /this machine or a private network/],
      ['https://0.0.0.0/x', [], /this machine or a private network/],
      ['https://router.example.com/admin', ['10.0.0.1'], /resolves to 10\.0\.0\.1/],
      ['https://mixed.example.com/x', ['151.101.1.1', 'fd00::5'], /resolves to fd00::5/],
      ['http://files.example.com/x', ['151.101.1.1'], /plain http, and the service \(https:\/\/api\.gitbook\.com\) is on https/],
      ['https://user:secret@files.example.com/x', ['151.101.1.1'], /user name or password/],
      ['ftp://files.example.com/x', [], /not an http or https address/],
    ]
    for (const [url, addresses, reason] of refusals) {
      const verdict = judge(hosted, url, addresses)
      expect(verdict.allowed, url).toBe(false)
      expect(verdict.allowed ? '' : verdict.reason, url).toMatch(reason)
    }
  })
})

describe('a service on this machine or a private network', () => {
  it('may name file hosts there too, on any port, over http', () => {
    for (const url of ['http://127.0.0.1:4001/f', 'http://localhost:9999/f', 'http://192.168.1.20/f', 'https://files.gitbook.com/f']) expect(judge(local, url), url).toEqual({ allowed: true })
    expect(judge(local, 'file:///etc/passwd').allowed).toBe(false)
  })

  it('is one whose host is such an address, or a name every address of which is', async () => {
    const names: Record<string, string[]> = { 'docs.corp.example': ['10.1.2.3', 'fd00::3'], 'half.example': ['10.1.2.3', '151.101.1.1'] }
    const resolve = async (host: string) => {
      if (!names[host]) throw Object.assign(new Error(`no such name ${host}`), { code: 'ENOTFOUND' })
      return names[host]
    }
    expect(await new DownloadPolicy('http://localhost:4000', undefined, resolve).apiNetwork()).toBe('private')
    expect(await new DownloadPolicy('https://docs.corp.example', undefined, resolve).apiNetwork()).toBe('private')
    expect(await new DownloadPolicy('https://half.example', undefined, resolve).apiNetwork()).toBe('public')
    expect(await new DownloadPolicy('https://nowhere.example', undefined, resolve).apiNetwork()).toBe('public')
  })
})

describe('the connection-time lookup', () => {
  it('hands on the addresses of a public name in either form net.connect asks for, and refuses a private one', async () => {
    const names: Record<string, string[]> = { 'cdn.example.test': ['151.101.1.1', '2a04:4e42::1'], 'inside.example.test': ['151.101.1.1', '192.168.0.9'] }
    const policy = new DownloadPolicy('https://api.example.test', 'public', async (host) => names[host] ?? [])
    const lookup = (host: string, options: { all?: boolean; family?: number }) =>
      new Promise<unknown[]>((resolve) => policy.guardedLookup(host, options as never, (...args: unknown[]) => resolve(args)))
    expect(await lookup('cdn.example.test', { all: true })).toEqual([null, [{ address: '151.101.1.1', family: 4 }, { address: '2a04:4e42::1', family: 6 }]])
    expect(await lookup('cdn.example.test', { family: 6 })).toEqual([null, '2a04:4e42::1', 6])
    const [refused] = await lookup('inside.example.test', { all: true })
    expect(refused).toBeInstanceOf(DownloadRefusedError)
    expect(String(refused)).toContain('refusing to download from inside.example.test: it resolves to 192.168.0.9')
  })
})

describe('through the gateway, against a real server on this machine', () => {
  const servers: http.Server[] = []
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => (s.closeAllConnections(), s.close(r)))
  })

  it('a name that resolves to a public address for the check and to this machine for the connection (DNS rebinding) is refused at the connection', async () => {
    const hits: string[] = []
    const s = http.createServer((req, res) => {
      hits.push(req.url ?? '')
      res.end('internal secrets')
    })
    servers.push(s)
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
    const port = (s.address() as AddressInfo).port
    const asked: string[] = []
    // The service's own name is public; the file host's answers change between the check and the connection.
    const resolve = async (host: string) => {
      asked.push(host)
      if (host === 'api.example.test') return ['151.101.1.1']
      return asked.filter((h) => h === host).length === 1 ? ['151.101.1.2'] : ['127.0.0.1']
    }
    const gw = new ApiGateway({ endpoint: 'http://api.example.test', token: 'test-token-123', resolve, maxAttempts: 1 })
    const refused = await gw.fetchFile(new URL(`http://files.example.test:${port}/secret`), { stream: false }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(DownloadRefusedError)
    expect(String(refused)).toMatch(/refusing to download from files\.example\.test: it resolves to 127\.0\.0\.1, on this machine or a private network, and the service \(http:\/\/api\.example\.test\) is not/)
    expect(hits).toEqual([])

    // Resolved there from the start: refused before any connection is tried.
    const direct = await gw.fetchFile(new URL(`http://127.0.0.1:${port}/secret`), { stream: true }).catch((e: unknown) => e)
    expect(direct).toBeInstanceOf(DownloadRefusedError)
    expect(String(direct)).toContain(`refusing to download from 127.0.0.1:${port}`)
    expect(hits).toEqual([])
  })
})
