import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { newId, newSecret } from './ids'
import type { ServiceStore } from './service-store'

export interface UserRow {
  id: string
  display_name: string
  email: string
  photo_url: string | null
  created_at: string
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

export class UsersRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: { displayName: string; email: string; photoURL?: string; id?: string }): UserRow {
    const row: UserRow = {
      id: input.id ?? newId(),
      display_name: input.displayName,
      email: input.email.toLowerCase(),
      photo_url: input.photoURL ?? null,
      created_at: this.store.now(),
    }
    this.db
      .prepare('INSERT INTO users (id, display_name, email, photo_url, created_at) VALUES (@id, @display_name, @email, @photo_url, @created_at)')
      .run(row)
    return row
  }

  get(id: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined
  }

  byEmail(email: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE email = ?').get(email.toLowerCase()) as UserRow | undefined
  }

  /** The first user of that display name, in any case (`quire service --add-user NAME`). */
  named(displayName: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE lower(display_name) = lower(?) ORDER BY created_at, rowid LIMIT 1').get(displayName) as UserRow | undefined
  }

  first(): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users ORDER BY created_at, rowid LIMIT 1').get() as UserRow | undefined
  }

  /** Tokens are stored hashed: the database file alone never grants access. */
  issueToken(userId: string, token: string = newSecret()): string {
    this.db
      .prepare('INSERT OR REPLACE INTO tokens (token_hash, user_id, created_at) VALUES (?, ?, ?)')
      .run(hashToken(token), userId, this.store.now())
    return token
  }

  /** The token stops working at once (a user revoking it, an administrator, a test of a refused token). */
  revokeToken(token: string) {
    this.db.prepare('DELETE FROM tokens WHERE token_hash = ?').run(hashToken(token))
  }

  /** Every token of the user but `except` stops working (`quire service --token`: a new owner token replaces the old). */
  revokeTokensOf(userId: string, except: string) {
    this.db.prepare('DELETE FROM tokens WHERE user_id = ? AND token_hash != ?').run(userId, hashToken(except))
  }

  byToken(token: string): UserRow | undefined {
    return this.db
      .prepare('SELECT users.* FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.token_hash = ?')
      .get(hashToken(token)) as UserRow | undefined
  }
}
