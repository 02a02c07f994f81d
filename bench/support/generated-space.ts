/**
 * A generated manual (pages nested five levels deep with GitBook blocks, links between pages and to
 * files, and files), written into a service's store before the service starts. Deterministic: every
 * run of a benchmark mirrors the same space.
 */
import path from 'node:path'
import type { BodyLinks, OutlineFile, OutlinePage } from '../../src/main/service/demo/demo-tree'

/** Small deterministic generator. */
export function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] }
}

type Random = ReturnType<typeof prng>

const AREAS = ['Accounts', 'Billing', 'Workspaces', 'Permissions', 'Webhooks', 'Exports', 'Imports', 'Search', 'Themes', 'Integrations', 'Analytics', 'Security', 'Deployments', 'Storage', 'Notifications', 'Reports']
const TOPICS = ['overview', 'setup', 'configuration', 'limits', 'troubleshooting', 'migration guide', 'best practices', 'reference', 'examples', 'FAQ', 'retries', 'auditing', 'quotas', 'scheduling', 'templates', 'roles']
const WORDS = 'the service keeps every change in a revision so a writer can review it before it reaches readers and each space holds pages files and the links between them while the sync engine mirrors them into plain markdown'.split(' ')

export type FileKind = 'png' | 'svg' | 'pdf'

export interface SpaceShape {
  pages: number
  files: number
  /** Bytes of a file of that kind. */
  fileSize: (rnd: Random, kind: FileKind) => number
  title?: string
  /** How deep pages nest (5 unless given; 20,000 pages need 6). */
  depth?: number
}

/** Mostly screenshots of tens of kilobytes, a few large diagrams (bench:mirror's 200 files). */
export const screenshotSizes: SpaceShape['fileSize'] = (rnd, kind) => (kind === 'svg' ? rnd.int(2_000, 12_000) : rnd.next() < 0.1 ? rnd.int(200_000, 600_000) : rnd.int(8_000, 80_000))

function generateFiles(rnd: Random, shape: SpaceShape): OutlineFile[] {
  return Array.from({ length: shape.files }, (_, i) => {
    const kind: FileKind = i % 10 === 9 ? 'pdf' : i % 5 === 4 ? 'svg' : 'png'
    const size = shape.fileSize(rnd, kind)
    const bytes = new Uint8Array(size)
    // Four bytes a draw: random enough not to compress, fast enough for tens of megabytes.
    for (let b = 0; b < size; b += 4) {
      const word = (rnd.next() * 4294967296) >>> 0
      for (let k = 0; k < 4 && b + k < size; k++) bytes[b + k] = (word >>> (k * 8)) & 0xff
    }
    if (kind === 'png') bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].slice(0, size))
    const name = kind === 'png' ? (i % 3 === 0 ? `image (${i}).png` : `screenshot-${i}.png`) : kind === 'svg' ? `diagram-${i}.svg` : `handout-${i}.pdf`
    return { name, contentType: kind === 'png' ? 'image/png' : kind === 'svg' ? 'image/svg+xml' : 'application/pdf', bytes }
  })
}

function generateOutline(rnd: Random, shape: SpaceShape, files: OutlineFile[]): OutlinePage[] {
  const titles: string[] = []
  const sentence = () => {
    const n = rnd.int(8, 22)
    const words = Array.from({ length: n }, () => rnd.pick(WORDS))
    return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`
  }
  const paragraph = () => Array.from({ length: rnd.int(2, 6) }, sentence).join(' ')
  const body = (title: string, children: string[]) => (l: BodyLinks) => {
    const blocks = [`This page covers **${title}**. ${paragraph()}`]
    for (let i = rnd.int(2, 7); i > 0; i--) {
      const choice = rnd.int(0, 8)
      if (choice === 0) blocks.push(`{% hint style="${rnd.pick(['info', 'warning', 'danger', 'success'])}" %}\n${sentence()}\n{% endhint %}`)
      else if (choice === 1) blocks.push(`{% tabs %}\n{% tab title="macOS" %}\n${sentence()}\n{% endtab %}\n\n{% tab title="Linux" %}\n\`\`\`bash\nquire sync --once --space ${rnd.int(1, 99)}\n\`\`\`\n{% endtab %}\n{% endtabs %}`)
      else if (choice === 2) blocks.push(`{% code title="config-${rnd.int(1, 50)}.yaml" %}\n\`\`\`yaml\nworkspace: ~/Quire\ninterval: ${rnd.int(10, 300)}\nspaces:\n  - id: space-${rnd.int(1, 99)}\n\`\`\`\n{% endcode %}`)
      else if (choice === 3) blocks.push(`| Setting | Default | Notes |\n| --- | --- | --- |\n${Array.from({ length: rnd.int(2, 6) }, () => `| \`${rnd.pick(WORDS)}\` | ${rnd.int(0, 500)} | ${sentence()} |`).join('\n')}`)
      else if (choice === 4) {
        const target = l.page(children.length > 0 && rnd.next() < 0.5 ? rnd.pick(children) : rnd.pick(titles))
        blocks.push(`{% content-ref url="${target}" %}\n[${target.replace(/^<|>$/g, '')}](${target})\n{% endcontent-ref %}`)
      } else if (choice === 5 && files.length > 0) {
        const src = l.asset(rnd.pick(files).name).replace(/^<|>$/g, '')
        blocks.push(`<figure><img src="${src}" alt=""><figcaption><p>${sentence()}</p></figcaption></figure>`)
      } else if (choice === 6) blocks.push(Array.from({ length: rnd.int(2, 5) }, () => `* [${rnd.pick(TOPICS)}](${l.page(rnd.pick(titles))})`).join('\n'))
      else blocks.push(`## ${rnd.pick(TOPICS).replace(/^./, (c) => c.toUpperCase())}\n\n${paragraph()}`)
    }
    return blocks.join('\n\n')
  }

  // Breadth first, 2 to 9 children a page, so the top levels are full and the deepest partly so.
  const roots: OutlinePage[] = []
  const queue: Array<{ page: OutlinePage; depth: number; label: string }> = []
  let made = 0
  const makePage = (label: string): OutlinePage => {
    const title = `${rnd.pick(AREAS)} ${rnd.pick(TOPICS)} ${label}`
    titles.push(title)
    made++
    const page: OutlinePage = { title, body: () => '', children: [] }
    if (rnd.next() < 0.2) page.description = sentence()
    if (rnd.next() < 0.05) page.hidden = true
    return page
  }
  for (let i = 1; i <= 12 && made < shape.pages; i++) {
    const page = makePage(`${i}`)
    roots.push(page)
    queue.push({ page, depth: 1, label: `${i}` })
  }
  while (made < shape.pages) {
    const parent = queue.shift()
    if (!parent) throw new Error('the outline ran out of places for pages')
    if (parent.depth >= (shape.depth ?? 5)) continue
    for (let c = 1, n = rnd.int(2, 9); c <= n && made < shape.pages; c++) {
      const label = `${parent.label}.${c}`
      const child = makePage(label)
      parent.page.children!.push(child)
      queue.push({ page: child, depth: parent.depth + 1, label })
    }
  }
  const attach = (list: OutlinePage[]) => {
    for (const page of list) {
      page.body = body(page.title, (page.children ?? []).map((c) => c.title))
      attach(page.children ?? [])
    }
  }
  attach(roots)
  return roots
}

export interface SeededSpace {
  orgId: string
  spaceId: string
  fileBytes: number
}

/** Writes an owner with `token`, an organization and one generated space into the store at `dataDir`. */
export async function seedSpace(dataDir: string, token: string, shape: SpaceShape): Promise<SeededSpace> {
  const { orgId, spaceIds, fileBytes } = await seedGenerated(dataDir, token, shape, [{ seed: 20_26, title: shape.title ?? 'Large Manual' }])
  return { orgId, spaceId: spaceIds[0], fileBytes }
}

/**
 * `count` generated spaces of one shape in one organization, with an owner answering `token`
 * (bench:network -- spaces: a first sync of many spaces). Each space draws from its own seed.
 */
export async function seedSpaces(dataDir: string, token: string, count: number, shape: SpaceShape): Promise<{ orgId: string; spaceIds: string[]; fileBytes: number }> {
  const spaces = Array.from({ length: count }, (_, s) => ({ seed: 20_26 + s, title: `${shape.title ?? 'Manual'} ${String(s).padStart(3, '0')}` }))
  return seedGenerated(dataDir, token, shape, spaces)
}

/** The owner, the organization and each space (drawn from its seed) in one transaction of the service's store. */
async function seedGenerated(dataDir: string, token: string, shape: SpaceShape, spaces: ReadonlyArray<{ seed: number; title: string }>): Promise<{ orgId: string; spaceIds: string[]; fileBytes: number }> {
  const { openServiceDatabase } = await import('../../src/main/service/store/database')
  const { ServiceStore } = await import('../../src/main/service/store/service-store')
  const { UsersRepository } = await import('../../src/main/service/store/users')
  const { OrganizationsRepository } = await import('../../src/main/service/store/organizations')
  const { SpacesRepository } = await import('../../src/main/service/store/spaces')
  const { createSpaceRevision } = await import('../../src/main/service/store/revisions')
  const { newId } = await import('../../src/main/service/store/ids')
  const { buildDemoContent } = await import('../../src/main/service/demo/demo-tree')

  const store = new ServiceStore(openServiceDatabase(path.join(dataDir, 'service.db')))
  try {
    return store.transaction(() => {
      const users = store.repo(UsersRepository)
      const owner = users.create({ displayName: 'Bench Owner', email: 'owner@bench.local' })
      users.issueToken(owner.id, token)
      const org = store.repo(OrganizationsRepository).create({ title: 'Bench', owner: owner.id })
      const spaceIds: string[] = []
      let fileBytes = 0
      for (const { seed, title } of spaces) {
        const rnd = prng(seed)
        const files = generateFiles(rnd, shape)
        const roots = generateOutline(rnd, shape, files)
        const space = store.repo(SpacesRepository).create({ orgId: org.id, title })
        const content = buildDemoContent(roots, files, { newId, now: store.now() })
        createSpaceRevision(store, space.id, content.tree, content.blobs, [], { createdBy: owner.id, message: 'Generated' })
        spaceIds.push(space.id)
        fileBytes += files.reduce((n, f) => n + f.bytes.byteLength, 0)
      }
      return { orgId: org.id, spaceIds, fileBytes }
    })
  } finally {
    store.close()
  }
}
