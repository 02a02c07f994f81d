import type { Migration } from '../../../db/migrate'
import { migration001Core } from './001-core'
import { migration002OrgAdmin } from './002-org-admin'
import { migration003Sites } from './003-sites'
import { migration004OpenApiTranslations } from './004-openapi-translations'
import { migration005Reviews } from './005-reviews'
import { migration006RevisionNodes } from './006-revision-nodes'
import { migration007RevisionNodesRowid } from './007-revision-nodes-rowid'

/** One file per schema version, in order. */
export const serviceMigrations: Migration[] = [migration001Core, migration002OrgAdmin, migration003Sites, migration004OpenApiTranslations, migration005Reviews, migration006RevisionNodes, migration007RevisionNodesRowid]
