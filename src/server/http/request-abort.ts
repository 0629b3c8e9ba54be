import type { FastifyReply } from 'fastify'

export class ClientGoneError extends Error {
  constructor () {
    super('the client went away before the response ended')
    this.name = 'ClientGoneError'
  }
}

const CONTROLLERS = new WeakMap<FastifyReply, AbortController>()

// Also fired by the document's time limit. The response's `close` is watched: the request's fires once its body is read.
export function requestSignal (reply: FastifyReply): AbortSignal {
  let controller = CONTROLLERS.get(reply)
  if (!controller) {
    const created = controller = new AbortController()
    CONTROLLERS.set(reply, created)
    reply.raw.once('close', () => { if (!reply.raw.writableEnded) created.abort(new ClientGoneError()) })
  }
  return controller.signal
}

export function abortRequest (reply: FastifyReply, reason: Error): void {
  CONTROLLERS.get(reply)?.abort(reason)
}

export const clientWentAway = (signal: AbortSignal): boolean => signal.reason instanceof ClientGoneError
