import type { Settings } from '../../shared/contract'
import path from 'node:path'
import type { CacheRepository } from '../engine'
import { AppError } from './errors'

const KEYS = {
  workspace: 'workspace',
  intervalSeconds: 'interval_seconds',
  paused: 'paused',
  startAtLogin: 'start_at_login',
  notifications: 'notifications',
} as const satisfies Record<keyof Settings, string>

export const DEFAULT_INTERVAL_SECONDS = 60

/** The user's settings, one row each in the cache's settings table (shared with the CLI). */
export class SettingsStore {
  constructor(
    private readonly cache: CacheRepository,
    private readonly defaultWorkspace: string,
  ) {}

  get(): Settings {
    const read = (key: keyof Settings) => this.cache.setting(KEYS[key])
    const interval = Number(read('intervalSeconds'))
    return {
      workspace: read('workspace') ?? this.defaultWorkspace,
      intervalSeconds: Number.isInteger(interval) && interval >= 10 ? interval : DEFAULT_INTERVAL_SECONDS,
      paused: read('paused') === 'true',
      startAtLogin: read('startAtLogin') === 'true',
      notifications: read('notifications') !== 'false',
    }
  }

  /** Stores a patch the user made; a bad value is refused whole, nothing stored. */
  update(patch: Partial<Settings>): Settings {
    if (patch.workspace !== undefined && !path.isAbsolute(patch.workspace)) throw new AppError('invalid', 'The workspace folder must be an absolute path.')
    if (patch.intervalSeconds !== undefined && (!Number.isInteger(patch.intervalSeconds) || patch.intervalSeconds < 10)) {
      throw new AppError('invalid', 'The interval must be a whole number of seconds, at least 10.')
    }
    this.cache.transaction(() => {
      for (const [key, value] of Object.entries(patch) as Array<[keyof Settings, Settings[keyof Settings]]>) {
        if (value !== undefined) this.cache.setSetting(KEYS[key], String(value))
      }
    })
    return this.get()
  }
}
