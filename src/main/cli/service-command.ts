import { parseArgs } from 'node:util'
import { parseRateLimit } from '../service/http/rate-limit'
import { defaultServiceDataDir, startLocalService } from '../service/local-service'
import type { CliIo } from './io'

export const serviceUsage = `quire service [--host 127.0.0.1] [--port N] [--data DIR] [--token T] [--demo] [--rate-limit N/MIN]

Runs the local documentation service (the GitBook-compatible API) until SIGINT or SIGTERM.
The first line printed is the base URL and the token it accepts.`

export async function serviceCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      data: { type: 'string' },
      token: { type: 'string' },
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
  const service = await startLocalService({
    host: values.host,
    port,
    dataDir: values.data ?? defaultServiceDataDir(),
    token: values.token,
    demo: values.demo,
    rateLimitPerMinute: values['rate-limit'] ? parseRateLimit(values['rate-limit']) : undefined,
    log: (line) => io.err(line),
  })
  io.out(`${service.baseUrl} token=${service.token}`)
  io.out(`data: ${values.data ?? defaultServiceDataDir()}`)
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await service.close()
  io.out('stopped')
  return 0
}
