import path from 'node:path'
import readline from 'node:readline'
import { parseArgs } from 'node:util'
import { QuireBackend } from '../app/backend'
import type { CliIo } from '../cli/io'
import { DEFAULT_RENDERER_OUT, ensureRendererBuild } from './renderer-build'
import { startHeadlessServer } from './server'
import { fileTabStore } from './sessions'

export const serveUsage = `quire serve [--port N] [--data DIR] [--renderer DIR]

Runs Quire without the desktop shell: the sync engine and the app's interface, served on 127.0.0.1 for
a browser on this computer. The first line printed is the link to open: it carries a secret that works
once, for 5 minutes, and gives the browser tab that opens it a session of its own (no cookie). Press
Enter for another link (a second tab, or when the first expired). Stop with Ctrl-C.

  --port N        port to listen on (default: any free port)
  --data DIR      data folder (cache, demo service, logs); default: the per-user data folder
  --renderer DIR  a built renderer to serve; default: ${path.relative(process.cwd(), DEFAULT_RENDERER_OUT) || DEFAULT_RENDERER_OUT},
                  built on first run (and again when its sources change) with Vite`

export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '0' },
      data: { type: 'string' },
      renderer: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    io.out(serveUsage)
    return 0
  }
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got "${values.port}"`)

  const rendererDir = values.renderer ? path.resolve(values.renderer) : await ensureRendererBuild(DEFAULT_RENDERER_OUT, (line) => io.err(line))
  const backend = await QuireBackend.open({ dataDir: values.data ? path.resolve(values.data) : undefined, leaseKind: 'serve' })
  let server
  try {
    const tabStore = fileTabStore(path.join(path.dirname(backend.dataPaths.cacheFile), 'serve-tabs.json'))
    server = await startHeadlessServer({ backend, rendererDir, port, tabStore, log: (line) => io.err(line) })
  } catch (error) {
    await backend.close()
    throw error
  }
  // Listening for the signals before the first line, so whoever stops serve on seeing it stops it cleanly.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
  io.out(server.url)
  io.err(`data: ${path.dirname(backend.dataPaths.cacheFile)}  log: ${backend.dataPaths.logFile}`)
  // On a terminal, Enter prints a fresh one-time link; a pipe or /dev/null on stdin is left alone.
  const keys = process.stdin.isTTY ? readline.createInterface({ input: process.stdin }) : undefined
  if (keys) {
    io.err('the link works once, for 5 minutes; press Enter for another')
    keys.on('line', () => server && io.out(server.newLink()))
  }
  await stopped
  keys?.close()
  await server.close()
  await backend.close()
  io.err('stopped')
  return 0
}
