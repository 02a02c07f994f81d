import { defineConfig } from 'vitest/config'

/**
 * Files that measure this process's own CPU time or cost ratios (a stall of the service's event loop,
 * CPU per write at two space sizes, a rate limit met by timing): they run after the rest, one at a time,
 * so a test file in the other worker does not take their core. Everything else runs two files at a time
 * (the machine has 2 cores; most files spend their time waiting on child processes, loopback HTTP and
 * the file system, and the suite is written to pass with both cores busy).
 */
const MEASURED = [
  'test/service/body-validation-stall.test.ts',
  'test/service/content-document-stall.test.ts',
  'test/service/content-stall.test.ts',
  'test/service/content-write-cost.test.ts',
  'test/service/validator-offthread.test.ts',
  'test/service/small-write-space-cost.test.ts',
  'test/content/link-scanner.test.ts',
  'test/engine/gateway-transport.test.ts',
]

/** `QUIRE_TEST_WORKERS=1 npm test` runs every file one after another, as the suite once did. */
const workers = Math.max(1, Number(process.env.QUIRE_TEST_WORKERS ?? 2) || 2)

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: workers,
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: MEASURED, maxWorkers: workers, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'measured', include: MEASURED, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
})
