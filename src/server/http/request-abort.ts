import type { FastifyInstance, FastifyReply } from 'fastify'
import { replySlot } from './reply-slot.js'

export class ClientGoneError extends Error {
  constructor () {
    super('the client went away before the response ended')
    this.name = 'ClientGoneError'
  }
}

const CONTROLLER = replySlot<AbortController>('requestAbort')

/** The slot on every reply, declared once by the plugin that renders pages. */
export const declareRequestAbort = (app: FastifyInstance): void => CONTROLLER.declare(app)

// Also fired by the document's time limit. The response's `close` is watched: the request's fires once its body is read.
export function requestSignal (reply: FastifyReply): AbortSignal {
  const existing = CONTROLLER.get(reply)
  if (existing) return existing.signal
  const controller = new AbortController()
  CONTROLLER.set(reply, controller)
  reply.raw.once('close', () => { if (!reply.raw.writableEnded) controller.abort(new ClientGoneError()) })
  return controller.signal
}

export function abortRequest (reply: FastifyReply, reason: Error): void {
  CONTROLLER.get(reply)?.abort(reason)
}

export const clientWentAway = (signal: AbortSignal): boolean => signal.reason instanceof ClientGoneError
