const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether a string is a UUID; ids that are not cannot name a row (and would make SQL fail). */
export function isUuid(value: string): boolean {
  return UUID.test(value)
}
