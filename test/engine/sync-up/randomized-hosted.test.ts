/**
 * The randomized sequences of randomized.test.ts against the hosted profile of the service (issue 26):
 * trees without page markdown (every page read one by one), file bytes from a file host of their own,
 * the rate limit's headers and 429s. A few sequences (QUIRE_FUZZ_HOSTED_SEQUENCES, default 3) from their
 * own seed window, so CI pays for them once; the 200 of the friendly profile run in randomized.test.ts.
 */
import { afterAll } from 'vitest'

const before = { profile: process.env.QUIRE_TEST_PROFILE, sequences: process.env.QUIRE_FUZZ_SEQUENCES, seed: process.env.QUIRE_FUZZ_SEED }
process.env.QUIRE_TEST_PROFILE = 'hosted'
process.env.QUIRE_FUZZ_SEQUENCES = process.env.QUIRE_FUZZ_HOSTED_SEQUENCES ?? '3'
process.env.QUIRE_FUZZ_SEED ??= '26000'
afterAll(() => {
  for (const [name, value] of [['QUIRE_TEST_PROFILE', before.profile], ['QUIRE_FUZZ_SEQUENCES', before.sequences], ['QUIRE_FUZZ_SEED', before.seed]] as const) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

// Imported after the variables are set: the sequences read them when their module loads.
await import('./randomized.test')
