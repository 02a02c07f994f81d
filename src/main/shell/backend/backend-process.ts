/**
 * The utility process's entry (built as out/main/backend.js): runs QuireBackend, the same class
 * `quire serve` runs, and serves it to the main process over RPC (serve-backend.ts). Tokens and the
 * desktop actions are proxies back to the main process, the only place safeStorage and shell exist.
 */
import { fileURLToPath } from 'node:url'
import { QuireBackend } from '../../app/backend'
import { useLinkWorkerScript } from '../../service/link-workers/pool'
import { parentPortLink } from './links'
import { serveBackend } from './serve-backend'

// The embedded demo service's link workers: built beside this file as link-worker.js (electron.vite.config.ts).
useLinkWorkerScript(fileURLToPath(new URL('./link-worker.js', import.meta.url)))

// Started by utilityProcess.fork: the parent port exists only there.
if (process.parentPort) serveBackend(parentPortLink(process.parentPort), (options) => QuireBackend.open(options))
