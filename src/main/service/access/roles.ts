/** Roles from most to least powerful, as the interface document lists them. */
export const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const
export type Role = (typeof ROLES)[number]

const rank = (role: Role) => ROLES.length - ROLES.indexOf(role)

/** True when `role` grants at least what `needed` grants. A null role (guest without access) grants nothing. */
export function atLeast(role: Role | null | undefined, needed: Role): boolean {
  return !!role && rank(role) >= rank(needed)
}

export function strongest(...roles: Array<Role | null | undefined>): Role | null {
  let best: Role | null = null
  for (const r of roles) if (r && (!best || rank(r) > rank(best))) best = r
  return best
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value)
}
