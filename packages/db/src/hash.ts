import { createHash } from 'node:crypto'
import { canonicalJson } from '@weave/spec'

/** Lower-case hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/** SHA-256 of a value's canonical JSON: graph digests, request hashes, material hashes. */
export function hashJson(value: unknown): string {
  return sha256Hex(canonicalJson(value))
}
