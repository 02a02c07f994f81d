import { gitBlobOid } from '../../content/markdown/blob-oid'
import { cloneTree, flattenPages } from '../../content/revision/tree'
import type { RevisionTree } from '../../content/types'
import { ChangeRequestsRepository } from '../store/change-requests'
import { CollectionsRepository } from '../store/collections'
import { CommentsRepository } from '../store/comments'
import { newId } from '../store/ids'
import { OrganizationsRepository } from '../store/organizations'
import { createSpaceRevision, RevisionsRepository } from '../store/revisions'
import type { ServiceStore } from '../store/service-store'
import { SpacesRepository } from '../store/spaces'
import { UsersRepository } from '../store/users'
import { seedOpenApiDemo } from './openapi'
import { seedOrgAdminDemo } from './org-admin'
import { seedSitesDemo } from './sites'
import { buildDemoContent, type OutlineFile, type OutlinePage } from './demo-tree'
import { apiReferenceOutline, handbookOutline } from './small-spaces'
import { userGuideFiles, userGuideOutline } from './user-guide'

/** The demo's second person: a reviewer of the writer's change requests (the app's "Sign in as the reviewer"). */
export const DEMO_REVIEWER = { displayName: 'Ada Reviewer', email: 'ada@quire.local', role: 'review' } as const

export interface DemoSeed {
  orgId: string
  spaceIds: { userGuide: string; apiReference: string; handbook: string }
  changeRequestId: string
}

const pageByTitle = (tree: RevisionTree, title: string) => {
  const page = flattenPages(tree).find((p) => p.title === title)
  if (!page) throw new Error(`demo tree has no page "${title}"`)
  return page
}

/**
 * Seeds the demo organization on first start (`quire service --demo`): two collections, three spaces
 * (one of 47 pages three levels deep with GitBook blocks, files and a few broken links), an open change
 * request, comment threads with replies from three people, a team, a SAML provider, a custom font, an
 * OpenAPI spec, and a published site with sections, a section group and customization.
 */
export function seedDemo(store: ServiceStore, ownerId: string): DemoSeed {
  return store.transaction(() => {
    const users = store.repo(UsersRepository)
    const orgs = store.repo(OrganizationsRepository)
    const ada = users.byEmail(DEMO_REVIEWER.email) ?? users.create({ displayName: DEMO_REVIEWER.displayName, email: DEMO_REVIEWER.email })
    const grace = users.byEmail('grace@quire.local') ?? users.create({ displayName: 'Grace Writer', email: 'grace@quire.local' })

    const org = orgs.create({ title: 'Quire Demo', owner: ownerId, data: { emailDomains: ['quire.local'], hostname: 'quire-demo' } })
    orgs.setMember(org.id, ada.id, DEMO_REVIEWER.role)
    orgs.setMember(org.id, grace.id, 'edit')

    const collections = store.repo(CollectionsRepository)
    const product = collections.create({ orgId: org.id, title: 'Product docs', description: 'What our users read' })
    const engineering = collections.create({ orgId: org.id, title: 'Engineering', description: 'How we build Quire' })

    const now = store.now()
    const makeSpace = (title: string, collectionId: string, emoji: string, outline: OutlinePage[], files: OutlineFile[] = []) => {
      const space = store.repo(SpacesRepository).create({ orgId: org.id, title, collectionId, data: { emoji, visibility: 'public' } })
      const content = buildDemoContent(outline, files, { newId, now })
      const revision = createSpaceRevision(store, space.id, content.tree, content.blobs, [], { createdBy: ownerId, message: 'Initial content' })
      return { space, revision }
    }
    const guide = makeSpace('User Guide', product.id, '\u{1F4D8}', userGuideOutline, userGuideFiles)
    const api = makeSpace('API Reference', product.id, '\u{1F527}', apiReferenceOutline)
    const handbook = makeSpace('Engineering Handbook', engineering.id, '\u{1F6E0}', handbookOutline)

    // An open change request by Grace that rewrites the quick start.
    const crTree = cloneTree(guide.revision.tree)
    const quickStart = pageByTitle(crTree, 'Quick start')
    const body = new TextEncoder().encode(
      '1. Sign in with your endpoint and token, or pick **Use the demo service**.\n2. Pick the spaces to sync.\n3. Open the workspace folder in your editor.\n\n{% hint style="success" %}\nThat is all: Quire syncs in the background from now on.\n{% endhint %}',
    )
    quickStart.bodyOid = gitBlobOid(body)
    quickStart.updatedAt = now
    const crRevision = store.repo(RevisionsRepository).create({
      spaceId: guide.space.id,
      parents: [guide.revision.id],
      tree: crTree,
      blobs: new Map([[quickStart.bodyOid, body]]),
      createdBy: grace.id,
      message: 'Simplify the quick start',
    })
    const cr = store.repo(ChangeRequestsRepository).create({
      spaceId: guide.space.id,
      createdBy: grace.id,
      subject: 'Simplify the quick start',
      revisionId: crRevision.id,
      baseRevisionId: guide.revision.id,
    })

    // Comment threads with replies, on a space page and on the change request.
    const comments = store.repo(CommentsRepository)
    const installation = pageByTitle(guide.revision.tree, 'Installation')
    const thread = comments.create({
      spaceId: guide.space.id,
      changeRequestId: null,
      revisionId: guide.revision.id,
      pageId: installation.id,
      body: { markdown: 'Is the Linux package still called `quire_amd64.deb`?' },
      postedBy: ada.id,
    })
    comments.createReply({ commentId: thread.id, body: { markdown: 'Yes, until the 2.0 release.' }, postedBy: grace.id })
    comments.createReply({ commentId: thread.id, body: { markdown: 'Thanks! Leaving this open until 2.0 ships.' }, postedBy: ada.id })
    const resolved = comments.create({
      spaceId: guide.space.id,
      changeRequestId: null,
      revisionId: guide.revision.id,
      pageId: pageByTitle(guide.revision.tree, 'Welcome to Quire').id,
      body: { markdown: 'The welcome figure needs alt text.' },
      postedBy: ownerId,
    })
    comments.setResolved(resolved.id, true, grace.id)
    const crThread = comments.create({
      spaceId: guide.space.id,
      changeRequestId: cr.id,
      revisionId: crRevision.id,
      pageId: quickStart.id,
      body: { markdown: 'Should we mention the token scopes here?' },
      postedBy: ada.id,
    })
    comments.createReply({ commentId: crThread.id, body: { markdown: 'Good idea, I will add a hint.' }, postedBy: grace.id })
    comments.addReactions(crThread.id, grace.id, ['\u{1F44D}'])

    seedOrgAdminDemo(store, org.id, ownerId)
    seedOpenApiDemo(store, org.id, ownerId)
    seedSitesDemo(store, org.id, ownerId, [guide.space.id, api.space.id, handbook.space.id])

    return { orgId: org.id, spaceIds: { userGuide: guide.space.id, apiReference: api.space.id, handbook: handbook.space.id }, changeRequestId: cr.id }
  })
}
