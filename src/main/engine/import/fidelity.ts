import yaml from 'js-yaml'

/**
 * Why a file the service gives back differs from the one imported, in words a writer can check: line
 * endings, blank lines at either end or after the H1, front matter keys dropped or rewritten, the H1
 * rewritten (escapes, a trailing space), or else the first line that differs. Pure; empty when equal.
 */
export function differenceReasons(original: string, returned: string): string[] {
  if (original === returned) return []
  const reasons: string[] = []
  let a = original
  let b = returned
  if (a.includes('\r\n') && a.replace(/\r\n/g, '\n') !== a && b.replace(/\r\n/g, '\n') !== a) {
    if (!b.includes('\r\n')) reasons.push('CRLF line endings returned as LF')
    else reasons.push('CRLF line endings returned mixed')
  }
  a = a.replace(/\r\n/g, '\n')
  b = b.replace(/\r\n/g, '\n')
  if (a === b) return reasons

  const [frontA, bodyA] = splitFrontMatter(a)
  const [frontB, bodyB] = splitFrontMatter(b)
  if (frontA !== frontB) reasons.push(...frontMatterReasons(frontA, frontB))

  const endA = trailingNewlines(bodyA)
  const endB = trailingNewlines(bodyB)
  if (endA !== endB) reasons.push(`${endA > endB ? 'trailing blank lines trimmed' : 'trailing blank lines added'} (${endA} line break${endA === 1 ? '' : 's'} at the end, returned ${endB})`)
  const startA = leadingBlankLines(bodyA)
  const startB = leadingBlankLines(bodyB)
  if (startA !== startB) reasons.push(`${startA > startB ? 'leading blank lines removed' : 'leading blank lines added'} (${startA}, returned ${startB})`)

  const restA = bodyA.slice(startA).replace(/\n+$/, '')
  const restB = bodyB.slice(startB).replace(/\n+$/, '')
  const h1A = h1Of(restA)
  const h1B = h1Of(restB)
  if (h1A?.line !== h1B?.line) {
    if (h1A && !h1B) reasons.push(`the H1 "${h1A.line}" is not returned`)
    else if (!h1A && h1B) reasons.push(`an H1 "${h1B.line}" was added (the file has none)`)
    else reasons.push(`the H1 is returned as ${JSON.stringify(h1B!.line)} (written ${JSON.stringify(h1A!.line)})`)
  } else if (h1A && h1B && h1A.blankAfter !== h1B.blankAfter) {
    reasons.push(`blank lines after the H1 ${h1A.blankAfter > h1B.blankAfter ? 'collapsed' : 'added'} (${h1A.blankAfter}, returned ${h1B.blankAfter})`)
  }
  // A page placed at another depth (its group could not be created) gets its relative links rewritten.
  if (withoutUpLevels(restA) === withoutUpLevels(restB) && restA !== restB) {
    reasons.push('relative links rewritten for the place the page comes back at')
    return reasons
  }
  const linesA = (h1A ? h1A.after : restA).split('\n')
  const linesB = (h1B ? h1B.after : restB).split('\n')
  const first = firstDifference(linesA, linesB)
  if (first !== undefined) reasons.push(`the body differs from its line ${first + 1 + (h1A ? h1A.offset : 0)}: ${quote(linesA[first])} returned as ${quote(linesB[first])}`)
  return reasons.length > 0 ? reasons : ['rewritten by the service']
}

function withoutUpLevels(text: string): string {
  return text.replace(/(\.\.\/)+/g, '').replace(/\(\.\//g, '(')
}

function splitFrontMatter(text: string): [string | undefined, string] {
  const match = /^---\n([\s\S]*?\n)?---(\n|$)/.exec(text)
  return match ? [match[1] ?? '', text.slice(match[0].length)] : [undefined, text]
}

function frontMatterReasons(a: string | undefined, b: string | undefined): string[] {
  if (a === undefined) return ['front matter added']
  if (b === undefined) return ['front matter dropped']
  const keysA = keysOf(a)
  const keysB = keysOf(b)
  if (!keysA || !keysB) return ['front matter rewritten']
  const reasons: string[] = []
  const dropped = keysA.filter((k) => !keysB.includes(k))
  const added = keysB.filter((k) => !keysA.includes(k))
  if (dropped.length > 0) reasons.push(`front matter keys dropped: ${dropped.join(', ')}`)
  if (added.length > 0) reasons.push(`front matter keys added: ${added.join(', ')}`)
  const kept = keysA.filter((k) => keysB.includes(k))
  if (dropped.length === 0 && added.length === 0 && kept.join() !== keysB.filter((k) => keysA.includes(k)).join()) reasons.push('front matter keys reordered')
  const description = /^description:(.*)$/m
  const descA = description.exec(a)?.[1].trim()
  const descB = description.exec(b)?.[1].trim()
  if (descA !== undefined && descB !== undefined && descA !== descB && (/^[>|]/.test(descA) || /^[>|]/.test(descB))) {
    reasons.push(`description folded differently (written ${quote(descA || '(value on the next lines)')}, returned ${quote(descB || '(value on the next lines)')})`)
  }
  if (reasons.length === 0) reasons.push('front matter rewritten (same keys, other formatting)')
  return reasons
}

function keysOf(text: string): string[] | undefined {
  try {
    const doc = yaml.load(text)
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? Object.keys(doc) : []
  } catch {
    return undefined
  }
}

function trailingNewlines(text: string): number {
  return /\n*$/.exec(text)![0].length
}

function leadingBlankLines(text: string): number {
  return /^\n*/.exec(text)![0].length
}

/** The H1 line (when the text starts with one), how many blank lines follow it, and the text after them. */
function h1Of(text: string): { line: string; blankAfter: number; after: string; offset: number } | undefined {
  const match = /^(# [^\n]*)\n(\n*)/.exec(text) ?? /^(# [^\n]*)$/.exec(text)
  if (!match) return undefined
  const blankAfter = match[2]?.length ?? 0
  return { line: match[1], blankAfter, after: text.slice(match[0].length), offset: 1 + blankAfter }
}

function firstDifference(a: string[], b: string[]): number | undefined {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i
  return undefined
}

function quote(line: string | undefined): string {
  if (line === undefined) return '(nothing)'
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 77)}...` : line)
}
