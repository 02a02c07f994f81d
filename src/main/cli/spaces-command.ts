import { parseArgs } from 'node:util'
import { describeState, type SpaceSyncState } from '../../shared/space-state'
import { quirePaths, ServiceUnreachableError, signedIn, SyncEngine, WorkspaceStore, type AccountRow, type CacheRepository, type SpaceRow } from '../engine'
import type { CliIo } from './io'
import { SIGN_IN_HINT, clearRefusal, refusedToken, signedOutReason, spaceStateReader } from './space-states'

export const spacesUsage = `quire spaces [--refresh] [--json]

The spaces the signed-in account can see, by organization: each space's id (what quire sync --space ID
takes), its title, whether it is selected (chosen by itself, or through its organization or collection),
and for a selected space its state, the same as quire status shows (in sync, syncing, N local changes
waiting, conflict, offline, error, paused, signed out).
Read from the local cache, listed from the service first with --refresh (or when nothing was listed yet);
offline, the last list is shown. Exits 1 when no account is signed in or the service refused the saved
token (run quire login), else 0.`

/** How a space came to be selected: by itself, or as part of a selected organization or collection. */
type SelectedBy = 'space' | 'organization' | 'collection'

interface ListedSpace {
  id: string
  title: string
  selected: boolean
  selectedBy?: SelectedBy
  state?: SpaceSyncState
}

export async function spacesCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { refresh: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (values.help) {
    io.out(spacesUsage)
    return 0
  }
  const store = WorkspaceStore.open(quirePaths())
  const { cache } = store
  try {
    const account = cache.activeAccount()
    if (!account) {
      io.err('quire spaces: not signed in: run quire login --endpoint URL')
      return 1
    }
    if (values.refresh || cache.organizations(account.id).length === 0) {
      const listed = await listFromService(store, account)
      if (listed.refused) {
        io.err(`quire spaces: ${listed.refused}`)
        return 1
      }
      if (listed.offline) io.err(`quire spaces: offline (${listed.offline}); the spaces as last listed:`)
    }
    const organizations = listOrganizations(cache, account, spaceStateReader(cache, store.outbox, account))
    const signedOut = signedOutReason(cache, account)
    if (values.json) {
      const who = { endpoint: account.endpoint, user: account.displayName }
      io.out(JSON.stringify({ account: who, signedOut: signedOut ? { reason: signedOut, hint: SIGN_IN_HINT } : null, organizations }, null, 2))
    } else {
      printOrganizations(io, organizations)
      if (signedOut) io.err(`quire spaces: ${signedOut}: ${SIGN_IN_HINT}`)
    }
    return signedOut ? 1 : 0
  } finally {
    store.close()
  }
}

/** Lists every organization, collection and space the account sees into the cache (what `sync --all` lists). */
async function listFromService(store: WorkspaceStore, account: AccountRow): Promise<{ refused?: string; offline?: string }> {
  const { cache } = store
  const { gateway } = await signedIn(cache, quirePaths())
  try {
    await new SyncEngine({ cache, account, gateway, workspace: store.folder() }).discover()
    // The service just answered with the token: a refusal noted before no longer stands.
    clearRefusal(cache, account)
    return {}
  } catch (error) {
    if (error instanceof ServiceUnreachableError) return { offline: error.message }
    const refused = refusedToken(cache, account, error)
    if (refused) return { refused }
    throw error
  } finally {
    await gateway.idle()
  }
}

function listOrganizations(cache: CacheRepository, account: AccountRow, stateOf: (spaceId: string) => SpaceSyncState) {
  const selected = new Set(cache.selectedSpaces().map((s) => s.id))
  return cache.organizations(account.id).map((org) => ({
    id: org.id,
    title: org.title,
    selected: org.selected,
    spaces: cache.spaces(org.id).map((space): ListedSpace => {
      if (!selected.has(space.id)) return { id: space.id, title: space.title, selected: false }
      return { id: space.id, title: space.title, selected: true, selectedBy: selectedBy(space, org.selected), state: stateOf(space.id) }
    }),
  }))
}

function selectedBy(space: SpaceRow, orgSelected: boolean): SelectedBy {
  if (space.selected) return 'space'
  return orgSelected ? 'organization' : 'collection'
}

function printOrganizations(io: CliIo, organizations: ReturnType<typeof listOrganizations>) {
  if (organizations.length === 0) io.out('no organizations: the account sees no spaces yet')
  for (const org of organizations) {
    io.out(`${org.title} (organization ${org.id}${org.selected ? ', selected with every space in it' : ''})`)
    if (org.spaces.length === 0) io.out('  no spaces')
    const idWidth = Math.max(0, ...org.spaces.map((s) => s.id.length))
    const titleWidth = Math.max(0, ...org.spaces.map((s) => s.title.length))
    for (const space of org.spaces) {
      const selection = !space.selected ? 'not selected' : space.selectedBy === 'space' ? 'selected' : `selected (${space.selectedBy})`
      const state = space.state ? `  ${describeState(space.state)}` : ''
      io.out(`  ${space.id.padEnd(idWidth)}  ${space.title.padEnd(titleWidth)}  ${selection}${state}`)
    }
  }
  if (organizations.length > 0 && !organizations.some((o) => o.spaces.some((s) => s.selected))) {
    io.out('nothing selected: choose with quire sync --space ID (or --org ID, --collection ID, --all)')
  }
}
