/**
 * Polls `check` until it holds, failing with `what` after `timeoutMs`; `what` may be a function,
 * so the message can describe the last thing seen.
 */
export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string | (() => string),
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) {
      const described = typeof what === 'function' ? what() : what
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${described}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}
