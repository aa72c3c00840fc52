// The segment after these is a bearer credential: an approval link's single-use token, posted
// to the API or opened as the inbox's approval page.
const SECRET_PATH_PREFIXES = [
  ['v1', 'approval-hooks'],
  ['inbox', 'a'],
]

// Query parameter names that carry credentials, matched loosely: redacting a harmless value in a
// log line costs nothing, logging a token hands it to whoever reads the logs.
const CREDENTIAL_NAME =
  /token|jwt|secret|passw|pwd|signature|^sig$|key|^code$|auth|credential|session|cookie|assertion/i
// A JWS/JWE compact serialisation, whatever the parameter is called.
const JWT_LIKE = /^[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_.-]*$/
const REDACTED = '[redacted]'

/**
 * A URL safe to log: the token segment of `/v1/approval-hooks/{token}` and `/inbox/a/{token}`,
 * and the values of query
 * parameters that look like credentials (by name, or by looking like a JWT) are replaced.
 * Segments and names are compared percent-decoded and case-insensitively, so an encoded variant
 * that still reaches a route does not slip past.
 */
export function scrubUrl(url: string): string {
  const queryStart = url.indexOf('?')
  if (queryStart === -1) return scrubPath(url)
  return `${scrubPath(url.slice(0, queryStart))}?${scrubQuery(url.slice(queryStart + 1))}`
}

/** Whether the URL's query carries something that looks like a credential. */
export function hasQueryCredential(url: string): boolean {
  const queryStart = url.indexOf('?')
  if (queryStart === -1) return false
  return url
    .slice(queryStart + 1)
    .split('&')
    .some((part) => isCredentialParameter(part))
}

function scrubPath(path: string): string {
  const segments = path.split('/')
  // Empty segments (`//`) are skipped when matching, as a lenient router would.
  const present = segments.flatMap((segment, index) => (segment === '' ? [] : [index]))
  for (const prefix of SECRET_PATH_PREFIXES) {
    for (let at = 0; at + prefix.length < present.length; at++) {
      const matches = prefix.every(
        (expected, offset) => normalised(segments[present[at + offset]!]!) === expected,
      )
      if (matches) segments[present[at + prefix.length]!] = REDACTED
    }
  }
  return segments.join('/')
}

function scrubQuery(query: string): string {
  return query
    .split('&')
    .map((part) => {
      if (!isCredentialParameter(part)) return part
      const equals = part.indexOf('=')
      return equals === -1 ? REDACTED : `${part.slice(0, equals)}=${REDACTED}`
    })
    .join('&')
}

function isCredentialParameter(part: string): boolean {
  const equals = part.indexOf('=')
  const name = decoded(equals === -1 ? part : part.slice(0, equals))
  const value = equals === -1 ? '' : decoded(part.slice(equals + 1))
  return (
    JWT_LIKE.test(name) || JWT_LIKE.test(value) || (equals !== -1 && CREDENTIAL_NAME.test(name))
  )
}

function normalised(segment: string): string {
  return decoded(segment).toLowerCase()
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}
