import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { checkTokenShape, quirePaths, registerSecret } from '../engine/basics'
import { parseRateLimit } from '../service/http/rate-limit'
import { DEFAULT_MEMBER_ROLE, parseRole } from '../service/access/members'
import { addServiceMember, defaultServiceDataDir, startLocalService } from '../service/local-service'
import type { CliIo } from './io'

export const serviceUsage = `quire service [--host ADDRESS] [--port N] [--data DIR] [--token-file FILE | --token T] [--demo]
              [--rate-limit N/MIN | N/SEC] [--hosted [--file-port N] [--file-url URL]] [--latency MS]
quire service --add-user NAME [--role ROLE] [--data DIR]

Runs the local documentation service (the GitBook-compatible API) until SIGINT or SIGTERM.
The first line printed is the base URL and, when the service generated it, the token it accepts; the
second names the data folder. Give the base URL to quire login --endpoint. The start that fills the
demo (--demo) also prints a line with a token for its reviewer, Ada Reviewer, so one person can
sign in as the writer and as the reviewer.
With --add-user, adds NAME as a member of every organization of the service's owner and prints their
token, then exits: the service (running or not) accepts it at once. The token is shown this once (the
service keeps only its hash); adding the same NAME again gives them another one.

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
  --rate-limit N/MIN requests each token may make per minute (or N/SEC: per second), answered 429 with
                     Retry-After beyond it (default: no limit; 100/SEC with --hosted)
  --hosted           behave as the hosted service does: revision trees carry no page markdown (a
                     client reads pages one by one), file bytes come from a file host on a port of
                     its own (printed on a line "files: URL"), a rate limit with X-RateLimit-* headers.
                     Without it the service is friendlier: trees carry every page's markdown
  --file-port N      the file host's TCP port with --hosted (default 0: any free port)
  --file-url URL     the file host's address as clients reach it (a proxy or CDN in front of it):
                     download URLs name it (default the file host's own address)
  --latency MS       every request waits MS milliseconds before it is answered (a slow network)
  --add-user NAME    add a member (a display name: "Ada Reviewer"; the same name again is the same person)
  --role ROLE        their role in each organization: admin, create, review, edit, comment or read
                     (default ${DEFAULT_MEMBER_ROLE}: they can review and merge change requests)`

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
      host: { type: 'string' },
      port: { type: 'string' },
      data: { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      demo: { type: 'boolean' },
      'rate-limit': { type: 'string' },
      hosted: { type: 'boolean' },
      'file-port': { type: 'string' },
      'file-url': { type: 'string' },
      latency: { type: 'string' },
      'add-user': { type: 'string' },
      role: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    io.out(serviceUsage)
    return 0
  }
  if (values['add-user'] !== undefined) return addUser(values, io)
  if (values.role !== undefined) throw new Error('--role goes with --add-user NAME')
  const port = Number(values.port ?? '0')
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got "${values.port}"`)
  const fileHostPort = Number(values['file-port'] ?? '0')
  if (!Number.isInteger(fileHostPort) || fileHostPort < 0 || fileHostPort > 65535) throw new Error(`--file-port must be 0..65535, got "${values['file-port']}"`)
  for (const option of ['file-port', 'file-url'] as const) if (values[option] !== undefined && !values.hosted) throw new Error(`--${option} goes with --hosted (the friendly profile serves files from its own port)`)
  if (values['file-url'] !== undefined && !/^https?:\/\/[^/]+\/?$/.test(values['file-url'])) throw new Error(`--file-url must be an origin such as http://127.0.0.1:8081, got "${values['file-url']}"`)
  const latencyMs = Number(values.latency ?? '0')
  if (!Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > 60_000) throw new Error(`--latency must be 0..60000 milliseconds, got "${values.latency}"`)
  const rateLimit = values['rate-limit'] ? parseRateLimit(values['rate-limit']) : undefined
  const token = givenToken(values, io)
  const dataDir = values.data ?? serviceDataFolder()
  const service = await startLocalService({
    host: values.host ?? '127.0.0.1',
    port,
    dataDir,
    token,
    // The token given is THE owner's token: one given at an earlier start no longer opens the service.
    onlyToken: true,
    demo: values.demo ?? false,
    rateLimitPerMinute: rateLimit?.requests,
    rateLimitWindowMs: rateLimit?.windowMs,
    profile: values.hosted ? 'hosted' : 'friendly',
    fileHostPort,
    fileHostUrl: values['file-url'],
    latencyMs,
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
  if (service.fileOrigin) io.out(`files: ${service.fileOrigin}`)
  const reviewer = service.demoReviewer
  if (reviewer) io.out(`reviewer: ${reviewer.displayName} (${reviewer.email}, ${reviewer.role}) token=${reviewer.token}`)
  await stopped
  await service.close()
  io.out('stopped')
  return 0
}

/** `--add-user NAME [--role ROLE]`: the member added in the data folder's service, their token printed once. */
function addUser(values: { 'add-user'?: string; role?: string; data?: string } & Record<string, unknown>, io: CliIo): number {
  const serving = ['host', 'port', 'token', 'token-file', 'demo', 'rate-limit', 'hosted', 'file-port', 'file-url', 'latency'].filter((name) => values[name] !== undefined)
  if (serving.length > 0) throw new Error(`--add-user adds a member and exits: it takes --role and --data, not ${serving.map((name) => `--${name}`).join(', ')}`)
  const member = addServiceMember({ dataDir: values.data ?? serviceDataFolder(), name: values['add-user']!, role: values.role === undefined ? DEFAULT_MEMBER_ROLE : parseRole(values.role) })
  registerSecret(member.token)
  const where = member.organizations.map((org) => org.title).join(', ')
  io.out(`${member.created ? 'added' : 'a new token for'} ${member.displayName} (${member.email}, user ${member.id}): ${member.role} in ${where}`)
  io.out(`token=${member.token}`)
  io.err('quire service: the token is shown this once (the service keeps only its hash); give it to quire login --endpoint URL')
  return 0
}
