import { defineHandler, type HandlerFn } from '@weave/spec'

// The support agent's tools. Each gets the model's arguments (already checked against the
// tool's `parameters` and allowed by the step's rules) and returns what the model is told. Each
// call is logged, so the walk-through shows what ran and what never did.

/** The example's order book (a real one would ask the shop's database). */
const ORDERS: Record<string, { customer: string; total: number; status: string }> = {
  'A-1001': { customer: 'ada', total: 250, status: 'delivered, reported damaged' },
}

/** A handler that logs `tool <name> <arguments>` before it runs. */
function logged(name: string, fn: HandlerFn): HandlerFn {
  return (args, ctx) => {
    console.log(`tool ${name} ${JSON.stringify(args)}`)
    return fn(args, ctx)
  }
}

export const lookupOrder = defineHandler(
  'orders.lookup',
  logged('orders.lookup', (args) => {
    const orderId = String(args.orderId)
    const order = ORDERS[orderId]
    return order === undefined ? { orderId, found: false } : { orderId, found: true, ...order }
  }),
)

/** The payments service's refund (a real one would call it with an idempotency key). */
export const refund = defineHandler(
  'payments.refund',
  logged('payments.refund', (args) => ({
    refundId: `rf_${String(args.orderId)}`,
    orderId: args.orderId ?? null,
    amount: args.amount ?? null,
  })),
)

/** Closes a customer's account; the graph's rules never let the agent reach it. */
export const closeAccount = defineHandler(
  'accounts.close',
  logged('accounts.close', (args) => ({ customer: args.customer ?? null, closed: true })),
)
