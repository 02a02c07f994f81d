/**
 * A writer's Quire as its own process, for the kill mode of the fault-injection test: it loads the
 * engine, says `ready`, then reads one line of JSON ({scenario, remote, seeded, dir, at}) from stdin,
 * runs the scenario's operation once with the workspace and the cache database armed, and SIGKILLs
 * itself at access `at` (printing `killed <n> <what>` first). Loading before the order comes lets the
 * parent start the next child while it checks the last one.
 *
 * Prints `done <count>` when the operation ends before access `at`.
 */
import readline from 'node:readline'
import { Workstation, type Remote, type SeededSpace } from '../sync-up/support/workspace'
import { arm, disarm, installFaultInjection } from './fault-injection'
import { runOperation, type ScenarioName } from './fault-operation'

interface Order {
  scenario: ScenarioName
  remote: Remote
  seeded: SeededSpace
  dir: string
  at: number
}

installFaultInjection()
const lines = readline.createInterface({ input: process.stdin })
process.stdout.write('ready\n')
const order = await new Promise<Order>((resolve) => lines.once('line', (line) => resolve(JSON.parse(line) as Order)))
lines.close()

const ws = new Workstation(order.remote, order.seeded, order.dir)
try {
  arm({ root: order.dir, mode: 'kill', at: order.at })
  await runOperation(ws, order.scenario)
  process.stdout.write(`done ${disarm().count}\n`)
} finally {
  ws.close()
}
