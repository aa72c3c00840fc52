import { describe, expect, it } from 'vitest'
import { createEgressPolicy, isPublicAddress } from '@weave/spec'

const publicLookup = async () => ['93.184.215.14']
const check = (allow: string[], url: string, lookup = publicLookup) =>
  createEgressPolicy(allow, lookup).check(new URL(url))

describe('egress policy', () => {
  it('matches host names, wildcards for subdomains only, and host:port', async () => {
    expect(await check(['api.example.com'], 'https://API.example.com/x')).toBeUndefined()
    expect(await check(['*.example.com'], 'https://a.b.example.com/x')).toBeUndefined()
    expect(await check(['*.example.com'], 'https://example.com/x')).toMatch(
      /not in the http allow list/,
    )
    expect(await check(['api.example.com:8443'], 'https://api.example.com:8443/')).toBeUndefined()
    expect(await check(['api.example.com:443'], 'https://api.example.com/')).toBeUndefined()
    expect(await check(['api.example.com:8443'], 'https://api.example.com/')).toMatch(/not in/)
  })

  it('lets an exactly listed host reach a private address', async () => {
    expect(
      await check(['localhost'], 'http://localhost:3000/', async () => ['127.0.0.1']),
    ).toBeUndefined()
    expect(await check(['[::1]:8080'], 'http://[::1]:8080/')).toBeUndefined()
    expect(await check(['::1'], 'http://[0:0::1]/')).toBeUndefined()
  })

  it('refuses when any resolved address is not public', async () => {
    const mixed = async () => ['93.184.215.14', 'fe80::1']
    expect(await check([], 'https://x.example/', mixed)).toMatch(/non-public address fe80::1/)
    expect(await check([], 'https://x.example/', async () => [])).toMatch(/has no address/)
  })

  it('refuses credentials in the URL and rejects malformed entries', async () => {
    expect(await check([], 'https://u:p@x.example/')).toMatch(/credentials/)
    expect(() => createEgressPolicy(['*.10.0.0.1'])).toThrow(TypeError)
    expect(() => createEgressPolicy(['exa mple.com'])).toThrow(TypeError)
  })
})

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['127.0.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::', false],
    ['::1', false],
    ['fe80::1%eth0', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:a00:1', false],
    ['64:ff9b::a00:1', false],
    ['2002:c0a8:101::', false],
    ['2001:db8::1', false],
    ['not-an-ip', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected)
  })
})
