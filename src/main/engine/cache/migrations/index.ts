import type { Migration } from '../../../db/migrate'
import { cacheMigration001 } from './001-initial'

/** One file per schema version, in order. */
export const cacheMigrations: Migration[] = [cacheMigration001]
