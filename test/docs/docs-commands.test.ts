import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CLI_DOC, cliHelp, currentSection, referenceSection, type CliHelp } from '../../scripts/cli-help'
import { codePieces, docPages, REPO } from './markdown'

/**
 * Issue 30: every `quire` command, subcommand and option that README.md or docs/ names in code exists,
 * checked against the CLI's real help texts (main() in process: `quire --help` lists the commands, each
 * `quire <command> --help` its options); and docs/cli.md's reference is those help texts as they are.
 */

interface Mention {
  page: string
  line: number
  /** The command named (undefined for `quire --version` and the like). */
  command?: string
  /** The words after it up to the end of the command (the next quire, ;, &&, # comment or end of line). */
  rest: string
}

/** Each `quire ...` in the code of a page (a fenced line or an inline span). */
function mentionsOf(page: string): Mention[] {
  const mentions: Mention[] = []
  for (const piece of codePieces(fs.readFileSync(path.join(REPO, page), 'utf8'))) {
    // "quire" as a word (not quire-cli/, ~/.local/share/quire/, quire.local), then what it is given.
    const starts = [...piece.text.matchAll(/(?<![\w./~-])quire(?= +[a-z-])/g)].map((m) => m.index)
    starts.forEach((start, i) => {
      const segment = piece.text.slice(start + 'quire'.length, starts[i + 1] ?? piece.text.length)
      const rest = segment.split(/;|&&|\s#\s|\s#$/)[0]
      const name = /^ +([a-z][a-z-]*)/.exec(rest)?.[1]
      mentions.push({ page, line: piece.line, command: name, rest: name ? rest.replace(/^ +[a-z][a-z-]*/, '') : rest })
    })
  }
  return mentions
}

/** The options a mention uses: --long and -s words (not inside quotes, not a value like "-1"). */
function optionsOf(rest: string): string[] {
  const unquoted = rest.replace(/"[^"]*"|'[^']*'/g, '')
  return [...unquoted.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])/g)].map((m) => m[1])
}

/** Options the docs name for other programs: node's flags (bin/quire.mjs's first line, bench:edit), tsc's, the newcomer's tour script's. */
const FOREIGN = new Set(['--max-semi-space-size', '--heap-growing-percent', '--expose-gc', '--noEmit', '--direct', '--keep', '--no-app'])

/** A code piece that runs another program than quire: its options are that program's. */
const OTHER_PROGRAM = /(^|[\s=])(npm|node|git|tsc|eslint|vitest|electron-builder|npx (?!quire\b)\S+)\s/

const optionIn = (help: string, option: string) => new RegExp(`(^|[\\s\\[(|,])${option}(?![\\w-])`, 'm').test(help)
const ALWAYS = new Set(['--help', '-h'])

describe('the quire commands and options that README.md and docs/ name', () => {
  let help: CliHelp
  beforeAll(async () => {
    help = await cliHelp()
  })

  it('are found in the docs: the tour, the CLI page and the guides name many', () => {
    const mentions = docPages().flatMap(mentionsOf)
    expect(mentions.length).toBeGreaterThan(100)
    expect(new Set(mentions.map((m) => m.command))).toEqual(expect.objectContaining({ size: expect.any(Number) }))
    // Every command of the CLI is documented somewhere.
    const documented = new Set(mentions.map((m) => m.command))
    expect([...help.commands.keys()].filter((c) => !documented.has(c))).toEqual([])
  })

  it('exist: each command is in quire --help, each cr subcommand and each option in the command\'s own --help', () => {
    const wrong: string[] = []
    for (const m of docPages().flatMap(mentionsOf)) {
      const where = `${m.page}:${m.line}: quire ${m.command ?? ''}${m.rest}`.trim()
      if (m.command === undefined) {
        for (const option of optionsOf(m.rest)) if (!ALWAYS.has(option) && !optionIn(help.usage, option)) wrong.push(`${where}: quire has no option ${option}`)
        continue
      }
      const text = help.commands.get(m.command)
      if (text === undefined) {
        wrong.push(`${where}: no command "${m.command}" in quire --help`)
        continue
      }
      if (m.command === 'cr') {
        // `cr list|show|update|merge|pdf` names several; each must be a subcommand of cr --help.
        const subs = /^ +([a-z]+(?:\|[a-z]+)*)/.exec(m.rest)?.[1]?.split('|') ?? []
        for (const sub of subs) if (!new RegExp(`^quire cr ${sub}\\b`, 'm').test(text)) wrong.push(`${where}: no subcommand "cr ${sub}" in quire cr --help`)
      }
      for (const option of optionsOf(m.rest)) if (!ALWAYS.has(option) && !optionIn(text, option)) wrong.push(`${where}: quire ${m.command} --help has no ${option}`)
    }
    expect(wrong).toEqual([])
  })

  it('named on their own (`--once`, with no quire before it) are options of some quire command', () => {
    const all = [help.usage, ...help.commands.values()].join('\n')
    const wrong: string[] = []
    for (const page of docPages()) {
      for (const piece of codePieces(fs.readFileSync(path.join(REPO, page), 'utf8'))) {
        if (/(?<![\w./~-])quire(?= +[a-z-])/.test(piece.text)) continue // checked with its command above
        if (OTHER_PROGRAM.test(piece.text)) continue // npm ci --no-audit, node --expose-gc: another program's options
        for (const option of optionsOf(piece.text).filter((o) => o.startsWith('--'))) {
          if (!FOREIGN.has(option) && !optionIn(all, option)) wrong.push(`${page}:${piece.line}: ${option} is no option of any quire command`)
        }
      }
    }
    expect(wrong).toEqual([])
  })

  it('docs/cli.md\'s reference is the help texts the CLI prints now (npm run docs:cli rewrites it)', () => {
    const doc = fs.readFileSync(CLI_DOC, 'utf8')
    expect(currentSection(doc), 'docs/cli.md keeps its generated section between its markers').toBeDefined()
    expect(currentSection(doc)).toBe(referenceSection(help))
  })
})
