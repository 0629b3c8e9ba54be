import type { FastifyInstance, FastifyReply } from 'fastify'

/** One request's state, kept on its reply (docs/decisions/per-request-state.md). */
export interface ReplySlot<Value> {
  /** Once, by the plugin that fills it: Fastify then builds every reply with the slot, in one shape. */
  declare (app: FastifyInstance): void
  get (reply: FastifyReply): Value | null
  set (reply: FastifyReply, value: Value | null): void
}

// A symbol, so that nothing but its module reads it; never a WeakMap keyed by the reply, which V8's scavenges keep.
export function replySlot<Value> (description: string): ReplySlot<Value> {
  const key = Symbol(description)
  const slots = (reply: FastifyReply) => reply as unknown as Record<symbol, Value | null | undefined>
  return {
    declare (app) { app.decorateReply(key, null) },
    get: (reply) => slots(reply)[key] ?? null,
    set (reply, value) { slots(reply)[key] = value }
  }
}
