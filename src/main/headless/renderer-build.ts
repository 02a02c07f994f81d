import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, '../../..')

/** The renderer's sources (what electron-vite builds for the desktop app). */
export const RENDERER_ROOT = path.join(repoRoot, 'src/renderer')
/** electron-vite's renderer output: `npm run build` and `npm run build:renderer` both write it. */
export const DEFAULT_RENDERER_OUT = path.join(repoRoot, 'out/renderer')
const SOURCES = [RENDERER_ROOT, path.join(repoRoot, 'src/shared')]

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs)
  }
  return newest
}

/** A build is fresh when its index.html is newer than every renderer and contract source. */
export function isRendererBuildFresh(outDir: string): boolean {
  const index = path.join(outDir, 'index.html')
  if (!fs.existsSync(index)) return false
  if (!fs.existsSync(RENDERER_ROOT)) return true // installed without sources: the shipped build is all there is
  const built = fs.statSync(index).mtimeMs
  return SOURCES.every((dir) => !fs.existsSync(dir) || newestMtime(dir) <= built)
}

/**
 * Builds the renderer with Vite, the same way electron-vite's renderer step does (root src/renderer,
 * relative base so the same files load from file:// in Electron and from http:// headless), into a
 * temporary folder first so a reader never sees half a build.
 */
export async function buildRenderer(outDir: string): Promise<void> {
  const { build } = await import('vite')
  const temp = `${outDir}.build-${process.pid}-${Date.now()}`
  try {
    await build({
      configFile: false,
      root: RENDERER_ROOT,
      base: './',
      logLevel: 'warn',
      esbuild: { jsx: 'automatic' },
      build: { outDir: temp, emptyOutDir: true, reportCompressedSize: false },
    })
    fs.rmSync(outDir, { recursive: true, force: true })
    fs.mkdirSync(path.dirname(outDir), { recursive: true })
    fs.renameSync(temp, outDir)
  } finally {
    fs.rmSync(temp, { recursive: true, force: true })
  }
}

/** The folder to serve: the existing build when fresh, else a new one built now. */
export async function ensureRendererBuild(outDir = DEFAULT_RENDERER_OUT, log: (line: string) => void = () => undefined): Promise<string> {
  if (isRendererBuildFresh(outDir)) return outDir
  log(`building the renderer into ${outDir} (once; it is reused until its sources change)…`)
  await buildRenderer(outDir)
  return outDir
}

// `npm run build:renderer`
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const outDir = process.argv[2] ? path.resolve(process.argv[2]) : DEFAULT_RENDERER_OUT
  await buildRenderer(outDir)
  process.stdout.write(`renderer built into ${outDir}\n`)
}
