// Preloaded into `quire` by test/cli/node-flags.test.ts: prints the flags node was started with.
process.on('exit', () => process.stderr.write(`exec-argv=${JSON.stringify(process.execArgv)}\n`))
