import { parseArgs } from 'node:util'
import { login, logout, openCache, quirePaths } from '../engine/account/account'
import type { CliIo } from './io'

export const loginUsage = `quire login --endpoint URL --token T

Checks the token with the service (GET /user) and keeps it in the OS keychain where there is one,
else in a file only you can read. The token is never printed.`

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
  if (!values.endpoint || values.token === undefined) {
    io.err(`quire login: --endpoint and --token are required\n\n${loginUsage}`)
    return 2
  }
  const paths = quirePaths()
  const cache = openCache(paths)
  try {
    const { account, where } = await login(cache, paths, { endpoint: values.endpoint, token: values.token, tokenStore: process.env.QUIRE_TOKEN_STORE })
    io.out(`signed in to ${account.endpoint} as ${account.displayName}${account.email ? ` <${account.email}>` : ''}`)
    io.out(`token kept in ${where}`)
    return 0
  } finally {
    cache.close()
  }
}

export async function logoutCommand(args: string[], io: CliIo): Promise<number> {
  parseArgs({ args, options: {}, strict: true })
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
