import { OrganizationsRepository } from '../store/organizations'
import type { ServiceStore } from '../store/service-store'

/** Seeds the demo organization on first start (`quire service --demo`). */
export function seedDemo(store: ServiceStore, ownerId: string) {
  store.transaction(() => {
    store.repo(OrganizationsRepository).create({ title: 'Quire Demo', owner: ownerId, data: { emailDomains: ['quire.local'] } })
  })
}
