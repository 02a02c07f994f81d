import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { checkTokenShape, quirePaths, registerSecret } from '../engine/basics'
import { parseRateLimit } from '../service/http/rate-limit'
import { defaultServiceDataDir, startLocalService } from '../service/local-service'
import type { CliIo } from './io'

export const serviceUsage = `quire service [--host ADDRESS] [--port N] [--data DIR] [--token-file FILE | --token T] [--demo]
              [--rate-limit N/MIN]

Runs the local documentation service (the GitBook-compatible API) until SIGINT or SIGTERM.
The first line printed is the base URL and, when the service generated it, the token it accepts; the
second names the data folder. Give the base URL to quire login --endpoint.

  --host ADDRESS     the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens it
                     to the network, token-protected but over plain HTTP)
  --port N           the TCP port (default 0: any free port, printed in the first line)
  --data DIR         the folder of the service's SQLite database (service.db): spaces, change requests,
                     comments and tokens survive a restart there. Default: $QUIRE_HOME/service when
                     QUIRE_HOME is set, else the service folder in your user data folder (the same one
                     the app's demo service uses)
  --token-file FILE  the owner's token, read from FILE (one line). It becomes the owner's only token:
                     tokens of earlier starts stop working, so a restart with a new token locks out
                     whoever had the old one (they run quire login again)
  --token T          the same, but the token shows in the process list (ps) and your shell history
  (neither)          a new token is generated and printed at each start; tokens of earlier starts keep
                     working, so clients signed in stay signed in
  --demo             on first start, fill the owner's account with the demo organization and spaces
                     (skipped when the owner already has an organization)
  --rate-limit N/MIN requests each token may make per minute, answered 429 with Retry-After beyond it
                     (default: no limit)`

/** Where the service keeps its database without --data: beside the client's cache (QUIRE_HOME or the user data folder). */
export function serviceDataFolder(): string {
  return process.env.QUIRE_HOME ? path.join(path.dirname(quirePaths().cacheFile), 'service') : defaultServiceDataDir()
}

/** The owner's token from --token-file or --token (warned about); undefined lets the service generate one. */
function givenToken(values: { token?: string; 'token-file'?: string }, io: CliIo): string | undefined {
  if (values.token !== undefined && values['token-file'] !== undefined) throw new Error('give --token or --token-file, not both')
  let token: string | undefined
  let where = '--token'
  if (values['token-file'] !== undefined) {
    where = `the token file ${values['token-file']}`
    // One line; the line break an editor or `echo` leaves is not part of the token.
    token = fs.readFileSync(values['token-file'], 'utf8').replace(/\r?\n$/, '')
  } else if (values.token !== undefined) {
    io.err('quire service: warning: --token puts the token in the process list (ps) and your shell history; use --token-file instead')
    token = values.token
  }
  if (token === undefined) return undefined
  registerSecret(token)
  try {
    checkTokenShape(token)
  } catch (error) {
    throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`)
  }
  return token
}

export async function serviceCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      data: { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      demo: { type: 'boolean', default: false },
      'rate-limit': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    io.out(serviceUsage)
    return 0
  }
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got "${values.port}"`)
  const token = givenToken(values, io)
  const dataDir = values.data ?? serviceDataFolder()
  const service = await startLocalService({
    host: values.host,
    port,
    dataDir,
    token,
    // The token given is THE owner's token: one given at an earlier start no longer opens the service.
    onlyToken: true,
    demo: values.demo,
    rateLimitPerMinute: values['rate-limit'] ? parseRateLimit(values['rate-limit']) : undefined,
    log: (line) => io.err(line),
  })
  // Listening for the signals before the first line, so whoever stops the service on seeing it stops it cleanly.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  // A token the user gave is not printed back: they have it, and output ends up in logs.
  io.out(token === undefined ? `${service.baseUrl} token=${service.token}` : service.baseUrl)
  io.out(`data: ${dataDir}`)
  await stopped
  await service.close()
  io.out('stopped')
  return 0
}
