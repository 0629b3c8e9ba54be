/** Blocks the event loop in slices, yielding so @fastify/under-pressure's sampler can run, until `done` or the bound. */
export async function blockEventLoop (done: () => boolean, forMs: number, sliceMs = 200): Promise<void> {
  const deadline = Date.now() + forMs
  while (!done() && Date.now() < deadline) {
    const until = Date.now() + sliceMs
    while (Date.now() < until) { /* busy: this is the pressure */ }
    await new Promise((resolve) => setImmediate(resolve))
  }
}
