/** Where a command writes; tests pass their own to capture output. */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  isTTY: boolean
  /**
   * A secret from standard input: typed at a prompt that does not echo on a terminal, else everything
   * piped in (one trailing line break dropped). Absent where there is no standard input to read.
   */
  readSecret?(prompt: string): Promise<string>
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  isTTY: !!process.stdout.isTTY,
  readSecret: (prompt) => (process.stdin.isTTY ? readHidden(prompt) : readPiped()),
}

async function readPiped(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

/** One line typed at the terminal with echo off (raw mode), so the secret is not shown or kept in scrollback. */
function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin
  process.stderr.write(prompt)
  stdin.setRawMode(true)
  stdin.setEncoding('utf8')
  stdin.resume()
  return new Promise((resolve, reject) => {
    let typed = ''
    const finish = (error?: Error) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write('\n')
      if (error) reject(error)
      else resolve(typed)
    }
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish()
        if (ch === '\u0003' || ch === '\u0004') return finish(new Error('cancelled'))
        typed = ch === '\u007f' || ch === '\b' ? typed.slice(0, -1) : typed + ch
      }
    }
    stdin.on('data', onData)
  })
}
