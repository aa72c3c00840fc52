import { defineConfig } from 'drizzle-kit'

// Generates the app's SQL migrations from @weave/db's schema: `npx drizzle-kit generate`
// (and `--custom --name=...` for SQL drizzle-kit cannot express). Applied by migrateDatabase().
export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/db/src/schema',
  out: './migrations/app',
})
