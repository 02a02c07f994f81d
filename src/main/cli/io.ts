/** Where a command writes; tests pass their own to capture output. */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  isTTY: boolean
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  isTTY: !!process.stdout.isTTY,
}
