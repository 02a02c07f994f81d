import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiGateway } from '../../../src/main/engine/gateway/api-gateway'
import { importGitTree, localRepository } from '../../../src/main/engine/import/git-import'

/**
 * importGitTree against a service that has no Git import (a hosted service that answers 404 or 501 for
 * the operation): 'unsupported', so `quire import` falls back to the content API. A 404 for the space
 * itself is an error, not a fallback.
 */
let server: http.Server
let origin: string
let repo: string
let importStatus = 404

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.url === '/v1/spaces/known') return answer(200, { object: 'space', id: 'known', title: 'Docs', revision: 'r1' })
    if (req.url?.endsWith('/git/import')) return answer(importStatus, { error: { code: importStatus, message: 'Not Found' } })
    return answer(404, { error: { code: 404, message: `Space could not be found` } })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-git-unsupported-'))
  const env = { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' }
  execFileSync('git', ['init', '--quiet', '--initial-branch=main'], { cwd: repo, env })
  fs.mkdirSync(path.join(repo, 'docs'))
  fs.writeFileSync(path.join(repo, 'docs', 'README.md'), '# Home\n')
  execFileSync('git', ['add', '--all'], { cwd: repo, env })
  execFileSync('git', ['commit', '--quiet', '-m', 'docs'], { cwd: repo, env })
})
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  fs.rmSync(repo, { recursive: true, force: true })
})

const gateway = () => new ApiGateway({ endpoint: origin, token: 'test-token', maxAttempts: 1 })

describe('importGitTree on a service without Git import', () => {
  it("answers 'unsupported' for a 404 or 501 of the operation", async () => {
    importStatus = 404
    expect(await importGitTree(gateway(), { spaceId: 'known', folder: repo })).toBe('unsupported')
    importStatus = 501
    expect(await importGitTree(gateway(), { spaceId: 'known', folder: repo })).toBe('unsupported')
  })

  it('throws when the space itself is not found', async () => {
    importStatus = 404
    await expect(importGitTree(gateway(), { spaceId: 'unknown', folder: repo })).rejects.toThrow(/could not be found/)
  })

  it('reads the repository of a subfolder: its project directory, the branch, what is not committed', async () => {
    fs.writeFileSync(path.join(repo, 'docs', 'draft.md'), '# Draft\n')
    expect(await localRepository(path.join(repo, 'docs'))).toEqual({
      url: expect.stringMatching(/^file:\/\//),
      projectDirectory: 'docs',
      ref: 'refs/heads/main',
      uncommitted: ['docs/draft.md'],
    })
    await expect(localRepository(os.tmpdir())).rejects.toThrow(/not inside a git repository/)
  })
})
