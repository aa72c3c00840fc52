import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import { isOnServiceContainers } from './service-urls.js'

/**
 * The suite options of a fault test that starts private servers of its own with `commands`
 * (`pg_createcluster`, `redis-server`) so it can stop them. A machine whose run gets PostgreSQL
 * and Redis from containers usually has neither, so there the suite skips, printing which command
 * is missing; on the local services it never skips, and a missing command fails it.
 */
export function faultSuiteOptions(commands: readonly string[]): { skip: boolean } {
  if (!isOnServiceContainers) return { skip: false }
  const missing = commands.filter((command) => !isOnPath(command))
  if (missing.length === 0) return { skip: false }
  console.warn(
    `skipped: PostgreSQL and Redis run in containers here, and this fault test starts private ` +
      `servers with ${missing.join(' and ')}, which this machine does not have`,
  )
  return { skip: true }
}

function isOnPath(command: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, command), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}
