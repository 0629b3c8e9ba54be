import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { cp, mkdtemp, readdir, readFile, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { launchBrowser, openPage, waitForHydration, type WatchedPage } from '../helpers/browser.js'
import { TEST_SECRETS } from '../helpers/app.js'
import { freePort, startListening } from '../helpers/process.js'

/**
 * `npm run dev` end to end, on a copy of the project: a page open in
 * Chromium follows every edit of a component without a manual reload, shows
 * a broken build in an overlay while the last good build keeps serving, and
 * recovers with the fix; a render error shows its component stack in source
 * files; a hydration mismatch says what differs (React's development build);
 * type errors reach the terminal without holding the rebuild back; a
 * production build made meanwhile and the loop's builds leave each other's
 * files alone; each request is one log line and assets none; and stopping the
 * loop, as an editor or Ctrl-C does, leaves no process behind and the port free.
 */

t.setTimeout(240_000)

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const HOME = 'src/screens/home.tsx'
const ORIGINAL_TEXT = 'The shell every screen of Agent Stack is rendered in.'

/** A copy of what `npm run dev` reads, sharing node_modules; removed at teardown. */
async function projectCopy (t: Test): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dev-loop-')))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const entry of ['src', 'static', 'build', 'package.json', 'tsconfig.json']) await cp(join(ROOT, entry), join(dir, entry), { recursive: true })
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

/** Every process whose working directory is inside `dir`: what `npm run dev` started there, and anything it left behind. */
async function processesIn (dir: string): Promise<string[]> {
  const found: string[] = []
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null)
    if (cwd === dir || cwd?.startsWith(`${dir}/`)) {
      found.push(`${pid} ${(await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ').trim()}`)
    }
  }
  return found
}

interface DevLoop {
  npm: ChildProcess
  url: string
  /** Everything the loop printed so far (the build, the server's log, the type checker). */
  output: () => string
  waitForOutput: (pattern: RegExp, timeoutMs: number, from?: number) => Promise<void>
  exited: Promise<unknown>
}

/** `npm run dev` in `dir` on a free port, in a process group of its own; killed with it at teardown if still running. */
async function startDevLoop (t: Test, dir: string): Promise<DevLoop> {
  const port = await freePort()
  // A person's shell: nothing of this run of tap, which hands its process tracking (coverage, and
  // signal handlers of its own) to whatever a test spawns, through variables that `env -i` leaves behind.
  const person = ['PATH', 'HOME'].flatMap((name) => process.env[name] === undefined ? [] : [`${name}=${process.env[name]}`])
  const npm = spawn('env', ['-i', ...person, `PORT=${port}`, 'HOST=127.0.0.1', 'npm', 'run', 'dev'], { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const waiters = new Set<() => void>()
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8')
    for (const wake of waiters) wake()
  }
  npm.stdout?.on('data', append)
  npm.stderr?.on('data', append)
  const exited = new Promise((resolve) => npm.once('exit', resolve))
  t.teardown(async () => {
    if (npm.exitCode === null && npm.signalCode === null) {
      try { process.kill(-npm.pid!, 'SIGKILL') } catch {}
      await exited
    }
  })
  const waitForOutput = (pattern: RegExp, timeoutMs: number, from = 0) => new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!pattern.test(output.slice(from))) return
      done()
      resolve()
    }
    const timer = setTimeout(() => {
      done()
      reject(new Error(`no ${pattern} within ${timeoutMs} ms; the loop printed:\n${output.slice(from)}`))
    }, timeoutMs)
    const done = () => {
      clearTimeout(timer)
      waiters.delete(check)
    }
    waiters.add(check)
    check()
  })
  await waitForOutput(new RegExp(`Server listening at http://127\\.0\\.0\\.1:${port}`), 90_000)
  return { npm, url: `http://127.0.0.1:${port}`, output: () => output, waitForOutput, exited }
}

/** Counts the documents the page commits: a reload is one more. */
function countLoads (page: Page): () => number {
  let loads = 0
  page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) loads++ })
  return () => loads
}

/** Each browser file the home page at `url` names, with the status it answers. */
async function assetStatuses (url: string): Promise<string[]> {
  const html = await (await fetch(`${url}/`, { headers: { accept: 'text/html' } })).text()
  const paths = [...new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map(([, path]) => path))]
  return Promise.all(paths.map(async (path) => `${(await fetch(`${url}${path}`)).status} ${path}`))
}

/** Every browser file of the home page at `url` answers 200; says which did not. */
async function servesItsAssets (t: Test, url: string, server: string): Promise<void> {
  const statuses = await assetStatuses(url)
  t.ok(statuses.some((status) => status.endsWith('.css')) && statuses.some((status) => status.endsWith('.js')), `${server}: the page names its stylesheet and scripts`)
  t.same(statuses.filter((status) => !status.startsWith('200 ')), [], `${server}: each answers 200`)
}

const overlayText = (page: Page) => page.evaluate(() => document.querySelector('agent-stack-dev-overlay')?.shadowRoot?.textContent ?? null)

async function edit (dir: string, change: (source: string) => string): Promise<void> {
  const file = join(dir, HOME)
  const before = await readFile(file, 'utf8')
  const after = change(before)
  if (after === before) throw new Error('the edit changed nothing')
  await writeFile(file, after)
}

/** Waits for `text` in the page's paragraph, at most `timeoutMs`. */
async function shows ({ page }: WatchedPage, text: string, timeoutMs: number): Promise<void> {
  await page.waitForFunction((text) => document.querySelector('main p')?.textContent === text, text, { timeout: timeoutMs })
}

t.test('the development loop follows edits, build errors, render errors and its own stop', async (t) => {
  const dir = await projectCopy(t)
  const loop = await startDevLoop(t, dir)
  const browser = await launchBrowser(t)
  const watched = await openPage(browser)
  const { page, problems } = watched
  const loads = countLoads(page)
  await page.goto(`${loop.url}/`)
  await waitForHydration(watched)
  t.equal(loads(), 1)

  await t.test('an edit shows within 5 s, by one reload the page did by itself', async (t) => {
    // As a person starts: the loop has settled (the type checker's first pass is done).
    await loop.waitForOutput(/Found \d+ errors?\. Watching for file changes/, 120_000)
    await edit(dir, (source) => source.replace(ORIGINAL_TEXT, 'Edited while the page was open.'))
    const started = Date.now()
    await shows(watched, 'Edited while the page was open.', 5000)
    t.comment(`shown ${Date.now() - started} ms after the save`)
    await waitForHydration(watched)
    t.equal(loads(), 2, 'exactly one reload')
  })

  await t.test('a broken build: the overlay names file, line and message; the last good build keeps serving', async (t) => {
    const from = loop.output().length
    await edit(dir, (source) => source.replace('</p>', '</q>'))
    await page.waitForFunction(() => document.querySelector('agent-stack-dev-overlay') !== null, undefined, { timeout: 10_000 })
    const text = await overlayText(page)
    t.match(text, 'The build failed: the last good build is still served')
    // The line the edit broke, wherever the home screen has it.
    const line = (await readFile(join(dir, HOME), 'utf8')).split('\n').findIndex((code) => code.includes('</q>')) + 1
    t.match(text, new RegExp(`src/screens/home\\.tsx:${line}:\\d+`), 'the file and line')
    t.match(text, 'Unexpected closing "q" tag does not match opening "p" tag', 'esbuild’s message')
    t.equal(loads(), 2, 'the page stayed')
    await loop.waitForOutput(/Unexpected closing "q" tag/, 10_000, from)
    t.pass('the terminal shows the error too')
    const served = await (await fetch(`${loop.url}/`, { headers: { accept: 'text/html' } })).text()
    t.match(served, 'Edited while the page was open.', 'the last good build answers')
    // A page opened now learns of the failure as it connects.
    const late = await openPage(browser)
    await late.page.goto(`${loop.url}/`)
    await late.page.waitForFunction(() => document.querySelector('agent-stack-dev-overlay') !== null, undefined, { timeout: 10_000 })
    await late.context.close()
  })

  await t.test('the fix: the page reloads, without the overlay, showing the fixed text', async (t) => {
    await edit(dir, (source) => source.replace('Edited while the page was open.</q>', 'Fixed.</p>'))
    await shows(watched, 'Fixed.', 10_000)
    await waitForHydration(watched)
    t.equal(await overlayText(page), null, 'no overlay')
    t.equal(loads(), 3)
  })

  await t.test('a render error: its message and component stack, in source files', async (t) => {
    await edit(dir, (source) => source.replace('return (', "if (Date.now() > 0) throw new Error('the home page broke on purpose')\n  return ("))
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Something went wrong', undefined, { timeout: 10_000 })
    await page.waitForFunction(() => document.querySelector('agent-stack-dev-overlay') !== null, undefined, { timeout: 10_000 })
    const text = await overlayText(page)
    t.match(text, 'The page failed to render')
    t.match(text, 'Error: the home page broke on purpose')
    t.match(text, /at HomeScreen \(src\/screens\/home\.tsx:\d+:\d+\)\s+at Outlet \(src\/ui\/app\.tsx:\d+:\d+\)/, 'the component stack, mapped from the bundle to the sources')
    await edit(dir, (source) => source.replace("if (Date.now() > 0) throw new Error('the home page broke on purpose')\n  ", ''))
    await shows(watched, 'Fixed.', 10_000)
  })

  // The mismatch below makes errors of its own; every other step must leave the console clean.
  let mismatchProblems: [number, number] = [0, 0]
  await t.test('a hydration mismatch says what differs, with React’s development build in the browser', async (t) => {
    const problemsSoFar = problems.length
    await edit(dir, (source) => source.replace('Fixed.', "{typeof window === 'undefined' ? 'Rendered on the server' : 'Rendered in the browser'}"))
    await shows(watched, 'Rendered in the browser', 10_000)
    // React reports a recoverable error with reportError: an uncaught error for the page.
    const errors = problems.slice(problemsSoFar).join('\n')
    mismatchProblems = [problemsSoFar, problems.length]
    t.match(errors, /Hydration failed because the server rendered text didn't match the client/, 'React explains the mismatch')
    t.match(errors, /\+\s+Rendered in the browser/, 'with what the browser rendered')
    t.match(errors, /-\s+Rendered on the server/, 'and what the server did')
    t.notMatch(errors, /Minified React error/)
  })

  await t.test('type errors reach the terminal and hold nothing back', async (t) => {
    const from = loop.output().length
    await edit(dir, (source) => source.replace("{typeof window === 'undefined' ? 'Rendered on the server' : 'Rendered in the browser'}", '{count}').replace('return (', "const count: number = 'Typed wrongly'\n  return ("))
    await shows(watched, 'Typed wrongly', 10_000)
    t.pass('the edit was built and served at once')
    await loop.waitForOutput(/src\/screens\/home\.tsx[(:]\d+[,:]\d+\)?: error TS2322/, 120_000, from)
    t.pass('tsc reported the type error')
  })

  // Regression: both builds wrote dist/client and dist/manifest.json, so `npm run build` (or `npm test -- <file>`,
  // `npm start`) during the loop left the development server's pages without styles or scripts, and the loop's next
  // build left the production server's so.
  await t.test('a production build beside the loop: each server keeps serving its own files', async (t) => {
    await promisify(execFile)(process.execPath, ['build/cli.mjs', '--quiet'], { cwd: dir })
    await servesItsAssets(t, loop.url, 'the development server, after the production build')
    const production = await startListening(t, { ...TEST_SECRETS, NODE_ENV: 'production' }, join(dir, 'dist', 'server', 'main.js'))
    await servesItsAssets(t, production.url, 'the production server')
    await edit(dir, (source) => source.replace("const count: number = 'Typed wrongly'", "const count = 'Rebuilt beside a production build'"))
    await shows(watched, 'Rebuilt beside a production build', 10_000)
    await servesItsAssets(t, loop.url, 'the development server, rebuilt')
    await servesItsAssets(t, production.url, 'the production server, after the loop rebuilt')
  })

  await t.test('the log: a line per request, none for assets', async (t) => {
    const output = loop.output()
    t.match(output, /INFO: GET \/ 200 \d+ ms/)
    t.notMatch(output, /GET \/assets\//, 'no asset was logged')
    t.notMatch(output, /incoming request|request completed/)
    // Regression: the server's compile cache, a folder beside the built files, made every later build fail to clean up.
    t.notMatch(output, /could not be written/, 'every build was written whole')
  })

  // Expected besides: connections refused while a server restarts, the 503 of the event stream reconnecting to the
  // server that is closing (Fastify's answer to a request on a connection it is closing), and the 500 of the render error.
  const [mismatchStart, mismatchEnd] = mismatchProblems
  const others = [...problems.slice(0, mismatchStart), ...problems.slice(mismatchEnd)]
  t.same(others.filter((problem) => !/ERR_CONNECTION_REFUSED|status of 500|status of 503/.test(problem)), [], 'no other console error or warning (no hydration warning from the overlay)')
  // A failed resource is named only by its message's location.
  const refused = watched.messages.filter((message) => /status of 503/.test(message.text()))
  t.same(refused.map((message) => new URL(message.location().url).pathname).filter((path) => path !== '/__dev/events'), [], 'every 503 was the event stream\'s')
  await page.close()

  await t.test('stopped as an editor does (SIGTERM to npm): nothing is left running, the port is free', async (t) => {
    process.kill(loop.npm.pid!, 'SIGTERM')
    await loop.exited
    await loop.waitForOutput(/stopping/, 10_000)
    const deadline = Date.now() + 10_000
    while ((await processesIn(dir)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    const survivors = await processesIn(dir)
    t.same(survivors, [], `no process of the loop survives: ${survivors.join(', ')}`)
    await t.rejects(fetch(`${loop.url}/`), 'nothing answers on the port')
  })

  await t.test('stopped with Ctrl-C (SIGINT to the whole group): the same', async (t) => {
    const again = await startDevLoop(t, dir)
    process.kill(-again.npm.pid!, 'SIGINT')
    await again.exited
    const deadline = Date.now() + 10_000
    while ((await processesIn(dir)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    const survivors = await processesIn(dir)
    t.same(survivors, [], `no process of the loop survives: ${survivors.join(', ')}`)
    await t.rejects(fetch(`${again.url}/`), 'nothing answers on the port')
  })
})
