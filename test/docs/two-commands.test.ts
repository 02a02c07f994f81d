import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO } from './markdown'

/**
 * Issue 30: the README's two commands are the ones the project runs: `npm ci` and `npm test` are what
 * .ci/run runs from a clean clone, and `npm start` / `npm test` are package.json's scripts.
 */
describe("the README's two commands", () => {
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## The two commands'), readme.indexOf('\n## ', readme.indexOf('## The two commands') + 1))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? ''
  const commands = block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean)

  it('are install and start, and test', () => {
    expect(commands).toEqual(['npm ci && npm start', 'npm test'])
  })

  it('are what .ci/run runs and what package.json defines', () => {
    const ci = fs.readFileSync(path.join(REPO, '.ci/run'), 'utf8').split('\n').map((l) => l.trim())
    expect(ci.some((l) => /^npm ci(\s|$)/.test(l)), '.ci/run installs with npm ci').toBe(true)
    expect(ci.at(-2) === 'npm test' || ci.at(-1) === 'npm test', ".ci/run's last step is npm test").toBe(true)
    const { scripts } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(scripts.start).toBeDefined()
    expect(scripts.test).toMatch(/typecheck.*lint.*vitest run/) // "type-check, lint and every test", as the README says
  })
})
