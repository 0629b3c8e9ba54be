import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import type { Test } from 'tap'
import { CHROMIUM_PATH } from './browser.js'

// Chromium driven over the DevTools protocol through its tab target, for what Playwright switches off: it launches
// Chromium with --disable-back-forward-cache, and Chromium refuses to prerender while DevTools is attached to a page
// other than through its tab target (PrerenderingDisabledByDevTools). See /work/shared/PITFALLS.md.

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--no-default-browser-check',
  '--remote-debugging-pipe'
]

/** How long any one wait may take before the test fails, saying what it waited for. */
const WAIT_MS = 15_000

export interface CdpEvent {
  method: string
  params: Record<string, any>
  sessionId?: string
}

interface Pending {
  resolve: (result: any) => void
  reject: (error: Error) => void
  method: string
}

/** One browser's DevTools pipe: commands by session, and every event kept so a wait may find one already past. */
export class DevToolsPipe {
  readonly events: CdpEvent[] = []
  readonly #pending = new Map<number, Pending>()
  readonly #waiters = new Set<(event: CdpEvent) => void>()
  readonly #listeners = new Set<(event: CdpEvent) => void>()
  readonly #input: Writable
  #nextId = 1
  #buffer = ''

  constructor (input: Writable, output: Readable) {
    this.#input = input
    output.setEncoding('utf8')
    // Messages are JSON, each ended by a NUL.
    output.on('data', (chunk: string) => {
      this.#buffer += chunk
      let end: number
      while ((end = this.#buffer.indexOf('\0')) !== -1) {
        const message = JSON.parse(this.#buffer.slice(0, end))
        this.#buffer = this.#buffer.slice(end + 1)
        this.#receive(message)
      }
    })
  }

  send (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> {
    const id = this.#nextId++
    this.#input.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0')
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, method }))
  }

  /** Calls `listener` with every event from now on. */
  onEvent (listener: (event: CdpEvent) => void): void {
    this.#listeners.add(listener)
  }

  /** The first event, past or future, that `matches`; fails naming `what` after WAIT_MS. */
  waitFor (what: string, matches: (event: CdpEvent) => boolean, from = 0): Promise<CdpEvent> {
    const past = this.events.slice(from).find(matches)
    if (past) return Promise.resolve(past)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter)
        reject(new Error(`waited ${WAIT_MS} ms for ${what}`))
      }, WAIT_MS)
      const waiter = (event: CdpEvent) => {
        if (!matches(event)) return
        clearTimeout(timer)
        this.#waiters.delete(waiter)
        resolve(event)
      }
      this.#waiters.add(waiter)
    })
  }

  #receive (message: { id?: number, result?: unknown, error?: { message: string }, method?: string, params?: Record<string, any>, sessionId?: string }) {
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id)
      this.#pending.delete(message.id)
      if (message.error) pending?.reject(new Error(`${pending.method}: ${message.error.message}`))
      else pending?.resolve(message.result)
      return
    }
    const event: CdpEvent = { method: message.method ?? '', params: message.params ?? {}, ...(message.sessionId ? { sessionId: message.sessionId } : {}) }
    this.events.push(event)
    for (const listener of this.#listeners) listener(event)
    for (const waiter of [...this.#waiters]) waiter(event)
  }
}

/** A page target's session: what it shows can be read, and a person's pointer moved over it. */
export class PageSession {
  constructor (readonly pipe: DevToolsPipe, readonly sessionId: string, readonly targetId: string) {}

  send (method: string, params: Record<string, unknown> = {}): Promise<any> {
    return this.pipe.send(method, params, this.sessionId)
  }

  /** The value of `expression` in the page (awaited when a promise); a thrown error fails the test with its text. */
  async evaluate<T> (expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })
    if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`)
    return result.value as T
  }

  /** Resolves once `condition` (an expression) is true in the page, checked on every DOM change. */
  async until (condition: string): Promise<void> {
    await this.evaluate(`new Promise((resolve, reject) => {
      const check = () => { if (${condition}) { observer.disconnect(); clearTimeout(timer); resolve(true) } }
      const observer = new MutationObserver(check)
      const timer = setTimeout(() => { observer.disconnect(); reject(new Error(${JSON.stringify(`never true: ${condition}`)})) }, ${WAIT_MS})
      observer.observe(document, { subtree: true, childList: true, attributes: true })
      check()
    })`)
  }

  /** The middle of the element `selector` names, in the viewport's coordinates. */
  async centreOf (selector: string): Promise<{ x: number, y: number }> {
    return this.evaluate(`(() => {
      const element = document.querySelector(${JSON.stringify(selector)})
      if (!element) throw new Error('no element ' + ${JSON.stringify(selector)})
      element.scrollIntoView({ block: 'center' })
      const box = element.getBoundingClientRect()
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 }
    })()`)
  }

  async hover (selector: string): Promise<void> {
    const { x, y } = await this.centreOf(selector)
    await this.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y })
  }

  async click (selector: string): Promise<void> {
    const { x, y } = await this.centreOf(selector)
    await this.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y })
    await this.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', clickCount: 1 })
    await this.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 })
  }
}

export interface Tab {
  pipe: DevToolsPipe
  /** The tab's session: page targets (the shown page, a prerendered one) attach to it. */
  tabSessionId: string
  /** The tab's page, through every navigation but the activation of a prerendered page. */
  page: PageSession
  /** The target of the first page prerendered after event `from`: it runs while hidden, and is the page shown once activated. */
  prerendered (from?: number): Promise<PageSession>
}

/** The domains each page session reports (Preload for Chromium's verdict on speculation), then the page may run. */
async function enable (page: PageSession, { initScript, media }: TabOptions): Promise<void> {
  // Sent together: a target held at its start answers only once told to run, and handles commands in order.
  await Promise.all([
    ...['Page.enable', 'Runtime.enable', 'Preload.enable', 'Network.enable'].map((method) => page.send(method)),
    ...(initScript ? [page.send('Page.addScriptToEvaluateOnNewDocument', { source: initScript })] : []),
    ...(media ? [page.send('Emulation.setEmulatedMedia', { features: Object.entries(media).map(([name, value]) => ({ name, value })) })] : []),
    page.send('Runtime.runIfWaitingForDebugger')
  ])
}

/**
 * Launches Chromium with a DevTools pipe and no switch that turns speculation
 * or the back/forward cache off, opens one tab and attaches through its tab
 * target; killed at teardown.
 */
export interface TabOptions {
  /** Runs first in every document of every page target, prerendered ones included. */
  initScript?: string
  /** Media features every page target reports, e.g. `{ 'prefers-reduced-motion': 'reduce' }`. */
  media?: Record<string, string>
}

export async function openTab (t: Test, options: TabOptions = {}): Promise<Tab> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: the browser tests need it (apt-get install -y chromium, or set CHROMIUM_PATH)`)
  }
  const profile = await mkdtemp(join(tmpdir(), 'agent-stack-tab-target-'))
  const child = spawn(CHROMIUM_PATH, [...ARGS, `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] })
  const stderr: string[] = []
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  t.teardown(async () => {
    child.kill()
    await exited
    for (const stream of child.stdio) stream?.destroy()
    // Chromium's helper processes may still be writing to the profile as the browser exits.
    await rm(profile, { recursive: true, force: true, maxRetries: 10 })
  })
  // Chromium reads commands from its fd 3 and writes to fd 4.
  const pipe = new DevToolsPipe(child.stdio[3] as Writable, child.stdio[4] as Readable)
  child.once('exit', (code) => { if (code !== 0 && code !== null) t.comment(`Chromium exited with ${code}: ${stderr.join('').slice(-2000)}`) })

  const { targetInfos } = await pipe.send('Target.getTargets', { filter: [{ type: 'tab' }] })
  const tab = (targetInfos as Array<{ targetId: string, type: string }>).find((target) => target.type === 'tab')
  if (!tab) throw new Error('Chromium has no tab to attach to')
  const { sessionId: tabSessionId } = await pipe.send('Target.attachToTarget', { targetId: tab.targetId, flatten: true })
  const sessions = new Map<string, Promise<PageSession>>()
  const attached = (event: CdpEvent) => event.method === 'Target.attachedToTarget' && event.sessionId === tabSessionId && event.params.targetInfo?.type === 'page'
  const sessionOf = (event: CdpEvent): Promise<PageSession> => {
    const { sessionId, targetInfo } = event.params as { sessionId: string, targetInfo: { targetId: string } }
    let session = sessions.get(sessionId)
    if (!session) {
      const page = new PageSession(pipe, sessionId, targetInfo.targetId)
      session = enable(page, options).then(() => page)
      sessions.set(sessionId, session)
    }
    return session
  }
  // Each page target (the tab's page, then any prerendered page) is attached as it appears, and held until its
  // domains are enabled, so no event of its start is missed.
  pipe.onEvent((event) => { if (attached(event)) void sessionOf(event) })
  await pipe.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, tabSessionId)
  const page = await sessionOf(await pipe.waitFor('the tab\'s page to attach', attached))

  // A page held in the back/forward cache is frozen and would never answer: a target is found by its attachment.
  async function prerendered (from = 0): Promise<PageSession> {
    return sessionOf(await pipe.waitFor('a prerendered page', (event) => attached(event) && event.params.targetInfo.subtype === 'prerender', from))
  }
  return { pipe, tabSessionId, page, prerendered }
}

/** Navigates the page as typing an address does, and waits for its load event. */
export async function navigate (page: PageSession, url: string): Promise<void> {
  const from = page.pipe.events.length
  const { errorText } = await page.send('Page.navigate', { url })
  if (errorText) throw new Error(`navigating to ${url}: ${errorText}`)
  await page.pipe.waitFor(`the load of ${url}`, (event) => event.method === 'Page.loadEventFired' && event.sessionId === page.sessionId, from)
}

/** Clicks the link `selector` names and waits for the page it leads to to load (not for a prerendered one: it is loaded). */
export async function follow (page: PageSession, selector: string): Promise<void> {
  const from = page.pipe.events.length
  await page.click(selector)
  await page.pipe.waitFor(`the load of the page ${selector} leads to`, (event) => event.method === 'Page.loadEventFired' && event.sessionId === page.sessionId, from)
}

export interface PrerenderVerdict {
  status: string
  /** Why Chromium gave up (PrerenderFinalStatus), when it did. */
  reason?: string
  url: string
}

/** Chromium's verdict on a prerender of `url` started from `page`: Ready once rendered, Success once shown, or Failure. */
export async function prerenderReaches (page: PageSession, url: string, status: 'Ready' | 'Success', from = 0): Promise<PrerenderVerdict> {
  const event = await page.pipe.waitFor(`the prerender of ${url} to be ${status}`, (event) =>
    event.method === 'Preload.prerenderStatusUpdated' && event.params.key?.url === url && (event.params.status === status || event.params.status === 'Failure'), from)
  const { status: reached, prerenderStatus, disallowedMojoInterface, mismatchedHeaders } = event.params
  const reason = [prerenderStatus, disallowedMojoInterface, mismatchedHeaders && JSON.stringify(mismatchedHeaders)].filter(Boolean).join(' ')
  return { status: reached, url, ...(reason ? { reason } : {}) }
}
