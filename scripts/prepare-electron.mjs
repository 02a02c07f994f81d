#!/usr/bin/env node
/**
 * `npm start` and `npm run dev` run this first: `node scripts/prepare-electron.mjs [--electron-dir DIR] COMMAND...`.
 *
 * Why it exists: electron-vite finds Electron through node_modules/electron/path.txt and stops with
 * "Electron uninstall" when that file is missing. Electron 45's package has no install script: the
 * binary (and path.txt) arrive only when something first `require('electron')`s in Node, which
 * electron-vite never does. So on a fresh clone nothing ever downloads it.
 *
 * What it does: when the binary is not there, it runs Electron's own installer (`install.js`, i.e.
 * `install-electron`, built on @electron/get, so ELECTRON_MIRROR, electron_config_cache and
 * ELECTRON_GET_USE_PROXY work as Electron documents them), shows how far the download got, and when
 * the installer fails it says what to do in plain words (no stack trace) and exits 1, offering
 * `quire serve` when someone is at the terminal. When the binary is there nothing is downloaded. Then it
 * hands over to COMMAND (`node` means this Node) and exits with its status.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function parseArgs(argv) {
  let electronDir = path.join(root, 'node_modules', 'electron')
  const rest = [...argv]
  if (rest[0] === '--electron-dir') {
    electronDir = path.resolve(rest[1] ?? '')
    rest.splice(0, 2)
  }
  if (rest[0] === '--') rest.shift()
  return { electronDir, command: rest }
}

/** Where electron-vite will look for the executable (its getElectronPath), when that file exists. */
function installedExecutable(electronDir) {
  if (process.env.ELECTRON_EXEC_PATH) return fs.existsSync(process.env.ELECTRON_EXEC_PATH) ? process.env.ELECTRON_EXEC_PATH : undefined
  let relative = ''
  try {
    relative = fs.readFileSync(path.join(electronDir, 'path.txt'), 'utf8')
  } catch {
    return undefined
  }
  const executable = path.join(electronDir, 'dist', relative)
  return relative && fs.existsSync(executable) ? executable : undefined
}

/** The URL @electron/get will fetch, looked up in the order it uses (npm config, package config, env). */
function downloadUrl(version) {
  const env = process.env
  const mirror = env.npm_config_electron_mirror || env.NPM_CONFIG_ELECTRON_MIRROR || env.npm_package_config_electron_mirror || env.ELECTRON_MIRROR || 'https://github.com/electron/electron/releases/download/'
  const dir = env.npm_config_electron_custom_dir || env.NPM_CONFIG_ELECTRON_CUSTOM_DIR || env.ELECTRON_CUSTOM_DIR || `v${version}`
  const platform = env.ELECTRON_INSTALL_PLATFORM || env.npm_config_platform || process.platform
  const arch = env.ELECTRON_INSTALL_ARCH || env.npm_config_arch || process.arch
  const file = `electron-v${version}-${platform}-${arch}.zip`
  return { url: `${mirror}${dir.replace('{{ version }}', version)}/${file}`, file, target: `${platform}-${arch}` }
}

/** A mirror URL may carry credentials: never print them. */
const withoutCredentials = (text) => text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1')

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`

/** The size of the zip @electron/get is writing into its temporary folder under `tmp`, if any yet. */
function downloadedBytes(tmp, file) {
  for (const entry of fs.readdirSync(tmp, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    try {
      return fs.statSync(path.join(tmp, entry.name, file)).size
    } catch {
      // not started in this folder
    }
  }
  return 0
}

/** Runs install.js; resolves with its exit status and its stderr (which holds a stack trace on failure). */
function runInstaller(electronDir, file) {
  // A private temp folder, so the partial zip can be found and measured: the installer's own progress bar
  // needs a terminal on stderr, which it cannot have while stderr is read here to keep its stack trace out.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-electron-'))
  const child = spawn(process.execPath, [path.join(electronDir, 'install.js')], {
    env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp },
    stdio: ['ignore', 'inherit', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const started = Date.now()
  let lastLine = 0
  const tty = process.stdout.isTTY
  const timer = setInterval(() => {
    const bytes = downloadedBytes(tmp, file)
    if (bytes === 0) return
    const seconds = (Date.now() - started) / 1000
    const line = `  ${file}: ${megabytes(bytes)} (${megabytes(bytes / seconds)}/s)`
    if (tty) process.stdout.write(`\r${line}\x1b[K`)
    else if (Date.now() - lastLine >= 5000) {
      console.log(line)
      lastLine = Date.now()
    }
  }, 500)
  return new Promise((resolve) => {
    const finish = (status) => {
      clearInterval(timer)
      if (tty && lastLine === 0) process.stdout.write('\r\x1b[K')
      fs.rmSync(tmp, { recursive: true, force: true })
      resolve({ status, stderr, seconds: (Date.now() - started) / 1000 })
    }
    child.once('error', (error) => finish(((stderr += `${error.message}\n`), 1)))
    child.once('exit', (code, signal) => finish(code ?? (signal ? 128 : 1)))
  })
}

/** The installer prints `err.stack`: its first line is the reason, the `at ...` frames are noise here. */
function reasonOf(stderr) {
  const line = stderr.split(/\r?\n/).find((l) => l.trim() && !/^\s+at /.test(l))
  return withoutCredentials((line ?? 'the installer stopped without saying why').trim().replace(/^[A-Za-z]*Error: /, ''))
}

/**
 * install.js prints only `fetch failed`; the cause (no DNS, refused, timed out) is in the error's `cause`,
 * which it drops. One HEAD request to the same URL recovers it. Skipped through a proxy, which this
 * process's fetch would not use.
 */
async function whyFetchFailed(url) {
  if (process.env.ELECTRON_GET_USE_PROXY) return undefined
  try {
    const response = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(10_000) })
    return `HTTP ${response.status} now`
  } catch (error) {
    return error?.cause?.message ?? error?.message
  }
}

function failureMessage(version, url, target, reason) {
  const proxyNote = (process.env.HTTPS_PROXY || process.env.https_proxy) && !process.env.ELECTRON_GET_USE_PROXY
    ? ' (HTTPS_PROXY is set, but Electron\'s downloader ignores it without ELECTRON_GET_USE_PROXY=1)'
    : ''
  return [
    '',
    `Quire's desktop window needs Electron ${version} (${target}), and Electron's installer could not get it:`,
    `  ${withoutCredentials(url)}`,
    `  ${reason}`,
    '',
    'What you can do:',
    `  - behind a proxy: ELECTRON_GET_USE_PROXY=1 HTTPS_PROXY=http://host:port npm start${proxyNote}`,
    '  - from a mirror of Electron\'s releases: ELECTRON_MIRROR=https://your.mirror/electron/ npm start',
    '    (the mirror must hold v<version>/electron-v<version>-<platform>-<arch>.zip)',
    '  - or run the same app headless, in your browser, with nothing to download:',
    '      npx quire serve',
    '',
  ].join('\n')
}

/** Someone at a terminal is offered `quire serve` right away; anyone else just gets the message. */
async function offerServe() {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return 1
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout })
  const answer = await new Promise((resolve) => {
    rl.question('Start `quire serve` now? [y/N] ', resolve)
    rl.once('close', () => resolve(''))
  })
  rl.close()
  if (!/^y(es)?$/i.test(String(answer).trim())) return 1
  return run(process.execPath, [path.join(root, 'bin', 'quire.mjs'), 'serve'])
}

/** Runs a command with this terminal; Ctrl-C reaches it directly, so this process only waits for it. */
function run(command, args) {
  const node = command === 'node'
  const child = spawn(node ? process.execPath : command, args, { stdio: 'inherit', shell: !node && process.platform === 'win32' })
  const ignore = () => {}
  const forward = (signal) => child.kill(signal)
  process.on('SIGINT', ignore)
  process.on('SIGTERM', forward)
  return new Promise((resolve) => {
    child.once('error', (error) => {
      console.error(`could not run ${command}: ${error.message}`)
      resolve(127)
    })
    child.once('exit', (code, signal) => {
      process.off('SIGINT', ignore)
      process.off('SIGTERM', forward)
      resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1))
    })
  })
}

/** The Node version Quire's package.json asks for (Electron's installer and @electron/rebuild declare it). */
function nodeVersionNote() {
  const wanted = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines?.node ?? '')
  if (!wanted) return
  const have = process.versions.node.split('.').map(Number)
  const need = [Number(wanted[1]), Number(wanted[2]), Number(wanted[3] ?? 0)]
  const older = have[0] - need[0] || have[1] - need[1] || have[2] - need[2]
  if (older < 0) console.log(`note: this is Node ${process.versions.node}; Electron's installer and @electron/rebuild declare Node >= ${need.join('.')} (see README, Requirements).`)
}

async function main() {
  const { electronDir, command } = parseArgs(process.argv.slice(2))
  if (!installedExecutable(electronDir)) {
    if (process.env.ELECTRON_EXEC_PATH) {
      console.error(`ELECTRON_EXEC_PATH is ${process.env.ELECTRON_EXEC_PATH}, which does not exist: unset it, or point it at an Electron executable.`)
      return 1
    }
    const { version } = JSON.parse(fs.readFileSync(path.join(electronDir, 'package.json'), 'utf8'))
    const { url, file, target } = downloadUrl(version)
    nodeVersionNote()
    console.log(`Electron ${version}'s binary is not installed yet: downloading it once with Electron's installer (about 100 MB)`)
    console.log(`  from ${withoutCredentials(url)}`)
    const result = await runInstaller(electronDir, file)
    if (result.status !== 0 || !installedExecutable(electronDir)) {
      let reason = result.status !== 0 ? reasonOf(result.stderr) : 'it finished, but path.txt or the executable is still missing'
      if (reason === 'fetch failed') {
        const cause = await whyFetchFailed(url)
        if (cause) reason += `: ${withoutCredentials(cause)}`
      }
      console.error(failureMessage(version, url, target, reason))
      return offerServe()
    }
    if (result.stderr.trim()) process.stderr.write(result.stderr)
    console.log(`Electron ${version} installed in ${result.seconds.toFixed(0)} s`)
  }
  if (command.length === 0) return 0
  return run(command[0], command.slice(1))
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    console.error(`prepare-electron: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  },
)
