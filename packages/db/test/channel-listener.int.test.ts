import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenOnChannel, type ChannelListener } from '@weave/db'
import { type TestDatabase, createTestDatabase } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_channel')
})

afterAll(async () => {
  await t?.drop()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `done` holds, or fails after 10 s. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s')
    await sleep(20)
  }
}

const notify = (channel: string, payload: string) =>
  t.owner.query('select pg_notify($1, $2)', [channel, payload])

/** Terminates the backends listening on `channel`; returns how many there were. */
async function terminateListeners(channel: string): Promise<number> {
  const { rows } = await t.owner.query<{ pid: number }>(
    `select pg_terminate_backend(pid), pid from pg_stat_activity
     where datname = current_database() and query = $1`,
    [`LISTEN ${channel}`],
  )
  return rows.length
}

describe('listenOnChannel', () => {
  it('delivers the payloads notified on its channel, and only those', async () => {
    const received: string[] = []
    const listener = listenOnChannel({
      connectionString: t.url,
      channel: 'weave_test_mine',
      onNotification: (payload) => received.push(payload),
    })
    try {
      await listener.listening
      await notify('weave_test_other', 'not mine')
      await notify('weave_test_mine', 'first')
      await notify('weave_test_mine', '')
      await notify('weave_test_mine', 'last')
      await until(() => received.includes('last'))
      expect(received).toEqual(['first', '', 'last'])
    } finally {
      await listener.close()
    }
  })

  it('resolves listening only after the first onListening settled', async () => {
    let settled = false
    const listener = listenOnChannel({
      connectionString: t.url,
      channel: 'weave_test_settle',
      onNotification: () => undefined,
      onListening: async () => {
        await sleep(100)
        settled = true
      },
    })
    try {
      await listener.listening
      expect(settled).toBe(true)
    } finally {
      await listener.close()
    }
  })

  it('reports a rejected onListening and keeps listening', async () => {
    const received: string[] = []
    const errors: Error[] = []
    const listener = listenOnChannel({
      connectionString: t.url,
      channel: 'weave_test_rejects',
      onNotification: (payload) => received.push(payload),
      onListening: () => Promise.reject(new Error('catch-up failed')),
      onError: (err) => errors.push(err),
    })
    try {
      await listener.listening
      expect(errors.map((e) => e.message)).toEqual(['catch-up failed'])
      await notify('weave_test_rejects', 'still here')
      await until(() => received.length > 0)
      expect(received).toEqual(['still here'])
      expect(errors).toHaveLength(1)
    } finally {
      await listener.close()
    }
  })

  it('reconnects after its connection is killed, listens again and reports the error', async () => {
    const received: string[] = []
    const errors: Error[] = []
    let listens = 0
    const listener = listenOnChannel({
      connectionString: t.url,
      channel: 'weave_test_reconnect',
      reconnectDelayMs: 50,
      onNotification: (payload) => received.push(payload),
      onListening: () => {
        listens += 1
      },
      onError: (err) => errors.push(err),
    })
    try {
      await listener.listening
      expect(listens).toBe(1)
      expect(await terminateListeners('weave_test_reconnect')).toBe(1)
      await until(() => listens === 2)
      expect(errors.length).toBeGreaterThan(0)
      expect(errors.every((err) => err instanceof Error)).toBe(true)
      await notify('weave_test_reconnect', 'after the reconnect')
      await until(() => received.includes('after the reconnect'))
    } finally {
      await listener.close()
    }
  })

  it('stops on close: no reconnect, no further notifications', async () => {
    const received: string[] = []
    const errors: Error[] = []
    let listens = 0
    const listener: ChannelListener = listenOnChannel({
      connectionString: t.url,
      channel: 'weave_test_close',
      reconnectDelayMs: 10,
      onNotification: (payload) => received.push(payload),
      onListening: () => {
        listens += 1
      },
      onError: (err) => errors.push(err),
    })
    await listener.listening
    await listener.close()
    await notify('weave_test_close', 'too late')
    // Several reconnect delays: a listener that came back would have listened again by now.
    await sleep(300)
    expect(await terminateListeners('weave_test_close')).toBe(0)
    expect(listens).toBe(1)
    expect(received).toEqual([])
    expect(errors).toEqual([])
  })

  it('closes cleanly while still connecting', async () => {
    let listens = 0
    const listener = listenOnChannel({
      connectionString: t.url,
      channel: 'weave_test_early_close',
      onNotification: () => undefined,
      onListening: () => {
        listens += 1
      },
    })
    await listener.close()
    await sleep(300)
    expect(await terminateListeners('weave_test_early_close')).toBe(0)
    expect(listens).toBe(0)
  })

  it('throws a TypeError for a channel that is not a plain identifier', () => {
    const attempt = (channel: string) => () =>
      listenOnChannel({
        connectionString: t.url,
        channel,
        onNotification: () => undefined,
      })
    for (const channel of ['', 'Mixed_Case', '1starts_with_digit', 'x; drop table runs', 'a-b']) {
      expect(attempt(channel)).toThrow(TypeError)
    }
  })
})
