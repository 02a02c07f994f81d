/**
 * Bench children run as compiled JavaScript, as `quire` itself runs (bin/quire.mjs runs an esbuild
 * bundle, scripts/build-cli.mjs): under tsx a process also holds tsx's loader thread, its own V8 isolate
 * (~40 MB that no user's `quire sync` has). The bench script is bundled with the CLI build's settings
 * (split chunks loaded on demand, native addons and tools external, each module's import.meta naming its
 * source file) into node_modules/.cache/quire-bench/, where Node finds the external packages.
 */
import fs from 'node:fs'
import path from 'node:path'
import { NATIVE_OR_TOOLS, sourceLocation } from '../../scripts/build-cli.mjs'

const OUT_ROOT = path.resolve('node_modules', '.cache', 'quire-bench')

/**
 * A `require` for the Node built-ins bundled CommonJS packages ask for. Spelled in two pieces: this file
 * is bundled too, and the source-location plugin (scripts/build-cli.mjs) would rewrite the whole expression inside the string.
 */
const BANNER = `import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import${'.meta.url'});`

/** Bundles `script` (a bench file) and returns the entry module to run with plain `node`. */
export async function compileBench(script: string): Promise<string> {
  const { build } = await import('esbuild')
  const name = path.basename(script).replace(/\.ts$/, '')
  const outdir = path.join(OUT_ROOT, name)
  fs.rmSync(outdir, { recursive: true, force: true })
  await build({
    entryPoints: [path.resolve(script)],
    outdir,
    entryNames: '[name]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: NATIVE_OR_TOOLS,
    banner: { js: BANNER },
    logLevel: 'silent',
    plugins: [sourceLocation],
  })
  return path.join(outdir, `${name}.mjs`)
}
