import { CacheTable, str, type Row } from './cache-table'

/** The `settings` table: one value per key. */
export class SettingsTable extends CacheTable {
  setting(key: string): string | undefined {
    return str((this.statement('SELECT value FROM settings WHERE key = ?').get(key) as Row | undefined)?.value)
  }

  setSetting(key: string, value: string) {
    this.statement('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value)
  }
}
