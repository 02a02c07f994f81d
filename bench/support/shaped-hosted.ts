import { spawn } from 'node:child_process'
import path from 'node:path'
import readline from 'node:readline'
import { freePort, type Network } from './shaped-proxy'

const bin = path.resolve('bin/quire.mjs')

/** `quire service --hosted` on `dataDir` answering `token`, its file host on `filePort` named to clients as `fileUrl`. */
async function startHostedService(dataDir: string, token: string, filePort: number, fileUrl: string, extraArgs: readonly string[]) {
  const child = spawn(process.execPath, [bin, 'service', '--hosted', '--port', '0', '--file-port', String(filePort), '--file-url', fileUrl, '--data', dataDir, '--token', token, ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] })
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    if (!line.includes('--token puts the token')) process.stderr.write(`service: ${line}\n`)
  })
  const first = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
    readline.createInterface({ input: child.stdout }).once('line', resolve)
  })
  return { port: Number(new URL(first).port), stop: () => child.kill('SIGTERM') }
}

/**
 * The hosted profile behind the shaped network, as the network benches meet it: the file host and the
 * API each reached through a proxy of `network` (so both pay its round trips and bandwidth). Everything
 * started is pushed onto `stops`.
 */
export async function shapedHostedService(network: Network, dataDir: string, token: string, stops: Array<() => unknown>, extraArgs: readonly string[] = []) {
  const filePort = await freePort()
  const fileProxy = await network.proxy(filePort)
  stops.push(fileProxy.close)
  const service = await startHostedService(dataDir, token, filePort, fileProxy.origin, extraArgs)
  stops.push(service.stop)
  const apiProxy = await network.proxy(service.port)
  stops.push(apiProxy.close)
  return { service, fileProxy, apiProxy }
}
