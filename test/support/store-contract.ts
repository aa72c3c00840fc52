import { NestedTxError, type Store } from '@weave/kernel'
import { afterEach, beforeEach, describe, expect, it, type TestContext } from 'vitest'

/** What a contract run needs: a fresh, empty store, and how to dispose of it. */
export interface StoreUnderTest {
  store: Store
  cleanup?: () => Promise<void>
}

type PutMany = NonNullable<Store['putMany']>

/** A promise with its resolve function, to make two async flows meet without sleeping. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

// Chosen so that UTF-16 code unit order (JS `<`, `sort()`) and code point order disagree:
// U+1F600 is the surrogate pair D83D DE00, which sorts before U+FFFD by code unit.
const ORDER_KEYS = ['a', 'B', 'é', 'z', '\u{1F600}', '\uFFFD', 'ab']
const ORDER_KEYS_BY_CODE_POINT = ['B', 'a', 'ab', 'z', 'é', '\uFFFD', '\u{1F600}']

const EXACT_VALUES: ReadonlyArray<readonly [string, string]> = [
  ['empty', ''],
  ['emoji', '\u{1F600}👩‍👩‍👧 family, 🇺🇸 flag, e\u0301 combining'],
  ['whitespace', ' \t\n\r\n '],
  ['quotes', `'"\\%_{}[],NULL null`],
  ['json', JSON.stringify({ a: [1, 'two', null], b: { c: '\u2028' } })],
  ['beyond-bmp', '\u{10FFFF}\u{E000}\u{FFFF}'],
  ['long', 'αβγ😀-'.repeat(50_000)],
]

/**
 * Registers the Store contract (docs/kernel.md) as vitest suites, run against a fresh store per
 * test. Every Store implementation runs it unchanged.
 */
export function storeContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store
    let cleanup: (() => Promise<void>) | undefined

    beforeEach(async () => {
      ;({ store, cleanup } = await makeStore())
    })

    afterEach(async () => {
      await cleanup?.()
    })

    function putManyOf(s: Store, ctx: TestContext): PutMany {
      if (!s.putMany) ctx.skip(`${name} has no putMany`)
      return s.putMany.bind(s)
    }

    describe('get, put, delete', () => {
      it('returns undefined for a missing key or namespace', async () => {
        await store.put('ns', 'present', 'v')
        expect(await store.get('ns', 'absent')).toBeUndefined()
        expect(await store.get('other', 'present')).toBeUndefined()
      })

      it('returns exactly the stored string, empty, Unicode and long ones included', async () => {
        for (const [key, value] of EXACT_VALUES) await store.put('ns', key, value)
        for (const [key, value] of EXACT_VALUES) expect(await store.get('ns', key)).toBe(value)
      })

      it('stores keys and namespaces with any Unicode and SQL-special characters exactly', async () => {
        const odd = ["it's", '%', '_', '\\', '\u{1F600}', ' ', 'ns:with:colons', '']
        for (const k of odd) await store.put(k, k, `value of ${k}`)
        for (const k of odd) expect(await store.get(k, k)).toBe(`value of ${k}`)
      })

      it('replaces the value on a second put', async () => {
        await store.put('ns', 'k', 'first')
        await store.put('ns', 'k', 'second')
        expect(await store.get('ns', 'k')).toBe('second')
        expect(await store.list('ns', '')).toEqual(['k'])
      })

      it('deletes only the given key, and deleting again or a missing key is a no-op', async () => {
        await store.put('ns', 'k', 'v')
        await store.put('ns', 'keep', 'v')
        await store.delete('ns', 'k')
        expect(await store.get('ns', 'k')).toBeUndefined()
        await expect(store.delete('ns', 'k')).resolves.toBeUndefined()
        await expect(store.delete('nowhere', 'never')).resolves.toBeUndefined()
        expect(await store.get('ns', 'keep')).toBe('v')
      })

      it('isolates namespaces whose concatenations with the key are equal', async () => {
        await store.put('a', 'b:c', 'first')
        await store.put('a:b', 'c', 'second')
        expect(await store.get('a', 'b:c')).toBe('first')
        expect(await store.get('a:b', 'c')).toBe('second')
        expect(await store.list('a', '')).toEqual(['b:c'])
        expect(await store.list('a:b', '')).toEqual(['c'])
        await store.delete('a', 'b:c')
        expect(await store.get('a:b', 'c')).toBe('second')
      })

      it('rejects a value that is not a string with a TypeError', async () => {
        await expect(store.put('ns', 'k', 42 as unknown as string)).rejects.toBeInstanceOf(
          TypeError,
        )
        expect(await store.get('ns', 'k')).toBeUndefined()
      })
    })

    describe('list', () => {
      it('returns [] when the namespace has no key with the prefix', async () => {
        expect(await store.list('empty', '')).toEqual([])
        await store.put('ns', 'abc', 'v')
        expect(await store.list('ns', 'b')).toEqual([])
        expect(await store.list('ns', 'abcd')).toEqual([])
      })

      it('lists every key of the namespace, and only of it, for the empty prefix', async () => {
        await store.put('ns', 'x', '1')
        await store.put('ns', 'y', '2')
        await store.put('ns2', 'z', '3')
        await store.put('n', 'sx', '4')
        expect(await store.list('ns', '')).toEqual(['x', 'y'])
      })

      it('takes the prefix literally: %, _ and \\ are plain characters', async () => {
        const keys = ['a%b', 'a%', 'axb', 'a_b', 'aXb', 'a\\b', 'a\\\\b', 'ab', 'a\\%', '%', '_']
        for (const k of keys) await store.put('ns', k, 'v')
        expect(await store.list('ns', 'a%')).toEqual(['a%', 'a%b'])
        expect(await store.list('ns', 'a_')).toEqual(['a_b'])
        expect(await store.list('ns', 'a\\')).toEqual(['a\\%', 'a\\\\b', 'a\\b'])
        expect(await store.list('ns', 'a\\\\')).toEqual(['a\\\\b'])
        expect(await store.list('ns', '%')).toEqual(['%'])
        expect(await store.list('ns', '_')).toEqual(['_'])
      })

      it('includes a key equal to the prefix and excludes deleted keys', async () => {
        for (const k of ['run', 'run/1', 'run/2', 'runner']) await store.put('ns', k, 'v')
        await store.delete('ns', 'run/1')
        expect(await store.list('ns', 'run')).toEqual(['run', 'run/2', 'runner'])
        expect(await store.list('ns', 'run/')).toEqual(['run/2'])
      })

      it('orders keys by Unicode code point, not by UTF-16 code unit or locale', async () => {
        expect([...ORDER_KEYS].sort()).not.toEqual(ORDER_KEYS_BY_CODE_POINT)
        for (const k of ORDER_KEYS) await store.put('ns', k, 'v')
        expect(await store.list('ns', '')).toEqual(ORDER_KEYS_BY_CODE_POINT)
        expect(await store.list('ns', 'a')).toEqual(['a', 'ab'])
      })

      it('matches prefixes that end in multi-byte and maximal code points', async () => {
        const keys = ['é', 'éa', 'ê', '\uFFFD', '\uFFFDx', '\u{1F600}', '\u{10FFFF}', '\u{10FFFF}a']
        const more = ['a\u{10FFFF}', 'a\u{10FFFF}b', 'b', '\uD7FF', '\uD7FFz', '\uE000']
        for (const k of [...keys, ...more]) await store.put('ns', k, 'v')
        expect(await store.list('ns', 'é')).toEqual(['é', 'éa'])
        expect(await store.list('ns', '\uFFFD')).toEqual(['\uFFFD', '\uFFFDx'])
        expect(await store.list('ns', '\u{1F600}')).toEqual(['\u{1F600}'])
        expect(await store.list('ns', '\u{10FFFF}')).toEqual(['\u{10FFFF}', '\u{10FFFF}a'])
        expect(await store.list('ns', 'a\u{10FFFF}')).toEqual(['a\u{10FFFF}', 'a\u{10FFFF}b'])
        expect(await store.list('ns', '\uD7FF')).toEqual(['\uD7FF', '\uD7FFz'])
      })
    })

    describe('putMany', () => {
      it('puts every entry, replacing existing values', async (ctx) => {
        const putMany = putManyOf(store, ctx)
        await store.put('ns', 'b', 'old')
        await putMany('ns', [
          ['a', '1'],
          ['b', '2'],
          ['', ''],
        ])
        expect(await store.get('ns', 'a')).toBe('1')
        expect(await store.get('ns', 'b')).toBe('2')
        expect(await store.get('ns', '')).toBe('')
        expect(await store.list('ns', '')).toEqual(['', 'a', 'b'])
      })

      it('keeps the last value of a key given twice', async (ctx) => {
        const putMany = putManyOf(store, ctx)
        await putMany('ns', [
          ['k', 'first'],
          ['other', 'x'],
          ['k', 'last'],
        ])
        expect(await store.get('ns', 'k')).toBe('last')
      })

      it('does nothing for no entries', async (ctx) => {
        const putMany = putManyOf(store, ctx)
        await putMany('ns', [])
        expect(await store.list('ns', '')).toEqual([])
      })

      it('writes nothing when one entry fails', async (ctx) => {
        const putMany = putManyOf(store, ctx)
        await store.put('ns', 'a', 'old')
        const entries = [
          ['a', 'new'],
          ['b', 'new'],
          ['c', 42],
        ] as unknown as Array<[string, string]>
        await expect(putMany('ns', entries)).rejects.toThrow()
        expect(await store.get('ns', 'a')).toBe('old')
        expect(await store.get('ns', 'b')).toBeUndefined()
        expect(await store.list('ns', '')).toEqual(['a'])
      })

      it('joins the transaction of a transaction store and rolls back with it', async (ctx) => {
        putManyOf(store, ctx)
        const boom = new Error('boom')
        const rejected = store.tx(async (t) => {
          await putManyOf(t, ctx)('ns', [
            ['a', '1'],
            ['b', '2'],
          ])
          expect(await t.get('ns', 'a')).toBe('1')
          expect(await t.list('ns', '')).toEqual(['a', 'b'])
          throw boom
        })
        await expect(rejected).rejects.toBe(boom)
        expect(await store.list('ns', '')).toEqual([])
      })

      it('commits with the transaction it joined', async (ctx) => {
        putManyOf(store, ctx)
        await store.tx(async (t) => {
          await putManyOf(t, ctx)('ns', [['a', '1']])
          expect(await store.get('ns', 'a')).toBeUndefined()
        })
        expect(await store.get('ns', 'a')).toBe('1')
      })
    })

    describe('tx', () => {
      it('commits every write when fn resolves and resolves with its value', async () => {
        await store.put('acct', 'gone', 'x')
        const value = await store.tx(async (t) => {
          await t.put('acct', 'a', '90')
          await t.put('acct', 'b', '110')
          await t.delete('acct', 'gone')
          return { ok: true }
        })
        expect(value).toEqual({ ok: true })
        expect(await store.get('acct', 'a')).toBe('90')
        expect(await store.get('acct', 'b')).toBe('110')
        expect(await store.list('acct', '')).toEqual(['a', 'b'])
      })

      it('applies nothing and rejects with fn’s own error when fn throws', async () => {
        await store.put('acct', 'a', '100')
        await store.put('acct', 'gone', 'x')
        const boom = new Error('boom')
        const result = store.tx(async (t) => {
          await t.put('acct', 'a', '90')
          await t.put('acct', 'b', '110')
          await t.delete('acct', 'gone')
          throw boom
        })
        await expect(result).rejects.toBe(boom)
        expect(await store.get('acct', 'a')).toBe('100')
        expect(await store.get('acct', 'b')).toBeUndefined()
        expect(await store.get('acct', 'gone')).toBe('x')
      })

      it('reads its own writes and deletes through get and list', async () => {
        await store.put('ns', 'old', 'o')
        await store.put('ns', 'gone', 'g')
        await store.tx(async (t) => {
          await t.put('ns', 'new', 'n')
          await t.put('ns', 'old', 'o2')
          await t.delete('ns', 'gone')
          expect(await t.get('ns', 'new')).toBe('n')
          expect(await t.get('ns', 'old')).toBe('o2')
          expect(await t.get('ns', 'gone')).toBeUndefined()
          expect(await t.list('ns', '')).toEqual(['new', 'old'])
          expect(await t.list('ns', 'n')).toEqual(['new'])
        })
      })

      it('keeps uncommitted writes invisible outside until commit', async () => {
        await store.put('ns', 'old', 'o')
        await store.put('ns', 'gone', 'g')
        await store.tx(async (t) => {
          await t.put('ns', 'new', 'n')
          await t.put('ns', 'old', 'o2')
          await t.delete('ns', 'gone')
          expect(await store.get('ns', 'new')).toBeUndefined()
          expect(await store.get('ns', 'old')).toBe('o')
          expect(await store.get('ns', 'gone')).toBe('g')
          expect(await store.list('ns', '')).toEqual(['gone', 'old'])
        })
        expect(await store.list('ns', '')).toEqual(['new', 'old'])
        expect(await store.get('ns', 'old')).toBe('o2')
      })

      it('does not lose writes made outside while it runs, whether it commits or not', async () => {
        await store.tx(async (t) => {
          await t.put('ns', 'inside', '1')
          await store.put('ns', 'outside', '2')
        })
        await expect(
          store.tx(async (t) => {
            await t.put('ns', 'inside-2', '3')
            await store.put('ns', 'outside-2', '4')
            throw new Error('roll back')
          }),
        ).rejects.toThrow('roll back')
        expect(await store.list('ns', '')).toEqual(['inside', 'outside', 'outside-2'])
      })

      it('rejects a nested tx with NestedTxError without calling fn', async () => {
        let calls = 0
        await store.tx(async (t) => {
          const nested = t.tx(async () => {
            calls++
          })
          await expect(nested).rejects.toBeInstanceOf(NestedTxError)
          await expect(t.tx(async () => undefined)).rejects.toMatchObject({ code: 'nested-tx' })
          await t.put('ns', 'after', 'still works')
        })
        expect(calls).toBe(0)
        expect(await store.get('ns', 'after')).toBe('still works')
      })

      it('commits two concurrent transactions on different keys', async () => {
        const aWrote = signal()
        const bWrote = signal()
        const results = await Promise.all([
          store.tx(async (t) => {
            await t.put('ns', 'a', '1')
            aWrote.resolve()
            await bWrote.promise
            return 'a'
          }),
          store.tx(async (t) => {
            await t.put('ns', 'b', '2')
            bWrote.resolve()
            await aWrote.promise
            return 'b'
          }),
        ])
        expect(results).toEqual(['a', 'b'])
        expect(await store.list('ns', '')).toEqual(['a', 'b'])
      })

      it('refuses use of the transaction store after the transaction ended', async () => {
        let leaked: Store | undefined
        await store.tx(async (t) => {
          leaked = t
        })
        await expect(leaked!.get('ns', 'k')).rejects.toThrow()
        await expect(leaked!.put('ns', 'k', 'v')).rejects.toThrow()
        expect(await store.get('ns', 'k')).toBeUndefined()
      })
    })
  })
}
