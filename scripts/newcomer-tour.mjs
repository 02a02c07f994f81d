#!/usr/bin/env node
/**
 * The newcomer's path, tested: clones this repository (a local `git clone` of its HEAD commit, no
 * network), then follows the README's "A five-minute tour" exactly as the clone's README.md writes it,
 * as a newcomer would, and checks each step's visible result:
 *
 * - `npx quire serve` (the app's way in) prints a link with a secret, and the link serves the app; then,
 *   when Chromium is there (CHROMIUM_PATH, default /usr/bin/chromium; --no-app skips it), the tour's
 *   "In the app" paragraph is clicked through in it as it reads: the demo, a space, a saved edit, the
 *   change request, asking Ada, her approval, the merge;
 * - the terminal tour, block by block: the demo service (left running), then the writer's, the
 *   reviewer's and the writer's terminal again, each line run by bash as written. Each line must exit 0
 *   and print what its comment quotes (`# "..."`, whitespace runs compared as one space); what the
 *   service prints must match the README's sample output; the files the tour names must hold the edit.
 *
 * What it fills in, as the reader does: PORT, WRITER_TOKEN and REVIEWER_TOKEN from what the service
 * prints, SPACE_ID from the User Guide's line of `quire spaces`. What it sets around the tour: HOME is a
 * fresh folder (so `~` and the app's data are the run's own), tokens go to a file (QUIRE_TOKEN_STORE=file,
 * never the machine's keychain), npm's update check is off, and no QUIRE_* variable of the caller leaks in.
 *
 * node_modules: a full `npm ci` of the clone takes minutes, so the clone gets a node_modules folder of
 * links to this checkout's packages instead (its own `.cache`, so the clone builds its own CLI there).
 *
 *   node scripts/newcomer-tour.mjs [--direct] [--keep] [--no-app]
 *
 * --direct runs `npx quire ...` as `node bin/quire.mjs ...` of the clone (the file npx runs: package.json's
 * bin), after one real `npx quire --version` shows npx finds it; npm's start-up costs seconds a call on
 * a loaded machine. --keep keeps the run's folder. Exits 0 when the tour passed, 1 with the failing step.
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const args = new Set(process.argv.slice(2))
const DIRECT = args.has('--direct')
const KEEP = args.has('--keep')
const REPO = fileURLToPath(new URL('..', import.meta.url))
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const APP = !args.has('--no-app') && fs.existsSync(CHROMIUM)
const started = Date.now()

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-newcomer-')))
const clone = path.join(tmp, 'quire')
const home = path.join(tmp, 'home')
fs.mkdirSync(home)
const background = []

const say = (line) => process.stdout.write(`${line}\n`)
const squash = (text) => text.replace(/\s+/g, ' ').trim()

class TourFailed extends Error {}
function fail(step, why, output = '') {
  throw new TourFailed(`step failed: ${step}\n  ${why}${output ? `\n  output:\n${output.replace(/^/gm, '    ')}` : ''}`)
}

/** The environment of the tour: the caller's PATH and tools, none of its Quire settings. */
function tourEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUIRE_') && !k.startsWith('npm_') && !k.startsWith('XDG_')))
  return { ...env, HOME: home, QUIRE_TOKEN_STORE: 'file', NPM_CONFIG_UPDATE_NOTIFIER: 'false', NO_UPDATE_NOTIFIER: '1', ...extra }
}

/** The clone, with node_modules as links to this checkout's packages (and a .cache of its own). */
function makeClone() {
  execFileSync('git', ['clone', '--quiet', REPO, clone], { stdio: 'inherit' })
  const commit = execFileSync('git', ['-C', clone, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  const modules = path.join(clone, 'node_modules')
  fs.mkdirSync(modules)
  for (const entry of fs.readdirSync(path.join(REPO, 'node_modules'))) {
    // Caches stay the clone's own: the CLI's build (.cache/quire-cli) and Vite's.
    if (entry === '.cache' || entry.startsWith('.vite')) continue
    fs.symlinkSync(path.join(REPO, 'node_modules', entry), path.join(modules, entry))
  }
  say(`cloned ${REPO} at ${commit} into ${clone} (node_modules linked, not installed)`)
}

/** The README's tour: its prose (for the app's commands) and its shell and sample-output blocks, in order. */
function readTour() {
  const readme = fs.readFileSync(path.join(clone, 'README.md'), 'utf8')
  const start = readme.indexOf('## A five-minute tour')
  if (start < 0) fail('read the tour', 'README.md has no "## A five-minute tour" section')
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end < 0 ? undefined : end)
  const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], lines: m[2].split('\n').filter((l) => l.trim() !== '') }))
  return { section, blocks }
}

/** The quoted expectations of a line's comment: `# "a" ... "b"` (the comment starts at " # "). */
function expectationsOf(line) {
  const comment = /\s#\s(.*)$/.exec(line)?.[1] ?? ''
  return [...comment.matchAll(/"([^"]+)"/g)].map((m) => m[1])
}

const vars = {}
const fill = (text) => text.replace(/\b(PORT|WRITER_TOKEN|REVIEWER_TOKEN|SPACE_ID)\b/g, (name) => vars[name] ?? name)
const asRun = (line) => (DIRECT ? line.replace(/\bnpx quire\b/g, `node ${JSON.stringify(path.join(clone, 'bin/quire.mjs'))}`) : line)
const expandHome = (value) => value.replace(/^~(?=\/|$)/, home)

/** Runs one line with bash in the clone, as a terminal with `exports` set would. */
function runLine(line, exports) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', asRun(fill(line))], { cwd: clone, env: tourEnv(exports), stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c) => (output += c))
    child.stderr.on('data', (c) => (output += c))
    child.on('close', (code) => resolve({ code, output }))
  })
}

/** Starts a long-running line in the background; resolves once its output matches `ready`. */
function startBackground(line, exports, ready, what) {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `exec ${asRun(fill(line))}`], { cwd: clone, env: tourEnv(exports), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    background.push(child)
    let output = ''
    const timer = setTimeout(() => reject(new TourFailed(`step failed: ${line}\n  ${what} did not print what the tour shows within 120 s\n  output:\n${output}`)), 120_000)
    const check = (chunk) => {
      output += chunk
      const found = ready(output)
      if (found) {
        clearTimeout(timer)
        resolve({ child, output, found })
      }
    }
    child.stdout.on('data', check)
    child.stderr.on('data', (c) => (output += c))
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new TourFailed(`step failed: ${line}\n  it exited (${code}) instead of running\n  output:\n${output}`))
    })
  })
}

/** Stops what runs in the background (each one's process group: npx and the node it started), and waits for it. */
function stopBackground() {
  return Promise.all(
    background.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined
      child.removeAllListeners('exit')
      const gone = new Promise((resolve) => {
        child.once('exit', resolve)
        setTimeout(resolve, 10_000).unref()
      })
      try {
        process.kill(-child.pid, 'SIGTERM')
      } catch {
        return undefined // already gone
      }
      return gone
    }),
  )
}

/** The app's way in: `npx quire serve` prints a link with a secret, and the link serves the app. */
async function appWayIn(section) {
  const line = /`(npx quire serve)`/.exec(section)?.[1]
  if (!line) fail('the app tour', 'the tour names no `npx quire serve`')
  const { found } = await startBackground(line, {}, (out) => /^(http:\/\/127\.0\.0\.1:\d+)\/#secret=[A-Za-z0-9_-]+$/m.exec(out), 'quire serve')
  const page = await fetch(found[1])
  const html = await page.text()
  if (page.status !== 200 || !/<div id="root">/.test(html)) fail(line, `the link's page is not the app (HTTP ${page.status})`, html.slice(0, 400))
  say(`✓ ${line}  (a link with a secret; the app's page is served)`)
  return found[0]
}

/**
 * The tour's "In the app" paragraph in Chromium (playwright-core, as the browser tests drive it): each
 * control it names, clicked as it says, and what it says the app then shows.
 */
async function appTour(link, paragraph) {
  const { chromium } = await import('playwright-core')
  const profile = path.join(tmp, 'chromium')
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'], viewport: { width: 1280, height: 800 } })
  const page = context.pages()[0] ?? (await context.newPage())
  const wait = { timeout: 90_000 }
  const step = async (what, action) => {
    // Each control the script uses must be one the paragraph names, in bold or in italics.
    for (const name of what.match(/\*\*[^*]+\*\*|\*[^*]+\*/g) ?? []) if (!squash(paragraph).includes(squash(name))) fail(`the app tour: ${what}`, `the README's paragraph does not say ${name}`)
    try {
      await action()
    } catch (error) {
      fail(`the app tour: ${what}`, error.message.split('\n')[0])
    }
    say(`✓ in the app: ${what}`)
  }
  const sections = page.getByRole('navigation', { name: 'Sections' })
  const section = (name) => sections.getByRole('button', { name, exact: true }).click()
  try {
    await step('open the link; click **Use the demo service**', async () => {
      await page.goto(link)
      await page.getByRole('button', { name: 'Use the demo service' }).click()
      await page.getByRole('heading', { name: 'Spaces' }).waitFor(wait)
    })
    await step('tick **User Guide** under Spaces; wait for *In sync*', async () => {
      await page.getByRole('checkbox', { name: 'User Guide' }).click()
      await page.locator('li.space-row', { hasText: 'User Guide' }).getByText('In sync').waitFor(wait)
    })
    const folder = /`(~\/Quire\/[^`]+)`/.exec(paragraph)?.[1]
    if (!folder) fail('the app tour', 'the paragraph names no folder under ~/Quire')
    const faq = path.join(expandHome(folder), 'faq.md')
    await step(`save a change to a page of \`${folder}\`: **Change requests** → **Mine** shows it, as a draft`, async () => {
      fs.appendFileSync(faq, '\nSaved in my editor, from the app tour.\n')
      await section('Change requests')
      await page.getByRole('button', { name: 'Mine', exact: true }).click()
      await page.locator('li.cr', { hasText: 'Mine' }).getByText('draft', { exact: true }).waitFor(wait)
    })
    const mine = page.locator('li.cr', { hasText: 'Mine' })
    const number = /#(\d+)/.exec((await mine.locator('.cr-subject').textContent()) ?? '')?.[1]
    await step('tick **Ada Reviewer** under *Ask for a review*; click **Submit for review**', async () => {
      await mine.getByRole('checkbox', { name: /Ada Reviewer/ }).check()
      await mine.getByRole('button', { name: 'Submit for review' }).click()
      await page.getByText(`Submitted #${number} for review`).waitFor(wait)
    })
    await step('click **Sign in as the reviewer**: Ada finds it under **For review** and clicks **Approve**', async () => {
      await sections.getByRole('button', { name: 'Sign in as the reviewer' }).click()
      await sections.getByText('Ada Reviewer (demo service)').waitFor(wait)
      await sections.getByRole('button', { name: /^For review/ }).click()
      const card = page.locator('li.cr', { hasText: `#${number}` })
      await card.getByRole('button', { name: 'Approve' }).click(wait)
      await page.getByText(`Approved #${number}`).waitFor(wait)
    })
    await step('**Sign in as the writer**; **Merge…** under Change requests merges it', async () => {
      await sections.getByRole('button', { name: 'Sign in as the writer' }).click()
      await sections.getByText('Quire Owner (demo service)').waitFor(wait)
      await section('Change requests')
      await page.getByRole('button', { name: 'Mine', exact: true }).click()
      await page.locator('li.cr', { hasText: `#${number}` }).getByRole('button', { name: 'Merge…' }).click(wait)
      await page.getByRole('group', { name: new RegExp(`^Confirm merging #${number} in `) }).getByRole('button', { name: `Merge #${number}` }).click(wait)
      await page.getByText(`Merged #${number}.`).waitFor(wait)
    })
  } finally {
    await context.close()
  }
}

/** The demo service, left running: what it prints must be the README's sample output, placeholders filled. */
async function startService(block, sample) {
  const [line] = block.lines
  const wanted = sample.lines.map((l) => new RegExp(`^${l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('/home/you', home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).replace('PORT', '(\\d+)').replace(/WRITER_TOKEN|REVIEWER_TOKEN/, '(\\S+)')}$`))
  const { output } = await startBackground(line, {}, (out) => out.split('\n').length > wanted.length && wanted.every((re) => out.split('\n').some((l) => re.test(l))), 'the demo service')
  const lines = output.split('\n')
  const match = (i) => lines.map((l) => wanted[i].exec(l)).find(Boolean)
  vars.PORT = match(0)[1]
  vars.WRITER_TOKEN = match(0)[2]
  vars.REVIEWER_TOKEN = match(2)[1]
  say(`✓ ${line}  (prints the README's three lines: port ${vars.PORT}, the writer's and the reviewer's tokens)`)
}

/** One terminal of the tour: its lines in order, exports kept, each checked. */
async function runTerminal(block) {
  const exports = {}
  for (const line of block.lines) {
    const exported = /^export (\w+)=(\S+)/.exec(line)
    if (exported) {
      exports[exported[1]] = expandHome(exported[2])
      say(`✓ ${line}`)
      continue
    }
    const { code, output } = await runLine(line, exports)
    if (code !== 0) fail(fill(line), `exited ${code}`, output)
    for (const expected of expectationsOf(line).map(fill)) {
      if (!squash(output).includes(squash(expected))) fail(fill(line), `does not print "${expected}"`, output)
    }
    if (/\bquire spaces\b/.test(line)) {
      const id = /^\s+(\S+)\s+User Guide\b/m.exec(output)?.[1]
      if (!id) fail(line, 'lists no User Guide with its id', output)
      vars.SPACE_ID = id
    }
    await visibleResult(line, exports, output)
    say(`✓ ${fill(line)}`)
  }
}

const EDIT = 'Edited in my editor.'
const faqOf = (quireHome) => path.join(quireHome, 'workspace', 'Quire Demo', 'User Guide', 'faq.md')

/** What the README's prose says a step leaves behind, beyond what it prints. */
async function visibleResult(line, exports, output) {
  const faq = faqOf(exports.QUIRE_HOME ?? '')
  if (/quire sync --once --space/.test(line) && !fs.existsSync(faq)) fail(fill(line), `the space is not mirrored into ${path.dirname(faq)}`, output)
  if (/^echo /.test(line) && !fs.readFileSync(faq, 'utf8').includes(EDIT)) fail(line, `${faq} does not hold the edit`)
  if (/quire cr merge/.test(line) && !fs.readFileSync(faq, 'utf8').includes(EDIT)) fail(fill(line), "the reviewer's folder did not follow the merged revision", output)
  if (/quire status/.test(line) && !fs.readFileSync(faq, 'utf8').includes(EDIT)) fail(fill(line), "the writer's file lost the merged edit", output)
}

async function main() {
  makeClone()
  const { section, blocks } = readTour()
  const shells = blocks.filter((b) => b.lang === 'sh')
  const sample = blocks.find((b) => b.lang === 'text')
  if (shells.length < 4 || !sample) fail('read the tour', `the tour has ${shells.length} shell blocks (4 wanted: the service, the writer, the reviewer, the writer again) and ${sample ? 'a' : 'no'} sample output`)
  if (DIRECT) {
    const { code, output } = await runLine('npx quire --version', {})
    const version = JSON.parse(fs.readFileSync(path.join(clone, 'package.json'), 'utf8')).version
    if (code !== 0 || !output.includes(version)) fail('npx quire --version', `npx does not run the clone's quire (exit ${code})`, output)
    say(`✓ npx quire --version  (${version}: npx runs the clone's bin/quire.mjs; the tour runs that file directly)`)
  }
  const link = await appWayIn(section)
  if (APP) {
    const paragraph = /\*\*In the app\.\*\*[\s\S]*?\n\n/.exec(section)?.[0]
    if (!paragraph) fail('the app tour', 'the tour has no "**In the app.**" paragraph')
    await appTour(link, paragraph)
  } else say(`(the app tour in a browser skipped: ${args.has('--no-app') ? '--no-app' : `no Chromium at ${CHROMIUM}`})`)
  await startService(shells[0], sample)
  for (const block of shells.slice(1)) await runTerminal(block)
  say(`the tour passed in ${Math.round((Date.now() - started) / 1000)} s`)
}

let code = 0
try {
  await main()
} catch (error) {
  process.stderr.write(`${error instanceof TourFailed ? error.message : error?.stack ?? error}\n`)
  code = 1
} finally {
  await stopBackground()
  if (KEEP) say(`kept ${tmp}`)
  else fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
}
process.exit(code)
