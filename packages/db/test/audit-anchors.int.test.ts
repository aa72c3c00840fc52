import { createPublicKey, generateKeyPairSync } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type AuditEvent,
  GENESIS_HASH,
  anchorAuditHead,
  appendAudit,
  auditHash,
  createAuditSigner,
  deriveAuditSigningKey,
  isAnchorSignedBy,
  listAuditAnchors,
  listUnanchoredHeads,
  listUnpublishedAuditAnchors,
  markAuditAnchorPublished,
  parseAuditPublicKey,
  parseAuditSigningKey,
  verifyAudit,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, pgErrorOf, randomTenant } from './test-database.js'

let t: TestDatabase
const privateKey = deriveAuditSigningKey('a development jwt secret of enough bytes')
const signer = createAuditSigner(privateKey)
const publicKey = createPublicKey(privateKey)

beforeAll(async () => {
  t = await createTestDatabase('weave_db_audit_anchors')
})

afterAll(async () => {
  await t?.drop()
})

async function append(tenant: string, n: number): Promise<AuditEvent[]> {
  const events: AuditEvent[] = []
  for (let i = 0; i < n; i++) {
    events.push(
      await withTenant(t.app, tenant, (tx) =>
        appendAudit(tx, {
          actor: `user-${i}`,
          action: 'run.started',
          target: { kind: 'run', id: `run-${i}` },
          details: { i },
        }),
      ),
    )
  }
  return events
}

const anchor = (tenant: string) =>
  withTenant(t.app, tenant, (tx) => anchorAuditHead(tx, signer, 'auditor'))
const verify = (tenant: string) => withTenant(t.app, tenant, (tx) => verifyAudit(tx, { publicKey }))

/** Runs SQL as the owner with the audit table's guards off, as an attacker with DDL would. */
async function tamper(statements: string | string[], params: unknown[]): Promise<void> {
  const client = await t.owner.connect()
  try {
    await client.query('begin')
    await client.query('alter table audit_events disable trigger user')
    for (const statement of [statements].flat()) await client.query(statement, params)
    await client.query('alter table audit_events enable trigger user')
    await client.query('commit')
  } catch (err) {
    await client.query('rollback')
    throw err
  } finally {
    client.release()
  }
}

describe('audit signing keys', () => {
  it('parses a seed as hex or base64 and a PKCS#8 PEM, to the same key', () => {
    const { privateKey: generated } = generateKeyPairSync('ed25519')
    const pem = generated.export({ format: 'pem', type: 'pkcs8' }).toString()
    const der = generated.export({ format: 'der', type: 'pkcs8' })
    const seed = der.subarray(der.length - 32)
    const id = createAuditSigner(generated).publicKey.keyId
    for (const text of [
      pem,
      pem.replaceAll('\n', '\\n'),
      seed.toString('hex'),
      seed.toString('base64'),
    ]) {
      expect(createAuditSigner(parseAuditSigningKey(text)).publicKey.keyId).toBe(id)
    }
    expect(() => parseAuditSigningKey('not a key')).toThrow(TypeError)
    const { privateKey: rsa } = generateKeyPairSync('rsa', { modulusLength: 1024 })
    expect(() =>
      parseAuditSigningKey(rsa.export({ format: 'pem', type: 'pkcs8' }).toString()),
    ).toThrow(/Ed25519/)
  })

  it('publishes a public key that verifies, as raw bytes and as PEM', () => {
    const signed = signer.sign({
      tenant: 'acme',
      seq: 3,
      hash: 'f'.repeat(64),
      at: new Date(0).toISOString(),
    })
    for (const text of [signer.publicKey.publicKey, signer.publicKey.pem]) {
      expect(isAnchorSignedBy(signed, parseAuditPublicKey(text))).toBe(true)
    }
    expect(isAnchorSignedBy({ ...signed, seq: 2 }, publicKey)).toBe(false)
    expect(isAnchorSignedBy({ ...signed, tenant: 'other' }, publicKey)).toBe(false)
    const other = createPublicKey(deriveAuditSigningKey('another development jwt secret'))
    expect(isAnchorSignedBy(signed, other)).toBe(false)
  })

  it('derives one development key per JWT secret', () => {
    const again = createAuditSigner(
      deriveAuditSigningKey('a development jwt secret of enough bytes'),
    )
    expect(again.publicKey).toEqual(signer.publicKey)
  })
})

describe('anchored verification', () => {
  it('anchors an empty chain at seq 0, and a grown one at its head', async () => {
    const tenant = randomTenant()
    const empty = await anchor(tenant)
    expect(empty).toMatchObject({ tenant, seq: 0, hash: GENESIS_HASH, createdBy: 'auditor' })
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 0 })
    const events = await append(tenant, 3)
    const head = await anchor(tenant)
    expect(head).toMatchObject({ seq: 3, hash: events[2]?.hash, publishedAt: null })
    expect(isAnchorSignedBy(head, publicKey)).toBe(true)
    expect(await verify(tenant)).toEqual({
      ok: true,
      checked: 3,
      anchor: { seq: 3, hash: events[2]?.hash, at: head.at, keyId: signer.publicKey.keyId },
    })
    // Events after the newest anchor are checked as a chain; they are not yet anchored.
    await append(tenant, 2)
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 5 })
  })

  it('reports the deletion of the newest events as a truncation at the first missing seq', async () => {
    const tenant = randomTenant()
    await append(tenant, 5)
    await anchor(tenant)
    await tamper('delete from audit_events where tenant_id = $1 and seq >= 4', [tenant])
    expect(await verify(tenant)).toMatchObject({
      ok: false,
      checked: 3,
      problem: 'truncated',
      firstBadSeq: 4,
    })
  })

  it('reports a gap in the middle', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 5)
    await anchor(tenant)
    await tamper('delete from audit_events where tenant_id = $1 and seq = 3', [tenant])
    expect(await verify(tenant)).toMatchObject({
      ok: false,
      problem: 'gap',
      firstBadSeq: 3,
      firstBadId: events[3]?.id,
    })
  })

  it('reports an edit', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 5)
    await anchor(tenant)
    await tamper("update audit_events set actor = 'mallory' where tenant_id = $1 and seq = 2", [
      tenant,
    ])
    expect(await verify(tenant)).toMatchObject({
      ok: false,
      problem: 'edited',
      firstBadSeq: 2,
      firstBadId: events[1]?.id,
    })
  })

  it('reports a swap of two events as a reordering at the first moved seq', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 5)
    await anchor(tenant)
    await tamper(
      [
        'update audit_events set seq = -4 where tenant_id = $1 and seq = 4',
        'update audit_events set seq = 4 where tenant_id = $1 and seq = 5',
        'update audit_events set seq = 5 where tenant_id = $1 and seq = -4',
      ],
      [tenant],
    )
    expect(await verify(tenant)).toMatchObject({
      ok: false,
      problem: 'reordered',
      firstBadSeq: 4,
      firstBadId: events[4]?.id,
    })
  })

  it('reports a tail rewritten with recomputed hashes, which only the anchor still contradicts', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 3)
    await anchor(tenant)
    const last = events[2] as AuditEvent
    const { hash: _old, ...unhashed } = { ...last, actor: 'mallory' }
    await tamper('update audit_events set actor = $1, hash = $2 where id = $3', [
      'mallory',
      auditHash(unhashed),
      last.id,
    ])
    expect(await verify(tenant)).toMatchObject({
      ok: false,
      problem: 'edited',
      firstBadSeq: 3,
      firstBadId: last.id,
    })
  })

  it('reports an anchor whose signature does not verify', async () => {
    const tenant = randomTenant()
    await append(tenant, 2)
    const signed = await anchor(tenant)
    await t.owner.query('update audit_anchors set seq = 1 where id = $1', [signed.id])
    expect(await verify(tenant)).toMatchObject({ ok: false, checked: 0, problem: 'anchor-invalid' })
  })

  it('without a public key, checks the chain alone', async () => {
    const tenant = randomTenant()
    await append(tenant, 3)
    await anchor(tenant)
    await tamper('delete from audit_events where tenant_id = $1 and seq = 3', [tenant])
    expect(await withTenant(t.app, tenant, (tx) => verifyAudit(tx))).toEqual({
      ok: true,
      checked: 2,
      anchor: null,
    })
  })
})

/**
 * Inserts an anchor row as the app role, as a compromised API or worker could: the signature is
 * the real signer's over what it claims, so only the database's check stands in the way.
 */
function insertAnchorAsApp(tenant: string, claim: { seq: number; hash: string }) {
  const signed = signer.sign({ tenant, ...claim, at: new Date().toISOString() })
  return withTenant(t.app, tenant, (tx) =>
    tx.db.execute(sql`
      insert into audit_anchors (id, tenant_id, seq, hash, at, key_id, signature, created_by)
      values (gen_random_uuid(), ${tenant}, ${signed.seq}, ${signed.hash}, ${signed.at},
        ${signed.keyId}, ${signed.signature}, 'mallory')`),
  )
}

async function anchorCount(tenant: string): Promise<number> {
  const { rows } = await t.owner.query<{ n: number }>(
    'select count(*)::int as n from audit_anchors where tenant_id = $1',
    [tenant],
  )
  return rows[0]!.n
}

describe('anchors the database refuses', () => {
  it('refuses, as the app role, an anchor of anything but the head: a past seq, a forged hash, a seq not reached', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 3)
    const head = events[2] as AuditEvent
    const forged = [
      { seq: 2, hash: (events[1] as AuditEvent).hash },
      { seq: 3, hash: 'f'.repeat(64) },
      { seq: 4, hash: head.hash },
      { seq: 0, hash: GENESIS_HASH },
    ]
    for (const claim of forged) {
      const error = await pgErrorOf(insertAnchorAsApp(tenant, claim))
      expect(error, JSON.stringify(claim)).toMatchObject({
        code: '23514',
        message: expect.stringContaining("an audit anchor must sign its tenant's head: seq 3"),
      })
    }
    expect(await anchorCount(tenant)).toBe(0)
    // The head itself, signed the same way, is stored.
    await insertAnchorAsApp(tenant, { seq: 3, hash: head.hash })
    expect(await anchorCount(tenant)).toBe(1)
  })

  it("refuses another tenant's head, and an empty chain's anchor of anything but the genesis hash", async () => {
    const tenant = randomTenant()
    const other = randomTenant()
    const [foreign] = await append(other, 1)
    expect(
      await pgErrorOf(insertAnchorAsApp(tenant, { seq: 1, hash: (foreign as AuditEvent).hash })),
    ).toMatchObject({ code: '23514' })
    expect(
      await pgErrorOf(insertAnchorAsApp(tenant, { seq: 0, hash: 'a'.repeat(64) })),
    ).toMatchObject({ code: '23514' })
    await insertAnchorAsApp(tenant, { seq: 0, hash: GENESIS_HASH })
    expect(await anchorCount(tenant)).toBe(1)
  })

  it('refuses an anchor below the newest one, even of the head of a chain cut shorter', async () => {
    const tenant = randomTenant()
    await append(tenant, 3)
    await anchor(tenant)
    await tamper('delete from audit_events where tenant_id = $1 and seq = 3', [tenant])
    const error = await pgErrorOf(anchor(tenant))
    expect(error).toMatchObject({
      code: '23514',
      message: expect.stringContaining("the tenant's newest anchor signs seq 3, not 2"),
    })
    expect(await anchorCount(tenant)).toBe(1)
  })
})

describe('anchor rows', () => {
  it('lets the app role add anchors and mark them sent, never change what was signed', async () => {
    const tenant = randomTenant()
    await append(tenant, 1)
    const signed = await anchor(tenant)
    const error = await pgErrorOf(
      withTenant(t.app, tenant, (tx) =>
        tx.db.execute(sql`update audit_anchors set seq = 7 where id = ${signed.id}`),
      ),
    )
    expect(error.code).toBe('42501')
    const deletion = await pgErrorOf(
      withTenant(t.app, tenant, (tx) =>
        tx.db.execute(sql`delete from audit_anchors where id = ${signed.id}`),
      ),
    )
    expect(deletion.code).toBe('42501')
    expect(await withTenant(t.app, tenant, (tx) => markAuditAnchorPublished(tx, signed.id))).toBe(
      true,
    )
    expect(await withTenant(t.app, tenant, (tx) => markAuditAnchorPublished(tx, signed.id))).toBe(
      false,
    )
    // Another tenant neither sees it nor marks it.
    expect(
      await withTenant(t.app, randomTenant(), (tx) => markAuditAnchorPublished(tx, signed.id)),
    ).toBe(false)
  })

  it('lists a tenant’s anchors newest first with a cursor', async () => {
    const tenant = randomTenant()
    await append(tenant, 1)
    const first = await anchor(tenant)
    await append(tenant, 1)
    const second = await anchor(tenant)
    const page = await withTenant(t.app, tenant, (tx) => listAuditAnchors(tx, { limit: 1 }))
    expect(page.items.map((a) => a.id)).toEqual([second.id])
    const next = await withTenant(t.app, tenant, (tx) =>
      listAuditAnchors(tx, { limit: 1, cursor: page.nextCursor }),
    )
    expect(next).toEqual({ items: [first], nextCursor: null })
  })

  it('finds across tenants the chains grown past their newest anchor, and the anchors not sent', async () => {
    const grown = randomTenant()
    const anchored = randomTenant()
    await append(grown, 2)
    await append(anchored, 1)
    const sent = await anchor(anchored)
    const heads: Array<{ tenant: string; seq: number }> = []
    let afterTenant: string | null = null
    for (;;) {
      const page: Array<{ tenant: string; seq: number }> = await listUnanchoredHeads(t.app, {
        afterTenant,
        limit: 2,
      })
      heads.push(...page)
      if (page.length < 2) break
      afterTenant = page.at(-1)?.tenant ?? null
    }
    expect(heads).toContainEqual({ tenant: grown, seq: 2 })
    expect(heads.map((h) => h.tenant)).not.toContain(anchored)
    expect(await listUnpublishedAuditAnchors(t.app, { limit: 1000 })).toContainEqual({
      tenant: anchored,
      id: sent.id,
    })
    await withTenant(t.app, anchored, (tx) => markAuditAnchorPublished(tx, sent.id))
    expect(await listUnpublishedAuditAnchors(t.app, { limit: 1000 })).not.toContainEqual({
      tenant: anchored,
      id: sent.id,
    })
  })
})
