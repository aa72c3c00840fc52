import { defineHandler } from '@weave/spec'

/** The example's CRM: records what the customer is told (a real one would call the CRM's API). */
export const notifyCustomer = defineHandler('crm.notify', (state) => {
  const refunded = typeof state.refundResult === 'object' && state.refundResult !== null
  return {
    notified: {
      customer: state.customer ?? null,
      message: refunded ? 'Your refund is on its way.' : 'Your refund was not approved.',
    },
  }
})
