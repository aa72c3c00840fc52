/** One validation problem: a JSON Pointer (RFC 6901) into the checked document and a message. */
export interface SpecProblem {
  path: string
  message: string
}

/** Builds a JSON Pointer from path segments (`~` and `/` escaped); `[]` is the root, `""`. */
export function toPointer(segments: ReadonlyArray<PropertyKey>): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}
