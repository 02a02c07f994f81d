import { spawn } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { hasChromium } from '../ui/support'

/**
 * Issue 30, done when "a newcomer's path is tested": scripts/newcomer-tour.mjs clones the repository
 * (its HEAD commit: commit a README change before this test sees it), and follows the README's tour
 * exactly as that README writes it, with `quire serve`, the demo service and the CLI as the writer and
 * as the reviewer, checking each step's visible result; with Chromium, the "In the app" paragraph is
 * clicked through in it too (without, that part is skipped, as the browser tests are). It links the checkout's node_modules into the
 * clone rather than installing (minutes), and runs `npx quire` as the file npx runs (--direct, after
 * one real npx call): npm's start-up costs seconds per call on a loaded machine.
 */

const repo = path.resolve(__dirname, '../..')

function runTour(): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repo, 'scripts/newcomer-tour.mjs'), '--direct'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

describe("the newcomer's path", () => {
  it('a fresh clone follows the README tour as written: the app link, the demo service, the writer, the reviewer, the merge', async () => {
    const { code, out, err } = await runTour()
    // On failure the script names the step, why, and what it printed (stderr), after the steps that passed.
    expect(code, `${err}\n${out}`).toBe(0)
    // Each part of the tour ran: the app's way in, both users' sign-in, the review and the merge, in sync at the end.
    if (hasChromium) for (const step of ['in the app: open the link', 'Submit for review', 'clicks **Approve**', '**Merge…**']) expect(out).toContain(step)
    for (const step of ['npx quire serve', 'npx quire service --demo', 'as Quire Owner', 'as Ada Reviewer', 'cr review 2', 'cr merge 2', 'in sync', 'the tour passed']) expect(out).toContain(step)
  }, 300_000)
})
