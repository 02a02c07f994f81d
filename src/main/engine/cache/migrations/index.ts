import type { Migration } from '../../../db/migrate'
import { cacheMigration001 } from './001-initial'
import { cacheMigration002 } from './002-outbox'
import { cacheMigration003 } from './003-lease'
import { cacheMigration004 } from './004-page-bases'
import { cacheMigration005 } from './005-local-stats'
import { cacheMigration006 } from './006-change-request-diffs'
import { cacheMigration007 } from './007-search-index'

/** One file per schema version, in order. */
export const cacheMigrations: Migration[] = [cacheMigration001, cacheMigration002, cacheMigration003, cacheMigration004, cacheMigration005, cacheMigration006, cacheMigration007]
