#!/usr/bin/env node
/**
 * The compiled CLI: `node scripts/build-cli.mjs` (npm's `prepare`, so `npm ci` runs it) bundles
 * src/main/cli/main.ts with esbuild into node_modules/.cache/quire-cli/, and bin/quire.mjs runs that
 * JavaScript instead of compiling TypeScript through tsx on every start.
 *
 * - Each command's modules load on demand: main.ts imports every command with `import()`, and esbuild's
 *   code splitting turns each into a chunk of its own, so `quire --help` loads main and little else.
 * - Packages are bundled too: remark, micromark and the rest are hundreds of small ES modules, and
 *   loading them one by one was half of `quire status`'s start-up. Only NATIVE_OR_TOOLS stay external
 *   (better-sqlite3 and @parcel/watcher are native addons; the others are build tools loaded on demand); they load from
 *   node_modules by Node's usual lookup from node_modules/.cache/. Bundled CommonJS packages get a
 *   `require` (the banner) for the Node built-ins they ask for.
 * - Every module keeps its source location: `import.meta.url` (and `.dirname`, `.filename`) is replaced
 *   by the URL of the .ts file it was written in, so paths computed from it (package.json, the repo root,
 *   the renderer's folder, createRequire) resolve as they do when tsx runs the sources.
 * - Worker threads get entries of their own (WORKER_ENTRIES, e.g. the service's markdown link parser), built
 *   first, one file each; the CLI's bundle gets each one's path as a constant (esbuild's `define`).
 * - Outputs are named by the hash of their content and each is written through a temporary file and a
 *   rename, the stamp (build.json) last: processes that start while another rebuilds never read half a
 *   file, and the chunks of the build they started on stay. Files no build has used for 10 minutes go.
 *
 * Freshness (never run stale code): build.json lists every file esbuild read (from its metafile: our
 * sources and the bundled packages' files) with the mtime and size it had just before the build, plus this
 * script and tsconfig.json, and the repo folder. The build is fresh when all of those still match exactly
 * (not "older than": a checkout or a restored file can carry an older mtime). bin/quire.mjs checks that on
 * every start (about 600 stats, a few ms; bench/cli.ts prints it) and rebuilds first when anything differs
 * (~0.5 s), so an edit to src/, or an npm install that changes a bundled package, counts at the very next
 * run. A file written during a build carries a newer mtime than the one recorded, so the next start
 * builds again.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const CLI_BUILD_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'quire-cli')
const STAMP = path.join(CLI_BUILD_DIR, 'build.json')
const ENTRY_SOURCE = 'src/main/cli/main.ts'
/** Scripts of worker threads, bundled whole, each path given to the CLI's bundle as the constant named. */
const WORKER_ENTRIES = { __QUIRE_LINK_WORKER__: 'src/main/service/link-workers/worker.ts' }
/** Inputs that shape the output without being bundled: the build's own options and TypeScript's settings. */
const BUILD_INPUTS = ['scripts/build-cli.mjs', 'tsconfig.json']
/**
 * Left to Node: native addons (better-sqlite3; @parcel/watcher and @napi-rs/keyring, which pick their binary by platform at run
 * time), and build tools only ever loaded on demand (headless serve's renderer build).
 */
export const NATIVE_OR_TOOLS = ['better-sqlite3', '@parcel/watcher', '@napi-rs/keyring', 'electron', 'vite', 'esbuild', 'tsx']
/** Bumped when build.json's shape changes. */
const STAMP_FORMAT = 1
/** Outputs of earlier builds are kept this long: a process that started on one imports its command's chunk within moments. */
const KEEP_UNUSED_MS = 10 * 60_000

function readStamp() {
  try {
    return JSON.parse(fs.readFileSync(STAMP, 'utf8'))
  } catch {
    return undefined
  }
}

function sameStat(file, mtimeMs, size) {
  // Not path.join: normalizing 600 paths costs more than the stats; the system resolves "../" itself.
  const stat = fs.statSync(`${REPO_ROOT}/${file}`, { throwIfNoEntry: false })
  return !!stat && stat.mtimeMs === mtimeMs && stat.size === size
}

/** The built entry module when the build matches the sources exactly; undefined when missing or stale. */
export function freshCliEntry() {
  const stamp = readStamp()
  if (!stamp || stamp.format !== STAMP_FORMAT || stamp.root !== REPO_ROOT) return undefined
  for (const [file, mtimeMs, size] of stamp.inputs) if (!sameStat(file, mtimeMs, size)) return undefined
  const entry = path.join(CLI_BUILD_DIR, stamp.entry)
  return fs.existsSync(entry) ? entry : undefined
}

function statTree(dir, into) {
  for (const entry of fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory()) statTree(file, into)
    else into.set(file, fs.statSync(path.join(REPO_ROOT, file)))
  }
  return into
}

/** esbuild plugin: each module's import.meta.url/dirname/filename name its source file (see above). */
export const sourceLocation = {
  name: 'quire-source-location',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?tsx?$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8')
      const contents = source
        .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
        .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(path.dirname(args.path)))
        .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path))
      return { contents, loader: args.path.endsWith('x') ? 'tsx' : 'ts' }
    })
  },
}

function outputMeta(result, output) {
  return result.metafile.outputs[path.relative(REPO_ROOT, output.path).split(path.sep).join('/')]
}

function writeAtomically(file, contents) {
  const temp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temp, contents)
  fs.renameSync(temp, file)
}

function pruneUnused(kept) {
  const now = Date.now()
  for (const name of fs.readdirSync(CLI_BUILD_DIR)) {
    const file = path.join(CLI_BUILD_DIR, name)
    if (kept.has(file)) continue
    const stat = fs.statSync(file, { throwIfNoEntry: false })
    if (stat && now - stat.mtimeMs > KEEP_UNUSED_MS) fs.rmSync(file, { force: true })
  }
}

/** Bundles the CLI and writes build.json; returns the entry module's path. */
export async function buildCli() {
  // Stats are taken before esbuild reads anything, so an edit made during the build shows as stale later.
  const before = statTree('src', new Map())
  for (const file of BUILD_INPUTS) before.set(file, fs.statSync(path.join(REPO_ROOT, file)))
  // Packages (under node_modules/, or wherever its links lead) are no build's to edit: their stats after it do.
  const statBefore = (file) => before.get(file) ?? (file.startsWith('src/') ? undefined : fs.statSync(path.join(REPO_ROOT, file), { throwIfNoEntry: false }))
  const { build } = await import('esbuild')
  const options = {
    absWorkingDir: REPO_ROOT,
    outdir: CLI_BUILD_DIR,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    // .mjs: Node decides a module's format from the nearest package.json, and that search stops at node_modules/.
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: NATIVE_OR_TOOLS,
    banner: { js: "import { createRequire as __quireCreateRequire } from 'node:module'; const require = __quireCreateRequire(import.meta.url);" },
    sourcemap: 'linked', // stack traces map back with NODE_OPTIONS=--enable-source-maps
    sourcesContent: false, // the maps point at src/, which is right there
    // Node 20 compiles every module at each start (no compile cache): fewer bytes, less of a start's
    // CPU. Names are kept as written, so CPU profiles and stack traces still read.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [sourceLocation],
  }
  // Worker threads' scripts first, each one file: the CLI's bundle is told where they are (WORKER_ENTRIES).
  const workers = await build({ ...options, entryPoints: Object.values(WORKER_ENTRIES) })
  const define = {}
  for (const [name, source] of Object.entries(WORKER_ENTRIES)) {
    const output = workers.outputFiles.find((file) => outputMeta(workers, file)?.entryPoint === source)
    if (!output) throw new Error(`esbuild produced no output for ${source}`)
    define[name] = JSON.stringify(output.path)
  }
  const cli = await build({ ...options, entryPoints: [ENTRY_SOURCE], splitting: true, define })
  fs.mkdirSync(CLI_BUILD_DIR, { recursive: true })
  const kept = new Set()
  let entry
  for (const result of [workers, cli]) {
    for (const output of result.outputFiles) {
      kept.add(output.path)
      writeAtomically(output.path, output.contents)
      if (outputMeta(result, output)?.entryPoint === ENTRY_SOURCE) entry = output.path
    }
  }
  if (!entry) throw new Error(`esbuild produced no output for ${ENTRY_SOURCE}`)
  const inputs = [...new Set([...Object.keys(workers.metafile.inputs), ...Object.keys(cli.metafile.inputs)]), ...BUILD_INPUTS].map((file) => {
    const stat = statBefore(file)
    return [file, stat ? stat.mtimeMs : -1, stat ? stat.size : -1] // -1: created during the build, stale at once
  })
  writeAtomically(STAMP, `${JSON.stringify({ format: STAMP_FORMAT, root: REPO_ROOT, entry: path.relative(CLI_BUILD_DIR, entry), inputs })}\n`)
  kept.add(STAMP)
  pruneUnused(kept)
  return entry
}

// `node scripts/build-cli.mjs` (npm's prepare). A build that fails does not fail the install: the sources
// may be mid-edit, and bin/quire.mjs tries again at its first run (and says why if it still cannot).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now()
  try {
    const entry = await buildCli()
    process.stdout.write(`quire CLI built into ${path.relative(REPO_ROOT, path.dirname(entry))} in ${Math.round(performance.now() - started)} ms\n`)
  } catch (error) {
    process.stderr.write(`quire CLI not built (${error instanceof Error ? error.message.split('\n').slice(0, 2).join(' ') : error}); bin/quire.mjs builds it at its first run\n`)
  }
}
