// The .br and .gz files served beside each compressible browser file, so no request compresses.
import { createReadStream, createWriteStream } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { constants, createBrotliCompress, createGzip, gzip as zlibGzip } from 'node:zlib'
import zopfli from '@gfx/zopfli'

const COMPRESSIBLE = /\.(js|css|html|svg|json|webmanifest|ico|txt|map)$/
/**
 * What a visitor downloads first: worth brotli's best and zopfli's gzip (same
 * format, about 3 % fewer bytes than zlib's best). The rest, source maps above
 * all (fetched by developer tools only), takes quality 9: brotli 11 over the
 * maps took 2.3 of the build's 8 seconds for 8 % fewer bytes nobody waits for.
 */
const SHIPPED_CODE = /\.(js|css)$/
const gzip = promisify(zlibGzip)
const brotli = (quality) => createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: quality } })

/**
 * Below it zopfli saves a few bytes a file, for about 90 ms a call whatever the size: zlib's best is used there.
 */
const ZOPFLI_FROM_BYTES = 4096

/** The gzip a browser receives for a script or stylesheet: zopfli's (any gzip client decodes it), or zlib's best when small. */
export const gzipForServing = (bytes) => bytes.length >= ZOPFLI_FROM_BYTES
  ? zopfli.gzipAsync(bytes, { numiterations: 15 })
  : gzip(bytes, { level: 9 })

/** Writes .br and .gz beside each compressible file under `dir`. */
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
