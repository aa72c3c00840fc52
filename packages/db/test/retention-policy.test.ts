import { describe, expect, it } from 'vitest'
import { KEEP_EVERYTHING, expiryOf, historyToKeep, resolveRetention } from '@weave/db'

describe('retention policy of a run', () => {
  it('keeps everything when neither the graph nor the tenant sets a policy', () => {
    expect(resolveRetention(undefined, null)).toEqual(KEEP_EVERYTHING)
    expect(resolveRetention({}, undefined)).toEqual({ checkpoints: 'all', runDays: null })
  })

  it('takes the tenant policy where the graph sets nothing', () => {
    const tenant = { checkpoints: { last: 3 }, runDays: 30 }
    expect(resolveRetention(undefined, tenant)).toEqual(tenant)
    expect(resolveRetention({}, tenant)).toEqual(tenant)
  })

  it('lets each field the graph sets override the tenant’s, and only that field', () => {
    const tenant = { checkpoints: { last: 3 }, runDays: 30 }
    expect(resolveRetention({ checkpoints: 'none' }, tenant)).toEqual({
      checkpoints: 'none',
      runDays: 30,
    })
    expect(resolveRetention({ runDays: 365 }, tenant)).toEqual({
      checkpoints: { last: 3 },
      runDays: 365,
    })
    expect(resolveRetention({ checkpoints: 'all', runDays: 7 }, tenant)).toEqual({
      checkpoints: 'all',
      runDays: 7,
    })
  })

  it('counts a stored policy that does not parse as unset rather than failing the pass', () => {
    const tenant = { checkpoints: 'none', runDays: null }
    expect(resolveRetention({ checkpoints: { last: 0 } }, tenant)).toEqual(tenant)
    expect(resolveRetention({ checkpoints: 'all' }, { checkpoints: 'some' })).toEqual({
      checkpoints: 'all',
      runDays: null,
    })
  })

  it('maps a checkpoint policy to the history entries kept per run', () => {
    expect(historyToKeep('all')).toBeNull()
    expect(historyToKeep('none')).toBe(0)
    expect(historyToKeep({ last: 5 })).toBe(5)
  })

  it('sets a run’s expiry runDays after it finished, or none', () => {
    const finished = new Date('2026-01-01T00:00:00.000Z')
    expect(expiryOf(finished, 30)?.toISOString()).toBe('2026-01-31T00:00:00.000Z')
    expect(expiryOf(finished, null)).toBeNull()
  })
})
