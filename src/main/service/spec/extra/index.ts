import type { ExtraOperation } from '../types'
import { contentExtraOperations } from './content'
import { siteExtraOperations } from './sites'

export const extraOperations: ExtraOperation[] = [...contentExtraOperations, ...siteExtraOperations]
