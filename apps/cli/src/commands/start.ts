import type { Command } from '../cli-io.js'
import { notYetAvailable } from './not-yet-available.js'

/** `weave start`: migrates, then runs the API and a worker in one process. */
export const startCommand: Command = async (_args, io) => notYetAvailable('start', io)
