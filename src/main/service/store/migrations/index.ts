import type { Migration } from '../../../db/migrate'
import { migration001Core } from './001-core'

/** One file per schema version, in order. */
export const serviceMigrations: Migration[] = [migration001Core]
