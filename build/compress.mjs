// The .br and .gz files served beside each compressible browser file, so no request compresses.
import { createReadStream, createWriteStream } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { constants, createBrotliCompress, createGzip, gzip as zlibGzip } from 'node:zlib'
import zopfli from '@gfx/zopfli'

const COMPRESSIBLE = /\.(js|css|html|svg|json|webmanifest|ico|txt|map)$/
/** What a visitor downloads first gets zopfli and brotli's best; the rest, maps above all, quality 9 (first-javascript.md). */
const SHIPPED_CODE = /\.(js|css)$/
const gzip = promisify(zlibGzip)
const brotli = (quality) => createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: quality } })

/** A zopfli call costs the same whatever the size: below this, zlib's best (docs/decisions/first-javascript.md). */
const ZOPFLI_FROM_BYTES = 4096

export const gzipForServing = (bytes) => bytes.length >= ZOPFLI_FROM_BYTES
  ? zopfli.gzipAsync(bytes, { numiterations: 15 })
  : gzip(bytes, { level: 9 })

export async function precompress (dir) {
  const files = (await readdir(dir, { withFileTypes: true, recursive: true }))
    .filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name))
    .map((entry) => ({ name: entry.name, file: join(entry.parentPath, entry.name) }))
  await Promise.all(files.map(({ name, file }) => Promise.all([
    pipeline(createReadStream(file), brotli(SHIPPED_CODE.test(name) ? 11 : 9), createWriteStream(`${file}.br`)),
    SHIPPED_CODE.test(name)
      ? readFile(file).then(gzipForServing).then((gzip) => writeFile(`${file}.gz`, gzip))
      : pipeline(createReadStream(file), createGzip({ level: 9 }), createWriteStream(`${file}.gz`))
  ])))
}
