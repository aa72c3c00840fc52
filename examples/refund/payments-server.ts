// A stand-in for the example's payments service: answers every POST /refunds with 201.
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'

const port = 4010
createServer((req, res) => {
  let body = ''
  req.on('data', (chunk: Buffer) => (body += chunk.toString()))
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/refunds') {
      res.writeHead(404).end()
      return
    }
    const refund = { refundId: randomUUID(), request: JSON.parse(body || '{}') as unknown }
    console.log(`refund ${refund.refundId} (idempotency key ${req.headers['idempotency-key']})`)
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(refund))
  })
}).listen(port, '127.0.0.1', () => console.log(`payments stand-in on http://127.0.0.1:${port}`))
