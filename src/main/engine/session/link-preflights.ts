import { localLinkFindings } from '../links/local-preflight'
import type { PreflightFinding } from '../links/preflight'

/**
 * The link pre-flight of each space folder (the broken links of the writer's files, each with file and
 * line, that the service's report of the revision cannot show yet), kept while a watcher sees none of
 * the folder's files change and no pass or push ran; read afresh each time when nothing watches.
 */
export class LinkPreflights {
  private readonly kept = new Map<string, PreflightFinding[]>()

  constructor(private readonly warn: (message: string) => void) {}

  of(spaceId: string, folder: string, watched: boolean): PreflightFinding[] {
    const kept = this.kept.get(spaceId)
    if (kept && watched) return kept
    let findings: PreflightFinding[]
    try {
      findings = localLinkFindings(folder)
    } catch (error) {
      this.warn(`link pre-flight: ${error instanceof Error ? error.message : String(error)}`)
      findings = []
    }
    this.kept.set(spaceId, findings)
    return findings
  }

  /** The folder of `spaceId` (every folder when undefined) changed: its findings are read again when asked. */
  forget(spaceId?: string) {
    if (spaceId === undefined) this.kept.clear()
    else this.kept.delete(spaceId)
  }
}
