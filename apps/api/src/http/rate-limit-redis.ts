import { Redis } from 'ioredis'

/**
 * The Redis client for shared rate-limit counters. It fails fast while Redis is away (no offline
 * queue, one retry) so the limiter skips it instead of holding requests; it reconnects by itself.
 * Connection errors are left to the limiter, which lets requests through, so they are swallowed.
 */
export function createRateLimitRedis(url: string): Redis {
  const redis = new Redis(url, {
    connectTimeout: 2_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  })
  redis.on('error', () => undefined)
  return redis
}
