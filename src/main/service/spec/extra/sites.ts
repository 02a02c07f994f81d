import type { ExtraOperation } from '../types'

// Site operations of the interface document that the published spec lacks (section group sections).
export const siteExtraOperations: ExtraOperation[] = []
