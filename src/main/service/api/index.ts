import type { Route } from '../http/context'
import { organizationRoutes } from './organizations'
import { collectionRoutes } from './collections'
import { spaceRoutes } from './spaces'
import { spacePermissionRoutes } from './space-permissions'
import { contentRoutes } from './content'
import { revisionChangesRoutes } from './revision-changes'
import { changeRequestRoutes } from './change-requests'
import { changeRequestReviewRoutes } from './change-request-reviews'
import { linkRoutes } from './links'
import { searchRoutes } from './search'
import { commentRoutes } from './comments'
import { inviteRoutes } from './invites'
import { teamRoutes } from './teams'
import { ssoRoutes } from './sso'
import { agentInstructionRoutes } from './agent-instructions'
import { fontRoutes } from './fonts'
import { siteRoutes } from './sites'
import { siteSectionRoutes } from './site-sections'
import { siteSpaceRoutes } from './site-spaces'
import { siteCustomizationRoutes } from './site-customization'
import { openApiSpecRoutes } from './openapi-specs'
import { translationRoutes } from './translations'
import { userRoutes } from './users'
import { gitSyncRoutes } from './git-sync'

/** Every operation the local service implements, by family. */
export const allRoutes: Route[] = [
  ...userRoutes,
  ...organizationRoutes,
  ...collectionRoutes,
  ...spaceRoutes,
  ...spacePermissionRoutes,
  ...contentRoutes,
  ...revisionChangesRoutes,
  ...changeRequestRoutes,
  ...changeRequestReviewRoutes,
  ...linkRoutes,
  ...searchRoutes,
  ...commentRoutes,
  ...inviteRoutes,
  ...teamRoutes,
  ...ssoRoutes,
  ...agentInstructionRoutes,
  ...fontRoutes,
  ...siteRoutes,
  ...siteSectionRoutes,
  ...siteSpaceRoutes,
  ...siteCustomizationRoutes,
  ...openApiSpecRoutes,
  ...translationRoutes,
  ...gitSyncRoutes,
]
