import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { isPublicAddress } from '@weave/spec'
import type { Socket } from 'node:net'

/** The addresses client sockets of this process were about to connect to. */
export interface DialedAddresses {
  readonly addresses: string[]
  stop(): void
}

/**
 * Records the address of every outgoing TCP connection once it is resolved, and cuts those to
 * public addresses before they connect, so a test can show where a request would have gone
 * without sending anything off this machine.
 */
export function recordDialedAddresses(): DialedAddresses {
  const addresses: string[] = []
  const onSocket = (message: unknown) => {
    const socket = (message as { socket: Socket }).socket
    // The request attaches its own error listener a tick later; the cut must not crash before.
    socket.on('error', () => undefined)
    socket.on('lookup', (_err: Error | null, address: string) => {
      addresses.push(address)
      if (isPublicAddress(address)) socket.destroy(new Error('test: no traffic off this machine'))
    })
  }
  subscribe('net.client.socket', onSocket)
  return { addresses, stop: () => unsubscribe('net.client.socket', onSocket) }
}
