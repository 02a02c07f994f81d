/**
 * The utility process's entry (built as out/main/backend.js): runs QuireBackend, the same class
 * `quire serve` runs, and serves it to the main process over RPC (serve-backend.ts). Tokens and the
 * desktop actions are proxies back to the main process, the only place safeStorage and shell exist.
 */
import { QuireBackend } from '../../app/backend'
import { parentPortLink } from './links'
import { serveBackend } from './serve-backend'

// Started by utilityProcess.fork: the parent port exists only there.
if (process.parentPort) serveBackend(parentPortLink(process.parentPort), (options) => QuireBackend.open(options))
