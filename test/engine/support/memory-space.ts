import { gitBlobOid } from '../../../src/main/content'
import type { ContentSource, JournalWriter, SpaceFiles } from '../../../src/main/engine/sync/executor'
import type { EntryKind, JournalEntry, LocalState, RemoteSnapshot } from '../../../src/main/engine/sync/plan-types'

const decoder = new TextDecoder()

/** A space folder in memory: the executor's SpaceFiles over a Map, plus a journal. */
export class MemorySpace implements SpaceFiles, JournalWriter {
  readonly disk = new Map<string, string>()
  readonly journalEntries = new Map<string, JournalEntry>()

  async hash(path: string) {
    const text = this.disk.get(path)
    return text === undefined ? undefined : gitBlobOid(text)
  }
  async write(path: string, data: Uint8Array) {
    this.disk.set(path, decoder.decode(data))
  }
  async rename(from: string, to: string) {
    const text = this.disk.get(from)
    if (text === undefined) throw new Error(`no ${from}`)
    this.disk.delete(from)
    this.disk.set(to, text)
  }
  async remove(path: string) {
    this.disk.delete(path)
  }
  record(entry: JournalEntry) {
    for (const [k, e] of this.journalEntries) if (e.path === entry.path && k !== `${entry.kind}:${entry.id}`) this.journalEntries.delete(k)
    this.journalEntries.set(`${entry.kind}:${entry.id}`, entry)
  }
  forget(id: string, kind: EntryKind) {
    this.journalEntries.delete(`${kind}:${id}`)
  }
  journal(): JournalEntry[] {
    return [...this.journalEntries.values()]
  }
  /** Hashes of every file: the planner only reads the paths it cares about. */
  local(): LocalState {
    return new Map([...this.disk].map(([p, t]) => [p, gitBlobOid(t)]))
  }
}

/** Serves the content of remote entries by id (text keyed by oid). */
export function memorySource(snapshot: RemoteSnapshot, texts: Map<string, string>): ContentSource & { requests: number } {
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]))
  const source = {
    requests: 0,
    async page(id: string) {
      source.requests++
      const oid = byId.get(id)?.oid
      const text = oid === undefined ? undefined : texts.get(oid)
      if (text === undefined) throw new Error(`no content for page ${id}`)
      return new TextEncoder().encode(text)
    },
    async file(id: string) {
      return source.page(id)
    },
  }
  return source
}
