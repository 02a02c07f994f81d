import { CacheTable, str, type Row } from './cache-table'

/** Where a token is: `keyring` (the OS store through the library), `file`; `macos-keychain` and `secret-tool` were written by earlier versions. */
export type TokenStoreKind = 'keyring' | 'macos-keychain' | 'secret-tool' | 'file'

export interface AccountRow {
  id: string
  endpoint: string
  userId: string
  displayName: string
  email?: string
  tokenStore: TokenStoreKind
  createdAt: string
}

/** The `accounts` table: one account is active at a time. */
export class AccountTable extends CacheTable {
  saveAccount(account: Omit<AccountRow, 'createdAt'>): AccountRow {
    return this.transaction(() => {
      this.statement('UPDATE accounts SET active = 0').run()
      this.statement(
        `INSERT INTO accounts (id, endpoint, user_id, display_name, email, token_store, active, created_at)
         VALUES (@id, @endpoint, @userId, @displayName, @email, @tokenStore, 1, @createdAt)
         ON CONFLICT(id) DO UPDATE SET endpoint = excluded.endpoint, display_name = excluded.display_name,
           email = excluded.email, token_store = excluded.token_store, active = 1`,
      ).run({ ...account, email: account.email ?? null, createdAt: this.now() })
      return this.activeAccount()!
    })
  }

  activeAccount(): AccountRow | undefined {
    const row = this.statement('SELECT * FROM accounts WHERE active = 1').get() as Row | undefined
    return row && this.accountOf(row)
  }

  /** Signs out: the journal of what was synced stays, so signing in again resumes without re-downloading. */
  deactivateAccount(id: string) {
    this.statement('UPDATE accounts SET active = 0 WHERE id = ?').run(id)
  }

  /** The token moved to another store (an old keychain entry into the keyring library's item). */
  setTokenStore(id: string, kind: TokenStoreKind) {
    this.statement('UPDATE accounts SET token_store = ? WHERE id = ?').run(kind, id)
  }

  private accountOf(row: Row): AccountRow {
    return {
      id: String(row.id),
      endpoint: String(row.endpoint),
      userId: String(row.user_id),
      displayName: String(row.display_name),
      email: str(row.email),
      tokenStore: String(row.token_store) as TokenStoreKind,
      createdAt: String(row.created_at),
    }
  }
}
