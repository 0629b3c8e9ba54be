// npm run build. --if-stale: only when dist/ is missing or older than the sources; --quiet: errors only.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { buildClient } from './client.mjs'
import { dist, manifestPath, serverOut } from './paths.mjs'
import { buildServer } from './server.mjs'
import { describeSizes, overBudget, sizesOf } from './sizes.mjs'
import { isStale } from './staleness.mjs'

const args = new Set(process.argv.slice(2))
const log = (line) => { if (!args.has('--quiet')) console.log(line) }

async function buildAll () {
  const started = Date.now()
  await mkdir(dist, { recursive: true })
  await rm(serverOut, { recursive: true, force: true })
  const [manifest] = await Promise.all([buildClient(), buildServer({ mode: 'production' })])
  const sizes = await sizesOf(manifest)
  for (const line of describeSizes(sizes)) log(line)
  const { config } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'))
  for (const line of overBudget(sizes, config)) log(line)
  // Written last: its presence and time mark a complete build (staleness.mjs).
  await writeFile(manifestPath, JSON.stringify(manifest, null, 2))
  log(`built in ${Date.now() - started} ms`)
}

try {
  if (!args.has('--if-stale') || await isStale()) await buildAll()
} catch (error) {
  console.error(error.message)
  process.exitCode = 1
}
