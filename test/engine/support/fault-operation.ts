import type { Workstation } from '../sync-up/support/workspace'

/** The two operations the fault-injection test fails at every access (see fault-scenarios.ts). */
export type ScenarioName = 'push' | 'pass'

/** The operation under test, once: what the child process runs too (so it loads no more than this). */
export async function runOperation(ws: Workstation, scenario: ScenarioName): Promise<void> {
  if (scenario === 'push') await ws.push()
  else await ws.pull()
}
