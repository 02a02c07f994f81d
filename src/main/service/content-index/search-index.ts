/**
 * Full-text search over one revision: an in-memory inverted index of page titles, descriptions and
 * body sections. Built once per revision (revisions never change) and cached by the caller.
 *
 * Matching: every query word must occur in the page (title, description or body); a word matches
 * an indexed word equal to it or, for query words of two letters or more, starting with it
 * ("auth" finds "authentication"), a prefix match counting for less than an exact one.
 * Ranking: BM25-like per field, the title weighing most, then the description, then the body.
 * Only document pages are searched: groups and link pages have no content of their own.
 */
import type { RevisionSource } from './link-report'
import { RevisionMap, type PageEntry } from './revision-map'
import { pageSections } from './sections'
import { excerpt, termFrequencies, tokenize } from './text'

export interface SectionHit {
  anchor?: string
  title: string
  /** Excerpt of the section's text around the first match. */
  body: string
  score: number
}

export interface PageHit {
  entry: PageEntry
  description: string
  score: number
  /** 'page' when every query word is in the title or description, else 'section'. */
  resultType: 'page' | 'section'
  /** Matching sections, best first. */
  sections: SectionHit[]
}

interface IndexedSection {
  anchor?: string
  title: string
  text: string
  titleTerms: Map<string, number>
  bodyTerms: Map<string, number>
}

interface IndexedPage {
  entry: PageEntry
  description: string
  titleTerms: Map<string, number>
  descriptionTerms: Map<string, number>
  bodyTerms: Map<string, number>
  sections: IndexedSection[]
}

interface Expansion {
  term: string
  weight: number
}

const PREFIX_WEIGHT = 0.5
const MAX_EXPANSIONS = 64
const MAX_SECTIONS = 5
const FIELD_WEIGHT = { title: 3, description: 2, body: 1 }

export class SearchIndex {
  private readonly pages: IndexedPage[] = []
  /** Term -> indexes of the pages containing it. */
  private readonly postings = new Map<string, Set<number>>()
  private readonly vocabulary: string[]

  constructor(source: RevisionSource) {
    const map = new RevisionMap(source.tree)
    for (const entry of map.pages) {
      const { page } = entry
      if (page.type !== 'document') continue
      const body = page.bodyOid === undefined ? '' : (source.readBlob(page.bodyOid) ?? '')
      const sections = pageSections(body, page.title).map((section) => ({
        ...section,
        titleTerms: section.anchor === undefined ? new Map<string, number>() : termFrequencies(section.title),
        bodyTerms: termFrequencies(section.text),
      }))
      const description = page.metadata.description ?? ''
      const indexed: IndexedPage = {
        entry,
        description,
        titleTerms: termFrequencies(page.title),
        descriptionTerms: termFrequencies(description),
        bodyTerms: mergeCounts(sections.flatMap((s) => [s.titleTerms, s.bodyTerms])),
        sections,
      }
      const index = this.pages.length
      this.pages.push(indexed)
      for (const field of [indexed.titleTerms, indexed.descriptionTerms, indexed.bodyTerms]) {
        for (const term of field.keys()) {
          let pages = this.postings.get(term)
          if (!pages) this.postings.set(term, (pages = new Set()))
          pages.add(index)
        }
      }
    }
    this.vocabulary = [...this.postings.keys()].sort()
  }

  /** Pages matching every word of `query`, best first; [] when the query has no words. */
  search(query: string): PageHit[] {
    const words = [...new Set(tokenize(query))]
    if (words.length === 0) return []
    const expansions = words.map((word) => this.expand(word))
    let candidates: Set<number> | undefined
    for (const options of expansions) {
      const matching = new Set<number>()
      for (const { term } of options) for (const page of this.postings.get(term) ?? []) matching.add(page)
      candidates = candidates ? new Set([...candidates].filter((page) => matching.has(page))) : matching
    }
    const hits = [...(candidates ?? [])].sort((a, b) => a - b).map((index) => this.score(this.pages[index], expansions))
    // A stable sort keeps document order among equal scores.
    return hits.sort((a, b) => b.score - a.score)
  }

  private expand(word: string): Expansion[] {
    const found: Expansion[] = this.postings.has(word) ? [{ term: word, weight: 1 }] : []
    if (word.length < 2) return found
    for (let i = lowerBound(this.vocabulary, word); i < this.vocabulary.length && found.length < MAX_EXPANSIONS; i++) {
      const term = this.vocabulary[i]
      if (!term.startsWith(word)) break
      if (term !== word) found.push({ term, weight: PREFIX_WEIGHT })
    }
    return found
  }

  private score(page: IndexedPage, expansions: Expansion[][]): PageHit {
    let score = 0
    let pageFieldsMatchAll = true
    for (const options of expansions) {
      const title = this.fieldScore(page.titleTerms, options)
      const description = this.fieldScore(page.descriptionTerms, options)
      if (title + description === 0) pageFieldsMatchAll = false
      score += FIELD_WEIGHT.title * title + FIELD_WEIGHT.description * description + FIELD_WEIGHT.body * this.fieldScore(page.bodyTerms, options)
    }
    const sections: SectionHit[] = []
    for (const section of page.sections) {
      let sectionScore = 0
      const matched: string[] = []
      for (const options of expansions) {
        sectionScore += 2 * this.fieldScore(section.titleTerms, options) + this.fieldScore(section.bodyTerms, options)
        for (const { term } of options) if (section.bodyTerms.has(term) || section.titleTerms.has(term)) matched.push(term)
      }
      if (sectionScore === 0) continue
      const hit: SectionHit = { title: section.title, body: excerpt(section.text, matched), score: round(sectionScore) }
      sections.push(section.anchor === undefined ? hit : { anchor: section.anchor, ...hit })
    }
    sections.sort((a, b) => b.score - a.score)
    return {
      entry: page.entry,
      description: page.description,
      score: round(score),
      resultType: pageFieldsMatchAll ? 'page' : 'section',
      sections: sections.slice(0, MAX_SECTIONS),
    }
  }

  /** Best match of one query word in a field: saturating term frequency times rarity across pages. */
  private fieldScore(terms: Map<string, number>, options: Expansion[]): number {
    let best = 0
    for (const { term, weight } of options) {
      const frequency = terms.get(term)
      if (!frequency) continue
      const pagesWithTerm = this.postings.get(term)?.size ?? 0
      const idf = Math.log(1 + (this.pages.length - pagesWithTerm + 0.5) / (pagesWithTerm + 0.5))
      best = Math.max(best, weight * idf * (frequency / (frequency + 1.2)))
    }
    return best
  }
}

function mergeCounts(maps: Map<string, number>[]): Map<string, number> {
  const merged = new Map<string, number>()
  for (const map of maps) for (const [term, count] of map) merged.set(term, (merged.get(term) ?? 0) + count)
  return merged
}

function lowerBound(sorted: string[], value: string): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (sorted[mid] < value) low = mid + 1
    else high = mid
  }
  return low
}

const round = (value: number) => Math.round(value * 10_000) / 10_000
