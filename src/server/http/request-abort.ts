import type { FastifyInstance, FastifyReply } from 'fastify'

export class ClientGoneError extends Error {
  constructor () {
    super('the client went away before the response ended')
    this.name = 'ClientGoneError'
  }
}

// On the reply, as a page's deferred parts are (rendering/deferred-parts.ts), not in a WeakMap keyed by it.
const CONTROLLER = Symbol('requestAbort')
type ControllerSlot = { [CONTROLLER]: AbortController | null }

/** The slot on every reply, declared once by the plugin that renders pages. */
export function declareRequestAbort (app: FastifyInstance): void {
  app.decorateReply(CONTROLLER, null)
}

// Also fired by the document's time limit. The response's `close` is watched: the request's fires once its body is read.
export function requestSignal (reply: FastifyReply): AbortSignal {
  const slot = reply as FastifyReply & ControllerSlot
  let controller = slot[CONTROLLER]
  if (!controller) {
    const created = controller = slot[CONTROLLER] = new AbortController()
    reply.raw.once('close', () => { if (!reply.raw.writableEnded) created.abort(new ClientGoneError()) })
  }
  return controller.signal
}

export function abortRequest (reply: FastifyReply, reason: Error): void {
  (reply as FastifyReply & Partial<ControllerSlot>)[CONTROLLER]?.abort(reason)
}

export const clientWentAway = (signal: AbortSignal): boolean => signal.reason instanceof ClientGoneError
