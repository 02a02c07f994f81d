/**
 * For crash tests: a fetch that announces every HTTP answer on stdout (`answer <n> <method> <path>`)
 * BEFORE the engine sees it, so the parent can SIGKILL the process between "the service did it" and
 * "Quire wrote down that it did".
 */
export function announcingFetch(): typeof fetch {
  let answers = 0
  return async (input, init) => {
    const response = await fetch(input, init)
    answers++
    process.stdout.write(`answer ${answers} ${init?.method ?? 'GET'} ${String(input instanceof Request ? input.url : input).replace(/^https?:\/\/[^/]+/, '')}\n`)
    return response
  }
}
