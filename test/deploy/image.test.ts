import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, posix, relative } from 'node:path'
import t from 'tap'
import { partsOf, readImage, ROOT, type Stage } from '../helpers/dockerfile.js'
import { createHosts } from '../helpers/netns.js'
import { freePort, startProcess } from '../helpers/process.js'

/**
 * The container image without a Docker engine: the Dockerfile is parsed, its
 * build context filtered by .dockerignore, its build stage played in a
 * temporary directory, and its runtime stage given exactly the files it
 * copies and the production dependencies it installs. Then its CMD runs with
 * its ENV as an unprivileged user, as PID 1 of its own PID namespace, in a
 * network namespace of its own (it listens on 0.0.0.0).
 */

// A CommonJS function whose types declare an ES default export: required, so both agree.
const ignore = createRequire(import.meta.url)('@balena/dockerignore') as typeof import('@balena/dockerignore').default
const image = readImage()
const SECRETS = {
  SESSION_SECRET: 'image-test-session-secret-0123456789abcdef',
  HONEYPOT_SECRET: 'image-test-honeypot-secret-0123456789abcdef'
}
const NOBODY = 65534

/** Every file of the build context, relative, as the Docker client sends it. */
function buildContext (): string[] {
  const rules = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n')
  const filter = ignore().add(rules)
  const reincluded = rules.map((rule) => rule.trim()).filter((rule) => rule.startsWith('!')).map((rule) => rule.slice(1).replace(/\/$/, ''))
  const files: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        // Like the Docker client: an ignored directory is entered only if a rule may bring part of it back.
        if (!filter.ignores(`${path}/`) || reincluded.some((rule) => rule === path || rule.startsWith(`${path}/`))) walk(path)
      } else if (!filter.ignores(path)) {
        files.push(path)
      }
    }
  }
  walk('')
  return files
}

const run = (stage: Stage) => stage.instructions.filter((instruction) => instruction.getKeyword() === 'RUN').map((instruction) => partsOf(instruction).words.join(' '))

t.test('the Dockerfile: two stages on Node 24, production settings, a non-root user, exec-form CMD and HEALTHCHECK', async (t) => {
  t.ok(image.stages.length >= 2, 'multi-stage')
  const build = image.stages.find((stage) => stage.name === 'build')
  t.ok(build, 'a stage named build')
  t.same(build && run(build).map((command) => command.split(' ').slice(0, 2).join(' ')), ['npm ci', 'npm run'], 'the build stage installs every dependency, then builds')
  for (const stage of image.stages) t.match(stage.image, /^node:24[.\w-]*-slim(@sha256:[0-9a-f]+)?$/, `${stage.name ?? 'a stage'}: Debian slim with Node 24, as package.json's engines asks`)
  t.same(run(image.runtime), ['npm ci --omit=dev --omit=optional --no-audit --no-fund'], 'the runtime stage installs production dependencies only, without the Node that npm scripts run elsewhere')
  t.match(image.env, { NODE_ENV: 'production', HOST: '0.0.0.0' })
  t.match(image.user, /^[1-9]\d*(:\d+)?$/, 'a numeric non-root user, which Kubernetes\' runAsNonRoot can verify')
  t.equal(image.cmd?.[0], 'node', 'CMD runs node itself in exec form, so signals reach it (never npm start)')
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  t.ok(scripts.start?.endsWith(`&& ${image.cmd?.join(' ')}`), 'and starts the server as npm start does, once built')
  t.notOk(image.runtime.instructions.some((instruction) => instruction.getKeyword() === 'ENTRYPOINT'), 'with no entrypoint in front')
  t.equal(image.healthcheck?.[0], 'node', 'HEALTHCHECK in exec form, with node')
  const instructions = image.stages.flatMap((stage) => stage.instructions.map((instruction) => instruction.getArgumentsContent() ?? ''))
  t.notOk(instructions.some((text) => /\b(curl|wget)\b/.test(text)), 'no curl or wget in any instruction')
})

t.test('.dockerignore keeps secrets, history and the host\'s builds out of the build context', async (t) => {
  const context = buildContext()
  for (const needed of ['package.json', 'package-lock.json', '.npmrc', 'build/cli.mjs', 'tsconfig.json', 'src/server/main.ts', 'static/site.webmanifest']) {
    t.ok(context.includes(needed), `sends ${needed}`)
  }
  for (const prefix of ['.git/', 'node_modules/', 'dist/', 'test/', 'coverage/', '.tap/', '.env']) {
    t.notOk(context.some((file) => file.startsWith(prefix)), `leaves out ${prefix}`)
  }
  t.notOk(context.some((file) => /^src\/screens\/[^/]+\/test\//.test(file)), 'leaves out the tests a folder of screens keeps beside it')
  t.ok(context.includes('src/screens/home.tsx'), 'but not the screens')
})

t.test('the runtime stage, played without Docker: serves, passes its HEALTHCHECK as nobody with a read-only app, and exits 0 on SIGTERM', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'agent-stack-image-'))
  // Readable by nobody, like an image's layers; written by root only.
  chmodSync(root, 0o755)
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const context = buildContext()
  const stageRoots = new Map<string, string>()

  /** Plays one stage's WORKDIR, COPY and RUN instructions into its own directory, standing for its filesystem. */
  const play = (stage: Stage, index: number) => {
    const fs = join(root, `stage-${index}`)
    let workdir = '/'
    for (const instruction of stage.instructions) {
      const { flags, words } = partsOf(instruction)
      const keyword = instruction.getKeyword()
      if (keyword === 'WORKDIR') {
        workdir = posix.resolve(workdir, words[0] ?? '/')
        mkdirSync(join(fs, workdir), { recursive: true })
      } else if (keyword === 'COPY') {
        // Docker's rules: a directory's contents go into the destination; a file into it when it ends in "/".
        const sources = words.slice(0, -1)
        const written = words.at(-1) ?? '.'
        const destination = posix.resolve(workdir, written)
        const into = (source: string) => written.endsWith('/') || written === '.' || sources.length > 1 ? join(fs, destination, posix.basename(source)) : join(fs, destination)
        if (flags.from) {
          const from = stageRoots.get(flags.from)
          if (!from) throw new Error(`COPY --from=${flags.from}: no such stage before this one`)
          for (const source of sources) {
            const path = join(from, source)
            cpSync(path, statSync(path).isDirectory() ? join(fs, destination) : into(source), { recursive: true })
          }
        } else {
          for (const source of sources.map((source) => source.replace(/\/$/, ''))) {
            for (const file of context) {
              if (source !== '.' && file !== source && !file.startsWith(`${source}/`)) continue
              const target = file === source ? into(source) : join(fs, destination, source === '.' ? file : relative(source, file))
              mkdirSync(dirname(target), { recursive: true })
              cpSync(join(ROOT, file), target)
            }
          }
        }
      } else if (keyword === 'RUN') {
        const command = words.join(' ')
        const cwd = join(fs, workdir)
        if (/^npm ci\b/.test(command) && !command.includes('--omit=dev')) {
          // Every dependency, exactly as the lockfile says: the ones `npm ci` installed here already.
          symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'))
        } else if (/^npm (ci|run build)\b/.test(command)) {
          execFileSync('sh', ['-c', command], { cwd, stdio: 'pipe', env: { ...process.env, NODE_ENV: '' } })
        } else {
          throw new Error(`RUN ${command}: this test does not know how to play it`)
        }
      }
    }
    if (stage.name) stageRoots.set(stage.name, fs)
    return { fs, app: join(fs, workdir) }
  }
  const played = image.stages.map(play)
  const app = played.at(-1)!.app

  t.ok(existsSync(join(app, 'dist', 'server', 'main.js')), 'the build stage built the server from the build context alone')
  t.ok(existsSync(join(app, 'dist', 'client', 'site.webmanifest')), 'and the client, with static/ in it')
  t.ok(existsSync(join(app, 'node_modules', 'fastify')), 'production dependencies are installed')
  for (const development of ['tap', 'typescript', 'esbuild', 'playwright-core']) {
    t.notOk(existsSync(join(app, 'node_modules', development)), `${development} (a dev dependency) is not`)
  }
  t.notOk(existsSync(join(app, 'node_modules', '.bin', 'node')), 'nor a Node of npm\'s: the image runs its base\'s')
  t.same(readdirSync(app).sort(), ['.npmrc', 'dist', 'node_modules', 'package-lock.json', 'package.json'], 'nothing else is in the app directory: no sources, tests or .env')

  const [uid, gid = uid] = (image.user ?? '').split(':')
  t.equal(Number(uid), NOBODY, 'the image runs as nobody')
  const asUser = ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups']
  const snapshot = () => execFileSync('find', [app, '-printf', '%P %s %T@ %m\n'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const before = snapshot()

  const made = createHosts(t, 1)
  const inNamespace = 'hosts' in made
  const host = inNamespace ? made.hosts[0] : undefined
  if (!host) t.comment(`network namespaces refused (${'refused' in made ? made.refused : ''}): listening on 127.0.0.1 instead of the image's HOST`)
  const port = host ? Number(image.env.PORT ?? 3000) : await freePort()
  const address = host ? host.address : '127.0.0.1'
  const env = { ...image.env, ...SECRETS, ...(host ? {} : { HOST: '127.0.0.1', PORT: String(port) }) }
  // PID 1 of a PID namespace, as in a container: only signals it handles reach it.
  const pidNamespace = spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0
  if (!pidNamespace) t.comment('PID namespaces refused: node runs without being PID 1')
  const asPid1 = pidNamespace ? ['unshare', '--pid', '--fork', '--kill-child'] : []
  // The base image's Node, on its PATH: this test's own (Node 24), in a folder nobody can reach, wherever the
  // project is checked out (npm's node_modules/.bin may sit in a folder only its owner can open).
  const baseBin = join(root, 'base', 'bin')
  mkdirSync(baseBin, { recursive: true })
  copyFileSync(process.execPath, join(baseBin, 'node'))
  chmodSync(join(baseBin, 'node'), 0o755)
  const path = `${baseBin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`
  /** `argv` as the image runs it: in its network namespace, as its user, with exactly its environment (the test runner's hooks stay out). */
  const inImage = (argv: string[], pid1 = false) => {
    const contained = [...(pid1 ? asPid1 : []), ...asUser, 'env', '-i', ...Object.entries({ PATH: path, ...env }).map(([name, value]) => `${name}=${value}`), ...argv]
    return host ? host.command(contained) : contained
  }
  const runInImage = (argv: string[]) => {
    const [command = '', ...args] = inImage(argv)
    return spawnSync(command, args, { cwd: app, encoding: 'utf8', timeout: 10_000 })
  }
  const server = startProcess(t, inImage(image.cmd!, true), {}, app)
  await server.waitForLog((line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at'), 15_000)

  const home = await fetch(`http://${address}:${port}/`, { headers: { accept: 'text/html' } })
  t.equal(home.status, 200, `GET / through ${host ? 'the namespace\'s address' : 'loopback'}`)
  t.match(await home.text(), /^<!DOCTYPE html>[^]*<title>Agent Stack<\/title>[^]*<\/html>$/, 'the whole document')

  const healthcheck = runInImage(image.healthcheck!)
  t.equal(healthcheck.status, 0, 'the HEALTHCHECK command exits 0')
  t.equal(healthcheck.stderr, '')

  const write = runInImage(['node', '-e', "require('node:fs').writeFileSync('written-at-run-time', 'x')"])
  t.not(write.status, 0, 'the app directory is not writable by the image\'s user')
  t.match(write.stderr, /EACCES/)

  const unshare = server.child.pid!
  const nodePid = pidNamespace ? Number(readFileSync(`/proc/${unshare}/task/${unshare}/children`, 'utf8').trim().split(' ')[0]) : unshare
  if (pidNamespace) t.match(readFileSync(`/proc/${nodePid}/status`, 'utf8'), /^NSpid:\s+\d+\s+1$/m, 'node is PID 1 in its namespace')
  t.match(readFileSync(`/proc/${nodePid}/status`, 'utf8'), new RegExp(`^Uid:\\s+${uid}\\s`, 'm'), `and runs as uid ${uid}`)
  process.kill(nodePid, 'SIGTERM')
  t.same(await server.exited, { code: 0, signal: null }, 'SIGTERM: it drains and exits 0')
  t.equal(server.stderr(), '', 'nothing on stderr')

  t.not(runInImage(image.healthcheck!).status, 0, 'with the server gone, the HEALTHCHECK command fails')
  const pretty = runInImage(['env', 'LOG_PRETTY=true', ...image.cmd!])
  t.equal(pretty.status, 1, 'LOG_PRETTY=true, without the devDependency that formats it, stops start-up')
  t.match(pretty.stderr, /^Invalid environment variable LOG_PRETTY="true": expected "false" here: pino-pretty, [^\n]*\n$/, 'with one line naming it')
  t.equal(snapshot(), before, 'nothing in the app directory was written or changed while it ran')
  t.ok(statSync(app).uid === 0 && (statSync(app).mode & 0o022) === 0, 'owned by root and writable by no one else')
})
