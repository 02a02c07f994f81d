import { OrganizationsRepository } from '../store/organizations'
import type { ServiceStore } from '../store/service-store'
import { UsersRepository } from '../store/users'
import { isRole, ROLES, type Role } from './roles'

/** Someone made a member of the owner's organizations, with the one token they get (shown once: only its hash is kept). */
export interface AddedMember {
  id: string
  displayName: string
  email: string
  role: Role
  token: string
  organizations: Array<{ id: string; title: string }>
  /** False when a user of that name was there already: their role is set again and they get another token. */
  created: boolean
}

/** A name or role no member can have, or a service with nothing to add them to: said as it is. */
export class MemberInputError extends Error {}

const MAX_NAME = 100

/** The role a member is added with when none is named: they can review and merge, what a second person on the demo does. */
export const DEFAULT_MEMBER_ROLE: Role = 'review'

export function parseRole(text: string): Role {
  if (!isRole(text)) throw new MemberInputError(`--role must be one of ${ROLES.join(', ')}, got "${text}"`)
  return text
}

/**
 * Makes NAME a member of every organization the owner administers, with `role`, and issues them a new
 * token. NAME is a display name; a user of that name already there (any case) is the same person, so
 * asking again gives them another token (the earlier ones keep working) rather than a second account.
 * A new user's email is made from the name, at quire.local (the demo's domain).
 */
export function addMember(store: ServiceStore, ownerId: string, input: { name: string; role: Role }): AddedMember {
  const name = input.name.trim()
  if (name === '' || name.length > MAX_NAME || /\p{Cc}/u.test(name)) throw new MemberInputError(`the name must be 1 to ${MAX_NAME} characters on one line, got "${input.name.slice(0, MAX_NAME)}"`)
  const users = store.repo(UsersRepository)
  const orgs = store.repo(OrganizationsRepository)
  return store.transaction(() => {
    const owned = orgs.forUser(ownerId).filter((org) => orgs.member(org.id, ownerId)?.role === 'admin')
    if (owned.length === 0) throw new MemberInputError('the owner has no organization to add anyone to yet: start the service with --demo first (or create one through the API)')
    const existing = users.named(name)
    if (existing?.id === ownerId) throw new MemberInputError(`${existing.display_name} is the service's owner (an administrator of every organization) already`)
    const user = existing ?? users.create({ displayName: name, email: freeEmail(users, name) })
    for (const org of owned) orgs.setMember(org.id, user.id, input.role)
    return {
      id: user.id,
      displayName: user.display_name,
      email: user.email,
      role: input.role,
      token: users.issueToken(user.id),
      organizations: owned.map((org) => ({ id: org.id, title: org.title })),
      created: existing === undefined,
    }
  })
}

/** name@quire.local from the name's letters and digits, numbered when another user has it. */
function freeEmail(users: UsersRepository, name: string): string {
  const local =
    name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '.')
      .replace(/^\.+|\.+$/g, '') || 'member'
  for (let n = 1; ; n++) {
    const email = `${local}${n === 1 ? '' : `.${n}`}@quire.local`
    if (!users.byEmail(email)) return email
  }
}
