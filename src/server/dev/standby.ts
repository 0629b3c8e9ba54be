import { pathToFileURL } from 'node:url'

// A server in waiting with its packages loaded, so a new build starts fast (docs/decisions/development-loop.md).

interface Preload { type: 'preload', packages: string[] }
interface Start { type: 'start', entry: string }

const isMessage = <T extends { type: string }>(message: unknown, type: T['type']): message is T =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type

// Until it starts, nothing holds it when dev-loop.mjs is gone; once started, the server's own tools do (dev-tools.ts).
const leave = () => process.exit(0)
process.once('disconnect', leave)

process.on('message', function onMessage (message: unknown) {
  if (isMessage<Preload>(message, 'preload')) {
    // A package that fails to load here fails in the server too, where its error is reported.
    for (const name of message.packages) import(name).catch(() => {})
  } else if (isMessage<Start>(message, 'start')) {
    process.off('message', onMessage)
    process.off('disconnect', leave)
    import(pathToFileURL(message.entry).href).catch((error: unknown) => {
      console.error(error)
      process.exit(1)
    })
  }
})
