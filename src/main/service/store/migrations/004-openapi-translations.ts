import type { Migration } from '../../../db/migrate'

export const migration004OpenApiTranslations: Migration = {
  version: 4,
  name: 'openapi-translations',
  up(_db) {},
}
