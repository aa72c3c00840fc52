/**
 * True for V8's "Maximum call stack size exceeded": what a recursive parser or validator throws
 * on input nested, or referring to itself, past the stack's depth.
 */
export function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message)
}
