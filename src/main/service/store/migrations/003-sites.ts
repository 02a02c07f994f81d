import type { Migration } from '../../../db/migrate'

export const migration003Sites: Migration = {
  version: 3,
  name: 'sites',
  up(_db) {},
}
