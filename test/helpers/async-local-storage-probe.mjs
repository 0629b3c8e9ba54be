// Loaded into the built server with --import (test/build/server-bundle.test.ts):
// writes a line on stderr whenever anything enters an AsyncLocalStorage, which
// on Node 20 turns async hooks on for the rest of the process.
import { AsyncLocalStorage } from 'node:async_hooks'

for (const method of ['run', 'enterWith']) {
  const original = AsyncLocalStorage.prototype[method]
  AsyncLocalStorage.prototype[method] = function (...args) {
    process.stderr.write(`AsyncLocalStorage.${method} called\n`)
    return original.apply(this, args)
  }
}
process.stderr.write('probe loaded\n')
