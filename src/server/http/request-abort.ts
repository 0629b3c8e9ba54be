import type { FastifyReply } from 'fastify'

/** The reason a request's signal gives when its client closed the connection before the response ended. */
export class ClientGoneError extends Error {
  constructor () {
    super('the client went away before the response ended')
    this.name = 'ClientGoneError'
  }
}

const CONTROLLERS = new WeakMap<FastifyReply, AbortController>()

/**
 * Fires when the client goes away before the response has ended, or when the document's time limit passes: the
 * loader's slow work and the render stop then. Node's request `close` fires once its body is read, so the response's is watched.
 */
export function requestSignal (reply: FastifyReply): AbortSignal {
  let controller = CONTROLLERS.get(reply)
  if (!controller) {
    const created = controller = new AbortController()
    CONTROLLERS.set(reply, created)
    reply.raw.once('close', () => { if (!reply.raw.writableFinished) created.abort(new ClientGoneError()) })
  }
  return controller.signal
}

export function abortRequest (reply: FastifyReply, reason: Error): void {
  CONTROLLERS.get(reply)?.abort(reason)
}

export const clientWentAway = (signal: AbortSignal): boolean => signal.reason instanceof ClientGoneError
