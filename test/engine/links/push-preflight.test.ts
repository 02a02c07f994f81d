import fs from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { removeWorkstation, seededWorkstation, serviceForFile } from '../sync-up/support/hooks'
import type { Workstation } from '../sync-up/support/workspace'

/** Issue 28: a push that adds broken links says so (and is sent): an edit's own, and links into a page it renames. */

const t = serviceForFile()
let ws: Workstation
beforeEach(async () => {
  ws = await seededWorkstation(t, 'quire-push-preflight-')
  await ws.pull()
})
afterEach(() => removeWorkstation(ws))

describe('push pre-flight', () => {
  it('names the broken links a push adds, the push still sent', async () => {
    fs.writeFileSync(ws.file('faq.md'), '# FAQ\n\nSee [install](guide/install.md) and [the old page](old.md).\n')
    const first = await ws.push()
    expect(first.planned).toBe(1)
    expect(first.sent).toBeGreaterThan(0)
    expect(first.brokenLinks?.map((f) => [f.file, f.line, f.target, f.reason])).toEqual([['faq.md', 3, 'old.md', 'no page at old.md']])

    // Renaming the page faq.md links to breaks that link, in a file the push does not otherwise touch.
    fs.renameSync(ws.file('guide/install.md'), ws.file('guide/installation.md'))
    const second = await ws.push()
    expect(second.planned).toBeGreaterThan(0)
    expect(second.brokenLinks?.map((f) => [f.file, f.line, f.target, f.reason])).toEqual([['faq.md', 3, 'guide/install.md', 'guide/install.md is renamed to guide/installation.md by this push']])
  })
})
