// What a visitor downloads, as served (the precompressed files): npm run build, the size-budget test and the bench.
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { clientOut } from './paths.mjs'

export const isTrackerChunk = (url) => /\/tracker-[^/]+\.js$/.test(url)

/** First paint waits for the shell and one page's chunks: the heaviest page's count. */
export async function sizesOf (manifest) {
  const measure = async (urls) => {
    const total = { raw: 0, gzip: 0, brotli: 0 }
    for (const url of urls) {
      const file = join(clientOut, url)
      total.raw += (await stat(file)).size
      total.gzip += (await stat(`${file}.gz`)).size
      total.brotli += (await stat(`${file}.br`)).size
    }
    return total
  }
  const shell = await measure([manifest.entry, ...manifest.preloads])
  let heaviestPage = { id: null, raw: 0, gzip: 0, brotli: 0 }
  for (const [id, urls] of Object.entries(manifest.pages ?? {})) {
    const page = await measure(urls)
    if (page.gzip > heaviestPage.gzip) heaviestPage = { id, ...page }
  }
  const initial = { raw: shell.raw + heaviestPage.raw, gzip: shell.gzip + heaviestPage.gzip, brotli: shell.brotli + heaviestPage.brotli }
  const trackerChunks = (await readdir(join(clientOut, 'assets'))).map((file) => `/assets/${file}`).filter(isTrackerChunk)
  return { initial, shell, heaviestPage, tracker: await measure(trackerChunks), trackerChunks }
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`

export const describeSizes = ({ initial, shell, heaviestPage, tracker, trackerChunks }) => [
  `initial JavaScript: ${kib(initial.raw)} raw, ${kib(initial.gzip)} gzip, ${kib(initial.brotli)} brotli (shell ${kib(shell.gzip)} + heaviest page "${heaviestPage.id}" ${kib(heaviestPage.gzip)} gzip)`,
  `tracker chunk:      ${kib(tracker.raw)} raw, ${kib(tracker.gzip)} gzip, ${kib(tracker.brotli)} brotli (${trackerChunks.join(', ') || 'none'}; loaded after hydration)`
]
