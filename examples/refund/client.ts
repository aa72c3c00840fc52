// The quick start with @weave/client instead of curl: register the refund graph as Alice, start a
// run of 250 for Ada, approve it as Bob on exactly the material he read, and wait for the end.
// Usage: node --import tsx examples/refund/client.ts <weave url> <Alice's token> <Bob's token>
import { readFile } from 'node:fs/promises'
import { createWeaveClient } from '@weave/client'

const [baseUrl, aliceToken, bobToken] = process.argv.slice(2)
if (!baseUrl || !aliceToken || !bobToken) {
  console.error('usage: client.ts <weave url> <alice token> <bob token>')
  process.exit(2)
}
const alice = createWeaveClient({ baseUrl, token: aliceToken })
const bob = createWeaveClient({ baseUrl, token: bobToken })

const { name, spec, description } = JSON.parse(
  await readFile(new URL('./graph.json', import.meta.url), 'utf8'),
)
const graph = await alice.graphs.register(name, spec, { description })
console.log(JSON.stringify({ graph: graph.name, version: graph.version }))

// The key makes the start safe to retry: the same key returns the same run.
const started = await alice.runs.start(
  'refund',
  { amount: 250, customer: 'ada' },
  { idempotencyKey: `refund-ada-${Date.now()}` },
)
const waiting = await alice.runs.wait(started.id, { until: ['waiting'], timeoutMs: 60_000 })
console.log(JSON.stringify({ status: waiting.status, waitingOn: waiting.waitingOn?.step }))

const [approval] = (await bob.approvals.list({ status: 'pending', runId: started.id })).items
if (!approval) throw new Error('no pending approval')
const decided = await bob.approvals.decide(approval, 'approve', {
  comment: 'customer is in good standing',
})
console.log(JSON.stringify({ approval: approval.title, status: decided.status }))

const done = await alice.runs.wait(started.id, { timeoutMs: 60_000 })
console.log(JSON.stringify({ status: done.status, notified: done.state.notified }))
