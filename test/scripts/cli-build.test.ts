import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'

const repo = path.resolve(__dirname, '../..')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function runBin(root: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/quire.mjs'), ...args], { env: { ...process.env, QUIRE_CLI_TSX: '' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** What main() writes in process, as the bin's streams would carry it. */
async function inProcess(args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await main(args, { out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`), isTTY: false })
  return { code, stdout, stderr }
}

describe('the compiled CLI (bin/quire.mjs)', () => {
  it('answers exactly as main() does in process: --version, --help, an unknown command', async () => {
    for (const args of [['--version'], ['--help'], ['no-such-command']]) {
      const [built, source] = [await runBin(repo, args), await inProcess(args)]
      expect(built, args.join(' ')).toEqual(source)
    }
  })
})

describe('freshness: the built CLI never runs stale code', () => {
  // A copy of the project (sources, build script, bin) with its own node_modules/.cache, so edits and
  // builds here never touch the repository's. Its node_modules links every package but tsx: with no tsx
  // to fall back on, an answer can only come from the build.
  let root: string
  const stamp = () => JSON.parse(fs.readFileSync(path.join(root, 'node_modules/.cache/quire-cli/build.json'), 'utf8')) as { entry: string }
  const edit = (file: string, from: string, to: string) => {
    const full = path.join(root, file)
    const text = fs.readFileSync(full, 'utf8')
    expect(text).toContain(from)
    fs.writeFileSync(full, text.replace(from, to))
  }

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-cli-build-'))
    fs.cpSync(path.join(repo, 'src'), path.join(root, 'src'), { recursive: true })
    for (const file of ['bin/quire.mjs', 'scripts/build-cli.mjs', 'tsconfig.json', 'package.json']) fs.cpSync(path.join(repo, file), path.join(root, file))
    fs.mkdirSync(path.join(root, 'node_modules'))
    for (const name of fs.readdirSync(path.join(repo, 'node_modules'))) {
      if (name !== 'tsx' && name !== '.cache') fs.symlinkSync(path.join(repo, 'node_modules', name), path.join(root, 'node_modules', name))
    }
  })
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  it('builds on the first run, reuses the build while nothing changed, and rebuilds after an edit', async () => {
    const first = await runBin(root, ['--help'])
    expect(first).toMatchObject({ code: 0, stderr: '' })
    expect(first.stdout).toContain('usage: quire <command> [options]')
    const built = stamp().entry
    const stampMtime = fs.statSync(path.join(root, 'node_modules/.cache/quire-cli/build.json')).mtimeMs

    expect(await runBin(root, ['--help'])).toEqual(first)
    expect(fs.statSync(path.join(root, 'node_modules/.cache/quire-cli/build.json')).mtimeMs).toBe(stampMtime) // not built again

    edit('src/main/cli/main.ts', "'usage: quire <command> [options]'", "'usage: quire <command> [options] (edited)'")
    const edited = await runBin(root, ['--help'])
    expect(edited).toMatchObject({ code: 0, stderr: '' })
    expect(edited.stdout).toContain('usage: quire <command> [options] (edited)')
    expect(stamp().entry).not.toBe(built)
  })

  it("picks up an edit to a command's own module (loaded on demand), in every process started at once after it", async () => {
    edit('src/main/cli/status-command.ts', 'quire status [--json]', 'quire status [--json] (edited too)')
    const runs = await Promise.all([1, 2, 3].map(() => runBin(root, ['status', '--help'])))
    for (const run of runs) {
      expect(run).toMatchObject({ code: 0, stderr: '' })
      expect(run.stdout).toContain('quire status [--json] (edited too)')
    }
  })

  it('says why when the sources do not compile, naming the file and line', async () => {
    edit('src/main/cli/io.ts', 'export const processIo', 'export const processIo = ;\nconst unused')
    const broken = await runBin(root, ['--help'])
    expect(broken.code).not.toBe(0)
    // The build's error names the file and line; with no tsx here, the fallback fails too.
    expect(broken.stderr).toMatch(/quire: could not build the CLI \(src\/main\/cli\/io\.ts:\d+: .+\); running the sources through tsx/)
  })
})
