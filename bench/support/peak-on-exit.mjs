// Preloaded (--import) into a benchmark's child process: reports the process's peak resident set
// (VmHWM) on stderr as it exits, read by the process itself so none of it is missed; with BENCH_SAMPLE_MS,
// its memory use as it goes and, at its highest sample, the resident memory by mapping.
import fs from 'node:fs'

const every = Number(process.env.BENCH_SAMPLE_MS || 0)
const started = Date.now()
if (every > 0) setInterval(() => {
  const m = process.memoryUsage()
  const f = (n) => (n / 1048576).toFixed(0)
  const threads = /^Threads:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))
  process.stderr.write('BENCH_MEM t=' + ((Date.now() - started) / 1000).toFixed(1) + 's threads=' + (threads ? threads[1] : '?') + ' rss=' + f(m.rss) + ' heap=' + f(m.heapUsed) + '/' + f(m.heapTotal) + ' external=' + f(m.external) + ' buffers=' + f(m.arrayBuffers) + '\n')
}, every).unref()
// The resident memory by kind of mapping (file, heap, anonymous, thread stacks), at the highest sample.
let highest = 0
let breakdown = ''
function mappings() {
  const kinds = {}
  let name = ''
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head) name = head[1].startsWith('/') ? (head[1].includes('node_modules') ? 'addon:' + head[1].split('/').pop() : head[1].endsWith('.db') || head[1].includes('-shm') ? 'sqlite file' : 'file:' + head[1].split('/').pop()) : head[1] || 'anon'
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss) kinds[name] = (kinds[name] || 0) + Number(rss[1])
  }
  return Object.entries(kinds).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => k + '=' + (v / 1024).toFixed(0)).join(' ')
}
if (every > 0) setInterval(() => {
  const rss = process.memoryUsage.rss()
  if (rss > highest) {
    highest = rss
    breakdown = mappings()
  }
}, every).unref()
process.on('exit', () => {
  if (breakdown) process.stderr.write('BENCH_MAPPINGS at ' + (highest / 1048576).toFixed(0) + ' MB: ' + breakdown + '\n')
  const hwm = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))
  process.stderr.write('BENCH_PEAK_KB ' + (hwm ? hwm[1] : 0) + '\n')
})
