import { foreignKey, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'
import { tenants } from './tenants.js'

/** A named graph of a tenant; its specs live in `graph_versions`. */
export const graphs = pgTable(
  'graphs',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    archivedAt: timestamptz('archived_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] }), tenantIsolation()],
)

/** Immutable versions of a graph's spec, numbered 1, 2, … per graph. */
export const graphVersions = pgTable(
  'graph_versions',
  {
    tenantId: text('tenant_id').notNull(),
    graphName: text('graph_name').notNull(),
    version: integer('version').notNull(),
    spec: jsonb('spec').notNull(),
    digest: text('digest').notNull(),
    // The version of each subgraph the spec names without one, bound when this version was
    // registered, so every worker runs the same child: { "<graph>": <version> }.
    subgraphVersions: jsonb('subgraph_versions')
      .$type<Record<string, number>>()
      .notNull()
      .default({}),
    description: text('description'),
    createdBy: text('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.graphName, t.version] }),
    foreignKey({
      columns: [t.tenantId, t.graphName],
      foreignColumns: [graphs.tenantId, graphs.name],
    }),
    tenantIsolation(),
  ],
)
