import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { startHeadlessServer, type HeadlessServer } from '../../src/main/headless/server'
import { startTestService, type TestService } from '../support/service'

const noDesktop: DesktopActions = { openFile: async () => undefined, openUrl: async () => undefined, openFolder: async () => undefined }

function post(port: number, pathname: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: pathname, headers: { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json', ...headers } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

/** Issue 10, finding 5: a sign-in that fails must leave the session there was. */
describe('quire serve: a failed sign-in keeps the current session', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-sign-in-'))
  let t: TestService
  let backend: QuireBackend
  let server: HeadlessServer
  let token: string
  const logged: string[] = []
  const call = (channel: string, ...args: unknown[]) => post(server.port, `/api/${channel}`, args, { 'X-Quire-Session': token })

  beforeAll(async () => {
    t = await startTestService({ demo: true })
    fs.mkdirSync(path.join(tmp, 'renderer'))
    fs.writeFileSync(path.join(tmp, 'renderer', 'index.html'), '<!doctype html><title>Quire</title>')
    backend = await QuireBackend.open({ dataDir: path.join(tmp, 'data'), desktop: noDesktop, autoSync: false })
    server = await startHeadlessServer({ backend, rendererDir: path.join(tmp, 'renderer'), secret: 'sign-in-secret', log: (line) => logged.push(line) })
    token = (await post(server.port, '/api/session', { secret: 'sign-in-secret' })).body.result.token
  })

  afterAll(async () => {
    await server.close()
    await backend.close()
    await t.close()
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  it('a refused token, an unreachable service or a token no header can carry leave the signed-in session as it was', async () => {
    const signedIn = await call('signIn', { endpoint: t.service.origin, token: t.service.token })
    expect(signedIn.status).toBe(200)
    expect(signedIn.body.result).toMatchObject({ signedIn: true, endpoint: t.service.origin })

    const attempts: Array<[{ endpoint: string; token: string }, number, RegExp]> = [
      [{ endpoint: t.service.origin, token: 'qs_wrong-token-for-this-test' }, 409, /refused the token/],
      [{ endpoint: 'http://127.0.0.1:1', token: 'qs_some-other-token-000' }, 503, /cannot be reached/],
      [{ endpoint: t.service.origin, token: 'qs_line\nbreak-token-000' }, 400, /line break/],
    ]
    for (const [input, status, message] of attempts) {
      const reply = await call('signIn', input)
      expect(reply.status, input.token).toBe(status)
      expect(reply.body.error.message).toMatch(message)
      expect(JSON.stringify(reply.body)).not.toContain(input.token)
      const session = await call('getSession')
      expect(session.body.result, `after ${input.token}`).toMatchObject({ signedIn: true, endpoint: t.service.origin })
      // And it still works: the old session's gateway was not torn down.
      expect((await call('listSpaces')).status).toBe(200)
    }
    expect(logged).toEqual([])
  })
})
