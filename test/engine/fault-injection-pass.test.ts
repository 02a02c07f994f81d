/**
 * The cache database and the workspace fail at every access of one pass (an error, then a SIGKILL at a
 * spread of them); after Quire carries on or restarts, nothing is lost (P1), nothing is sent twice (P3)
 * and a clean pass leaves the folder equal to the service (P4). See support/fault-suite.ts.
 */
import { faultInjectionSuite } from './support/fault-suite'

faultInjectionSuite('pass')
