/**
 * The V8 flags every process that syncs starts with: the CLI (`bin/quire.mjs`'s first line says them again,
 * as `env -S` and npm's Windows shim read it; test/cli/node-flags.test.ts keeps the two equal), the desktop
 * app's backend process, and the benches' children that stand for them.
 *
 * `--max-semi-space-size=4`: a mirror makes thousands of short-lived objects per second (a response, its
 * body, a plan step per file). V8's default young generation grows to 3 x 16 MB and its pages stay mapped,
 * which was most of what a sync process held above the floor: `bench:mirror` peaked at 164-176 MB with the
 * default and 133-136 MB with this, `bench:big-space` at 218 and 193 MB, at the same speed within the
 * machine's noise. It cannot be set once the process runs (V8 sizes the heap when it starts).
 *
 * `--heap-growing-percent=100`: after each full collection V8 lets the old generation grow to twice what
 * survived. Left to itself it picks up to four times while the process is busy, and a mirror is always
 * busy: the responses that outlive a young collection piled up as garbage until the heap held 90-100 MB
 * for 30 MB alive. `bench:big-space`'s client peaked at 186-197 MB with V8's choice and at 151-157 MB with
 * a fixed factor of 1.2 to 2.5 (all alike), at the same CPU within the machine's noise.
 */
export const SYNC_PROCESS_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=100']
