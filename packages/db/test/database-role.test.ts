import { describe, expect, it } from 'vitest'
import { resolveDatabaseUrls } from '@weave/db'

describe('resolveDatabaseUrls', () => {
  it('defaults to the local weave database: runtime login weave_runtime, owner postgres', () => {
    expect(resolveDatabaseUrls({})).toEqual({
      runtime: 'postgres://weave_runtime@127.0.0.1:5432/weave',
      migrate: 'postgres://postgres@127.0.0.1:5432/weave',
    })
  })

  it('pairs a URL set alone with the same server and database under the default login', () => {
    expect(
      resolveDatabaseUrls({ runtime: 'postgres://app:pw@db.internal:6432/orders?sslmode=require' }),
    ).toEqual({
      runtime: 'postgres://app:pw@db.internal:6432/orders?sslmode=require',
      migrate: 'postgres://postgres@db.internal:6432/orders?sslmode=require',
    })
    expect(resolveDatabaseUrls({ migrate: 'postgres://owner:secret@db/orders' })).toEqual({
      runtime: 'postgres://weave_runtime@db/orders',
      migrate: 'postgres://owner:secret@db/orders',
    })
  })

  it('reads a legacy DATABASE_URL as both, unless one of the two is set', () => {
    const legacy = 'postgres://postgres@127.0.0.1:5432/weave_e2e'
    expect(resolveDatabaseUrls({ legacy })).toEqual({ runtime: legacy, migrate: legacy })
    expect(resolveDatabaseUrls({ legacy, runtime: 'postgres://app@h/d' })).toEqual({
      runtime: 'postgres://app@h/d',
      migrate: legacy,
    })
  })
})
