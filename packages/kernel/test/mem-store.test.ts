import { MemStore } from '@weave/kernel'
import { storeContract } from '../../../test/support/store-contract.js'

storeContract('MemStore', async () => ({ store: new MemStore() }))
