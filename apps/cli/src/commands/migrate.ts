import type { Command } from '../cli-io.js'
import { notYetAvailable } from './not-yet-available.js'

/** `weave migrate`: creates the database when missing and applies the migrations. */
export const migrateCommand: Command = async (_args, io) => notYetAvailable('migrate', io)
