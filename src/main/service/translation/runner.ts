import { createSpaceRevision, RevisionsRepository } from '../store/revisions'
import type { ServiceStore } from '../store/service-store'
import { SpacesRepository, type Space } from '../store/spaces'
import {
  TranslationsRepository,
  type Translation,
  type TranslationData,
  type TranslationRunReport,
  type TranslationStats,
} from '../store/translations'
import { documentText } from './document-text'
import { translateTree } from './translate-tree'
import { translatorFor, type Translator } from './translator'

interface RunQueue {
  /** The last queued run; the next one starts after it. */
  tail: Promise<void>
  /** Runs requested and not finished, so a finishing run knows whether the translation stays `running`. */
  waiting: number
}

const queues = new WeakMap<ServiceStore, Map<string, RunQueue>>()

function queueOf(store: ServiceStore, translationId: string): RunQueue {
  let byId = queues.get(store)
  if (!byId) queues.set(store, (byId = new Map()))
  let queue = byId.get(translationId)
  if (!queue) byId.set(translationId, (queue = { tail: Promise.resolve(), waiting: 0 }))
  return queue
}

const seconds = (ms: number) => Math.round(ms / 1000)

function runMessage(translator: Translator, translation: Translation, pages: number): string {
  if (translator.machineTranslation) return `Translated ${pages} page(s) from ${translation.sourceLanguage} to ${translation.language} with ${translator.name}.`
  return (
    `No machine translator is configured in this local service: ${pages} page(s) were copied unchanged ` +
    `(still in ${translation.sourceLanguage}) into the ${translation.language} space.`
  )
}

/** The target space of a run: the previous result when it still exists, else a new space next to the source. */
function targetSpace(store: ServiceStore, translation: Translation, source: Space, title: string): Space {
  const spaces = store.repo(SpacesRepository)
  const previous = translation.resultSpaceId ? spaces.get(translation.resultSpaceId) : undefined
  if (previous && previous.deletedAt === null) return previous
  return spaces.create({
    orgId: source.orgId,
    collectionId: source.collectionId,
    title: `${title} (${translation.language})`,
    data: {
      language: translation.language,
      ...(source.data.emoji ? { emoji: source.data.emoji } : {}),
      visibility: source.data.visibility === 'share-link' ? 'private' : source.data.visibility,
    },
  })
}

function runFailed(store: ServiceStore, translation: Translation, report: TranslationRunReport, durationMs: number, stillWaiting: boolean) {
  const stats: TranslationStats = {
    ...translation.stats,
    runs: translation.stats.runs + 1,
    totalDuration: translation.stats.totalDuration + seconds(durationMs),
    latestRunDuration: seconds(durationMs),
    latestPages: 0,
    latestWords: 0,
  }
  // Without a result the translation is still waiting for a first good run; with one, that result stands.
  const status = stillWaiting ? 'running' : translation.resultSpaceId ? 'completed' : 'pending'
  store.repo(TranslationsRepository).saveRun(translation.id, { status, stats, data: { ...translation.data, lastRun: report } })
}

/**
 * One run: reads the source space's current revision, passes every page through the translator and
 * stores the result as a new revision of the target space (created on the first run, with `language`
 * set). Failures are recorded in the run report; nothing of a failed run is written to any space.
 */
async function runOnce(store: ServiceStore, translationId: string, userId: string, queue: RunQueue): Promise<void> {
  const translations = store.repo(TranslationsRepository)
  const translation = translations.get(translationId)
  if (!translation) return
  const translator = translatorFor(store)
  const started = Date.now()
  const report: TranslationRunReport = {
    outcome: 'running',
    startedAt: store.now(),
    translator: translator.name,
    machineTranslation: translator.machineTranslation,
    message: 'The run has started.',
  }
  translations.saveRun(translationId, { status: 'running', data: { ...translation.data, lastRun: report } })
  const finish = (outcome: 'succeeded' | 'failed', message: string): TranslationRunReport => ({ ...report, outcome, message, finishedAt: store.now() })

  try {
    const source = store.repo(SpacesRepository).get(translation.sourceSpaceId)
    if (!source || source.deletedAt !== null) throw new Error(`the source space ${translation.sourceSpaceId} no longer exists`)
    const revisions = store.repo(RevisionsRepository)
    const sourceRevision = source.revisionId ? revisions.get(source.revisionId) : undefined
    const options = { from: translation.sourceLanguage, to: translation.language, instructions: documentText(translation.instructions) }
    const translate = (text: string) => translator.translate(text, options)
    const copy = await translateTree(
      sourceRevision?.tree ?? { pages: [], files: [] },
      (oid) => revisions.blob(oid)?.toString('utf8'),
      translate,
      store.now(),
    )
    const spaceTitle = await translate(source.title)
    if (!store.db.open) return
    const durationMs = Date.now() - started
    const message = runMessage(translator, translation, copy.pageIds.length)
    store.transaction(() => {
      // Re-read: the translation may have been deleted or edited while the translator was working.
      const current = translations.get(translationId)
      if (!current) return
      const target = targetSpace(store, current, source, spaceTitle)
      const revision = createSpaceRevision(store, target.id, copy.tree, copy.blobs, target.revisionId ? [target.revisionId] : [], {
        type: 'edits',
        message: `Translation ${current.id} (${current.sourceLanguage} -> ${current.language}): ${message}`,
        createdBy: userId,
      })
      const translatedPageIds = [...new Set([...current.data.translatedPageIds, ...copy.pageIds])]
      const stats: TranslationStats = {
        runs: current.stats.runs + 1,
        totalWords: current.stats.totalWords + copy.words,
        totalPages: translatedPageIds.length,
        totalDuration: current.stats.totalDuration + seconds(durationMs),
        latestRunDuration: seconds(durationMs),
        latestPages: copy.pageIds.length,
        latestWords: copy.words,
      }
      const data: TranslationData = { translatedPageIds, lastRun: finish('succeeded', message) }
      translations.saveRun(translationId, {
        status: queue.waiting > 1 ? 'running' : 'completed',
        stats,
        data,
        result: { spaceId: target.id, revisionId: revision.id },
      })
    })
  } catch (error) {
    if (!store.db.open) return
    const current = translations.get(translationId)
    if (!current) return
    const reason = error instanceof Error ? error.message : String(error)
    runFailed(store, current, finish('failed', `The run failed: ${reason}`), Date.now() - started, queue.waiting > 1)
  }
}

/**
 * Marks the translation `running` at once and returns the run to execute in the background. Runs of one
 * translation execute one after another, so two requests never write the target space concurrently.
 */
export function requestTranslationRun(store: ServiceStore, translationId: string, userId: string): () => Promise<void> {
  const translations = store.repo(TranslationsRepository)
  const translation = translations.get(translationId)
  if (translation) translations.saveRun(translationId, { status: 'running', data: translation.data })
  const queue = queueOf(store, translationId)
  queue.waiting++
  const run = queue.tail.then(() => runOnce(store, translationId, userId, queue)).finally(() => {
    queue.waiting--
    if (queue.waiting === 0) queues.get(store)?.delete(translationId)
  })
  queue.tail = run
  return () => run
}
