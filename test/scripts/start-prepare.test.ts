import { spawn, spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// The preparation step `npm start` and `npm run dev` run before electron-vite (scripts/prepare-electron.mjs),
// run for real against a fresh copy of node_modules/electron, with Electron's real installer and a mirror on
// loopback (or none at all): Electron itself is never launched.

const repo = path.resolve(__dirname, '../..')
const script = path.join(repo, 'scripts/prepare-electron.mjs')
const electronVersion = (JSON.parse(fs.readFileSync(path.join(repo, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version
const platformPath = process.platform === 'darwin' ? 'Electron.app/Contents/MacOS/Electron' : process.platform === 'win32' ? 'electron.exe' : 'electron'
const zipName = `electron-v${electronVersion}-${process.platform}-${process.arch}.zip`
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-prepare-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

/** A copy of the installed electron package as npm ci leaves it: no dist/, no path.txt. */
function freshElectron(name: string): string {
  const dir = path.join(tmp, name, 'electron')
  const source = path.join(repo, 'node_modules/electron')
  fs.cpSync(source, dir, { recursive: true, filter: (src) => !['dist', 'path.txt'].includes(path.relative(source, src)) })
  return dir
}

/** Listens on a free loopback port and closes it again: connecting there is refused at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A loopback mirror of Electron's releases that records what was asked of it. */
interface Mirror { url: string; requests: string[]; files: Map<string, Buffer> }
const servers: http.Server[] = []
afterAll(async () => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))))
async function startMirror(): Promise<Mirror> {
  const mirror: Mirror = { url: '', requests: [], files: new Map() }
  const server = http.createServer((req, res) => {
    mirror.requests.push(req.url ?? '')
    const body = mirror.files.get(req.url ?? '')
    if (!body) return res.writeHead(404).end('not here')
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' })
    // Slowly, in pieces, the way a big download arrives, so progress has something to show.
    let offset = 0
    const step = Math.ceil(body.length / 16)
    const next = () => {
      if (offset >= body.length) return res.end()
      res.write(body.subarray(offset, (offset += step)))
      setTimeout(next, 100)
    }
    next()
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  mirror.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  return mirror
}

/** A zip with stored (uncompressed) entries, which is all extract-zip needs to read. */
function storedZip(entries: Array<{ name: string; data: Buffer; mode: number }>): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const { name, data, mode } of entries) {
    const nameBytes = Buffer.from(name)
    const crc = zlib.crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(0x0314, 4) // made by Unix, so the external attributes carry the file mode
    central.writeUInt16LE(20, 6)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(nameBytes.length, 28)
    central.writeUInt32LE(((0o100000 | mode) << 16) >>> 0, 38)
    central.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, data)
    centrals.push(central, nameBytes)
    offset += local.length + nameBytes.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/**
 * The environment of a user who set none of Electron's download variables; the copied package finds
 * Electron's installer dependencies (@electron/get, the zip extractor) in the repository's node_modules.
 */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_config_electron_|npm_package_config_electron_|electron_|https?_proxy$|no_proxy$)/i.test(key)) continue
    env[key] = value
  }
  return { ...env, NODE_PATH: path.join(repo, 'node_modules'), electron_config_cache: path.join(tmp, 'cache'), ...extra }
}

/** The hand-over command: a node one-liner that records its arguments and exits with a status of its own. */
function handOver(marker: string): string[] {
  return ['node', '-e', 'require("fs").writeFileSync(process.argv[1], JSON.stringify(process.argv.slice(2))); process.exit(7)', marker, 'preview', '--flag']
}

function runPrepare(electronDir: string, command: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [script, '--electron-dir', electronDir, ...command], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

const stackFrame = /^\s+at .+[(:]/m

describe('npm start: the preparation step before electron-vite', () => {
  let mirror: Mirror
  beforeAll(async () => {
    mirror = await startMirror()
  })

  it('without path.txt and with no way to download, exits 1 with what to do and no stack trace', async () => {
    const electron = freshElectron('offline')
    const marker = path.join(tmp, 'offline-handed-over')
    const port = await closedPort()
    const started = Date.now()
    const run = await runPrepare(electron, handOver(marker), cleanEnv({ ELECTRON_MIRROR: `http://127.0.0.1:${port}/` }))

    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`from http://127.0.0.1:${port}/v${electronVersion}/${zipName}`)
    expect(run.stderr).toContain(`Quire's desktop window needs Electron ${electronVersion}`)
    expect(run.stderr).toMatch(/fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+/)
    expect(run.stderr).toContain('ELECTRON_MIRROR=')
    expect(run.stderr).toContain('ELECTRON_GET_USE_PROXY=1 HTTPS_PROXY=')
    expect(run.stderr.trimEnd()).toMatch(/run the same app headless.*\n\s+npx quire serve$/)
    // No prompt without a terminal, no stack trace, no error class names.
    expect(run.stdout + run.stderr).not.toMatch(stackFrame)
    expect(run.stdout + run.stderr).not.toMatch(/TypeError|Error:|Start `quire serve` now/)
    expect(fs.existsSync(marker)).toBe(false)
    expect(fs.existsSync(path.join(electron, 'path.txt'))).toBe(false)
    expect(Date.now() - started).toBeLessThan(20_000)
  })

  it('names the URL a mirror does not have, without the credentials in the mirror URL', async () => {
    const electron = freshElectron('no-binaries')
    const before = mirror.requests.length
    const credentialed = mirror.url.replace('http://', 'http://someone:hunter2@')
    const run = await runPrepare(electron, handOver(path.join(tmp, 'unused')), cleanEnv({ ELECTRON_MIRROR: `${mirror.url}empty/` }))
    expect(run.code).toBe(1)
    expect(mirror.requests.slice(before)).toContain(`/empty/v${electronVersion}/${zipName}`)
    expect(run.stderr).toContain(`Response code 404 (Not Found) for ${mirror.url}empty/v${electronVersion}/${zipName}`)
    expect(run.stderr).not.toMatch(stackFrame)

    const secret = await runPrepare(electron, handOver(path.join(tmp, 'unused')), cleanEnv({ ELECTRON_MIRROR: credentialed }))
    expect(secret.code).toBe(1)
    expect(secret.stdout + secret.stderr).not.toContain('hunter2')
    expect(secret.stderr).toContain('npx quire serve')
  })

  it('with path.txt and the binary in place, hands over to the next command and downloads nothing', async () => {
    const electron = freshElectron('installed')
    fs.mkdirSync(path.dirname(path.join(electron, 'dist', platformPath)), { recursive: true })
    fs.writeFileSync(path.join(electron, 'dist', platformPath), 'not really electron: only the preparation step runs')
    fs.writeFileSync(path.join(electron, 'path.txt'), platformPath)
    const marker = path.join(tmp, 'installed-handed-over')
    const before = mirror.requests.length
    const run = await runPrepare(electron, handOver(marker), cleanEnv({ ELECTRON_MIRROR: mirror.url }))

    expect(run.code).toBe(7) // the hand-over's own status
    expect(JSON.parse(fs.readFileSync(marker, 'utf8'))).toEqual(['preview', '--flag'])
    expect(mirror.requests.length).toBe(before)
    expect(run.stdout + run.stderr).toBe('')
  })

  it('with path.txt but no binary behind it, installs again before handing over', async () => {
    const electron = freshElectron('half')
    fs.writeFileSync(path.join(electron, 'path.txt'), platformPath)
    const port = await closedPort()
    const run = await runPrepare(electron, handOver(path.join(tmp, 'half-handed-over')), cleanEnv({ ELECTRON_MIRROR: `http://127.0.0.1:${port}/` }))
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('npx quire serve')
    expect(fs.existsSync(path.join(tmp, 'half-handed-over'))).toBe(false)
  })

  it('downloads through Electron\'s installer with progress, then hands over; the next start downloads nothing', async () => {
    const electron = freshElectron('download')
    const executable = crypto.randomBytes(3_000_000)
    const zip = storedZip([
      { name: platformPath, data: executable, mode: 0o755 },
      { name: 'version', data: Buffer.from(electronVersion), mode: 0o644 },
    ])
    const sha = crypto.createHash('sha256').update(zip).digest('hex')
    mirror.files.set(`/releases/v${electronVersion}/${zipName}`, zip)
    mirror.files.set(`/releases/v${electronVersion}/SHASUMS256.txt`, Buffer.from(`${sha} *${zipName}\n`))
    const env = cleanEnv({ ELECTRON_MIRROR: `${mirror.url}releases/`, electron_use_remote_checksums: '1' })
    const marker = path.join(tmp, 'download-handed-over')

    const run = await runPrepare(electron, handOver(marker), env)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(7)
    expect(run.stdout).toMatch(new RegExp(`^  ${zipName.replace(/\./g, '\\.')}: \\d+\\.\\d MB \\(`, 'm'))
    expect(run.stdout).toMatch(new RegExp(`Electron ${electronVersion.replace(/\./g, '\\.')} installed in \\d+ s`))
    expect(fs.readFileSync(path.join(electron, 'path.txt'), 'utf8')).toBe(platformPath)
    expect(fs.readFileSync(path.join(electron, 'dist', platformPath)).equals(executable)).toBe(true)
    expect(JSON.parse(fs.readFileSync(marker, 'utf8'))).toEqual(['preview', '--flag'])

    const requests = mirror.requests.length
    fs.rmSync(marker)
    const again = await runPrepare(electron, handOver(marker), env)
    expect(again.code).toBe(7)
    expect(again.stdout).toBe('')
    expect(mirror.requests.length).toBe(requests)
    expect(fs.existsSync(marker)).toBe(true)
  })

  it.skipIf(process.platform === 'win32' || spawnSync('script', ['--version']).status !== 0)(
    'at a terminal, offers quire serve and exits 1 when declined',
    async () => {
      const electron = freshElectron('tty')
      const port = await closedPort()
      const command = [process.execPath, script, '--electron-dir', electron, 'node', '-e', 'process.exit(0)'].map((a) => `'${a}'`).join(' ')
      // util-linux `script` gives the step a pseudo-terminal; the answer "n" arrives through it.
      const child = spawn('script', ['-qefc', command, '/dev/null'], { env: cleanEnv({ ELECTRON_MIRROR: `http://127.0.0.1:${port}/` }), stdio: ['pipe', 'pipe', 'pipe'] })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes('Start `quire serve` now? [y/N]')) child.stdin.end('n\n')
      })
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
      expect(output).toContain('npx quire serve')
      expect(output).toContain('Start `quire serve` now? [y/N]')
      expect(output).not.toMatch(/secret=/)
      expect(code).toBe(1)
    },
  )
})
