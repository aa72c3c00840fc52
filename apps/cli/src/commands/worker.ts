import type { Command } from '../cli-io.js'
import { notYetAvailable } from './not-yet-available.js'

/** `weave worker`: runs a worker that executes runs, resumes, timers and deliveries. */
export const workerCommand: Command = async (_args, io) => notYetAvailable('worker', io)
