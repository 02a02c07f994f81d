import { parseArgs } from 'node:util'
import { login, logout, openCache, quirePaths, registerSecret } from '../engine/basics'
import type { CliIo } from './io'
import { clearRefusal } from './space-states'

export const loginUsage = `quire login --endpoint URL

Reads the access token from the QUIRE_TOKEN environment variable, else from standard input: typed at a
prompt that does not echo, or piped (\`quire login --endpoint URL < token.txt\`). Checks it with the
service (GET /user) and keeps it in the OS keychain where there is one, else in a file only you can
read. The token is never printed. \`--token T\` works too, but puts the token in the process list and
your shell history.`

export const TOKEN_ARGV_WARNING =
  'quire login: warning: --token puts the token in the process list (ps) and your shell history; set QUIRE_TOKEN or pipe it on standard input instead'

/** The token, from --token (warned about), QUIRE_TOKEN, or standard input, in that order. */
async function readToken(given: string | undefined, io: CliIo): Promise<string | undefined> {
  if (given !== undefined) {
    io.err(TOKEN_ARGV_WARNING)
    return given
  }
  const fromEnv = process.env.QUIRE_TOKEN
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv
  return io.readSecret?.('Access token (not shown): ')
}

export async function loginCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { endpoint: { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (values.help) {
    io.out(loginUsage)
    return 0
  }
  if (!values.endpoint) {
    io.err(`quire login: --endpoint is required\n\n${loginUsage}`)
    return 2
  }
  const token = await readToken(values.token, io)
  if (token === undefined || token.trim() === '') {
    io.err('quire login: no token: set QUIRE_TOKEN or pass it on standard input')
    return 2
  }
  // Known before anything can fail, so no error text can carry it.
  registerSecret(token)
  registerSecret(token.trim())
  const paths = quirePaths()
  const cache = openCache(paths)
  try {
    const { account, where } = await login(cache, paths, { endpoint: values.endpoint, token, tokenStore: process.env.QUIRE_TOKEN_STORE })
    // The service just accepted this token: `quire status` must stop saying signed out before the next sync.
    clearRefusal(cache, account)
    io.out(`signed in to ${account.endpoint} as ${account.displayName}${account.email ? ` <${account.email}>` : ''}`)
    io.out(`token kept in ${where}`)
    return 0
  } finally {
    cache.close()
  }
}

export const logoutUsage = `quire logout

Signs out: removes the stored token (keychain or file). Your synced folders and the local cache stay;
quire login signs in again.`

export async function logoutCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, strict: true })
  if (values.help) {
    io.out(logoutUsage)
    return 0
  }
  const paths = quirePaths()
  const cache = openCache(paths)
  try {
    const account = await logout(cache, paths)
    io.out(account ? `signed out of ${account.endpoint} (${account.displayName}); the token is removed, your folders stay` : 'not signed in')
    return 0
  } finally {
    cache.close()
  }
}
