import type { Migration } from '../../../db/migrate'

export const migration002OrgAdmin: Migration = {
  version: 2,
  name: 'org-admin',
  up(_db) {},
}
