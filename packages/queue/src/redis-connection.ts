import type { ConnectionOptions } from 'bullmq'

/**
 * BullMQ connection options from a `redis://` or `rediss://` URL. BullMQ needs
 * `maxRetriesPerRequest: null` on worker connections so blocking commands are never abandoned.
 * @throws TypeError for a URL that is not redis:// or rediss://
 */
export function redisConnection(url: string): ConnectionOptions {
  const u = new URL(url)
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new TypeError(`REDIS_URL must start with redis:// or rediss://, got ${u.protocol}`)
  }
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    db: Number.isInteger(db) ? db : 0,
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  }
}
