/** How deliveries are attempted; tests shorten the backoff. */
export interface DeliverySettings {
  /** Attempts per delivery, the first included (default 8). */
  maxAttempts: number
  /** Delay after the first failed attempt, doubled after each later one (default 1 s). */
  backoffMs: number
  /** Longest delay between attempts (default 10 min). */
  backoffCapMs: number
  /** Per attempt, connect to response headers (default 10 s). */
  timeoutMs: number
}

/** The defaults of {@link DeliverySettings}. */
export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  maxAttempts: 8,
  backoffMs: 1000,
  backoffCapMs: 10 * 60_000,
  timeoutMs: 10_000,
}

/** The delay before the next attempt once `attempts` have failed: exponential, capped. */
export function retryDelayMs(settings: DeliverySettings, attempts: number): number {
  const exponent = Math.max(0, attempts - 1)
  return Math.min(settings.backoffCapMs, settings.backoffMs * 2 ** Math.min(exponent, 30))
}
