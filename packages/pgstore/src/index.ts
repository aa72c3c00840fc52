export { DEFAULT_TENANT_SETTING, PgStore, type PgStoreOptions } from './pg-store.js'
export { migrate } from './migrate.js'
