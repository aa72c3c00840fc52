import {
  createHash,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto'
import { canonicalJson } from '@weave/spec'

/**
 * What an anchor's signature covers: a tenant's audit chain had `seq` events at time `at`, the
 * last with hash `hash`. Signed as the UTF-8 of its canonical JSON with `type` added, so a
 * verifier needs no Weave code (docs/http-api.md, Audit anchors).
 */
export interface AnchorStatement {
  tenant: string
  seq: number
  hash: string
  /** ISO 8601 with milliseconds. */
  at: string
}

/** The `type` member of every signed statement; a new format gets a new one. */
export const ANCHOR_STATEMENT_TYPE = 'weave.audit-anchor.v1'

/** A signed statement as stored, listed, exported and sent to the anchor webhook. */
export interface SignedAnchor extends AnchorStatement {
  /** Which key signed it (see {@link auditKeyId}). */
  keyId: string
  /** Ed25519 signature of the statement, base64url. */
  signature: string
}

/** The Ed25519 public key anchors are verified with, as `GET /v1/audit/keys` publishes it. */
export interface AuditPublicKey {
  keyId: string
  algorithm: 'Ed25519'
  /** The raw 32-byte key, base64url. */
  publicKey: string
  /** The same key as an SPKI PEM, for openssl and other tools. */
  pem: string
}

/** Signs anchors; built once from the configured private key. */
export interface AuditSigner {
  readonly publicKey: AuditPublicKey
  sign(statement: AnchorStatement): SignedAnchor
}

// DER prefixes that wrap a raw 32-byte Ed25519 seed or public key into PKCS#8 and SPKI.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
const SEED_BYTES = 32

/** The bytes an anchor's signature covers. */
export function anchorStatementBytes(statement: AnchorStatement): Buffer {
  return Buffer.from(
    canonicalJson({
      type: ANCHOR_STATEMENT_TYPE,
      tenant: statement.tenant,
      seq: statement.seq,
      hash: statement.hash,
      at: statement.at,
    }),
    'utf8',
  )
}

/**
 * Parses an Ed25519 private key: a PKCS#8 PEM (`openssl genpkey -algorithm ed25519`; a PEM
 * flattened onto one line with literal "\n" is accepted), or its 32-byte seed as 64 hex digits or
 * base64.
 * @throws TypeError when the text is none of these, or not an Ed25519 key.
 */
export function parseAuditSigningKey(text: string): KeyObject {
  const trimmed = text.trim().replaceAll('\\n', '\n')
  let key: KeyObject
  if (trimmed.startsWith('-----BEGIN')) {
    try {
      key = createPrivateKey(trimmed)
    } catch {
      throw new TypeError('must be an Ed25519 private key (PKCS#8 PEM) or its 32-byte seed')
    }
  } else {
    key = privateKeyOfSeed(seedOf(trimmed))
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError('must be an Ed25519 key')
  return key
}

/**
 * Parses an Ed25519 public key: an SPKI PEM, or the raw 32 bytes as 64 hex digits or base64
 * (the `publicKey` of `GET /v1/audit/keys`).
 * @throws TypeError when the text is none of these, or not an Ed25519 key.
 */
export function parseAuditPublicKey(text: string): KeyObject {
  const trimmed = text.trim().replaceAll('\\n', '\n')
  let key: KeyObject
  try {
    key = trimmed.startsWith('-----BEGIN')
      ? createPublicKey(trimmed)
      : createPublicKey({
          key: Buffer.concat([SPKI_ED25519_PREFIX, seedOf(trimmed)]),
          format: 'der',
          type: 'spki',
        })
  } catch {
    throw new TypeError('must be an Ed25519 public key (SPKI PEM) or its 32 raw bytes')
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError('must be an Ed25519 key')
  return key
}

/**
 * A stable development signing key derived (HKDF-SHA256) from the development JWT secret, so the
 * API and the workers of one development setup sign with the same key without another setting.
 */
export function deriveAuditSigningKey(jwtSecret: string): KeyObject {
  const seed = Buffer.from(
    hkdfSync('sha256', jwtSecret, 'weave', 'weave audit signing key v1 (development)', SEED_BYTES),
  )
  return privateKeyOfSeed(seed)
}

/** The raw 32 bytes of an Ed25519 public key. */
function rawPublicKey(key: KeyObject): Buffer {
  const der = key.export({ format: 'der', type: 'spki' })
  return der.subarray(der.length - SEED_BYTES)
}

/** A key's id: the first 16 hex digits of the SHA-256 of its raw public key. */
export function auditKeyId(publicKey: KeyObject): string {
  return createHash('sha256').update(rawPublicKey(publicKey)).digest('hex').slice(0, 16)
}

/** The published form of a public key. */
export function describeAuditPublicKey(publicKey: KeyObject): AuditPublicKey {
  return {
    keyId: auditKeyId(publicKey),
    algorithm: 'Ed25519',
    publicKey: rawPublicKey(publicKey).toString('base64url'),
    pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  }
}

/** Builds the signer of a private key. */
export function createAuditSigner(privateKey: KeyObject): AuditSigner {
  const publicKey = createPublicKey(privateKey)
  const described = describeAuditPublicKey(publicKey)
  return {
    publicKey: described,
    sign(statement) {
      const signature = sign(null, anchorStatementBytes(statement), privateKey)
      return {
        tenant: statement.tenant,
        seq: statement.seq,
        hash: statement.hash,
        at: statement.at,
        keyId: described.keyId,
        signature: signature.toString('base64url'),
      }
    },
  }
}

/** True when `anchor` was signed by `publicKey` and says what it was signed over. */
export function isAnchorSignedBy(anchor: SignedAnchor, publicKey: KeyObject): boolean {
  if (anchor.keyId !== auditKeyId(publicKey)) return false
  try {
    return verify(
      null,
      anchorStatementBytes(anchor),
      publicKey,
      Buffer.from(anchor.signature, 'base64url'),
    )
  } catch {
    return false
  }
}

function privateKeyOfSeed(seed: Buffer): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  })
}

function seedOf(text: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex')
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const bytes = Buffer.from(text, 'base64')
    if (bytes.length === SEED_BYTES) return bytes
  }
  throw new TypeError('must be 32 bytes as 64 hex digits or base64, or a PEM')
}
