import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import type { Test } from 'tap'
import { DIST_DIR } from '../../src/server/app.js'

/** The built server, as `npm start` runs it; `npm test` builds before the suite. */
export const SERVER_ENTRY = join(DIST_DIR, 'server', 'main.js')

export type LogLine = Record<string, unknown> & { level?: number, msg?: string }

export interface ServerProcess {
  child: ChildProcess
  /** Everything written to stderr so far. */
  stderr: () => string
  /** Every stdout line so far, parsed as JSON when it is (pino's log lines). */
  logs: () => LogLine[]
  /** Resolves with the first log line matching, or rejects after `timeoutMs`. */
  waitForLog: (matches: (line: LogLine) => boolean, timeoutMs?: number) => Promise<LogLine>
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
}

/**
 * Starts the built server with exactly `env` (plus PATH): nothing leaks in
 * from the test's own environment. The process is killed at teardown if it
 * is still running.
 */
export function startServer (t: Test, env: Record<string, string>, entry = SERVER_ENTRY): ServerProcess {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run "npm run build" (npm test does) first`)
  return startProcess(t, [process.execPath, entry], env)
}

/** Runs `argv` with exactly `env` (plus PATH), reading its log lines; killed at teardown if still running. */
export function startProcess (t: Test, [command = '', ...args]: string[], env: Record<string, string>, cwd?: string): ServerProcess {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {})
  })
  let stdout = ''
  let stderr = ''
  const lines: LogLine[] = []
  const waiters = new Set<() => void>()
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    let newline
    while ((newline = stdout.indexOf('\n')) >= 0) {
      const line = stdout.slice(0, newline)
      stdout = stdout.slice(newline + 1)
      try {
        lines.push(JSON.parse(line))
      } catch {
        lines.push({ msg: line })
      }
    }
    for (const wake of waiters) wake()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  // 'close', not 'exit': by then every line the process wrote has been read.
  let closed = false
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      closed = true
      resolve({ code, signal })
      for (const wake of waiters) wake()
    })
  })
  t.teardown(async () => {
    if (!closed) {
      child.kill('SIGKILL')
      await exited
    }
  })

  function waitForLog (matches: (line: LogLine) => boolean, timeoutMs = 30_000): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = lines.find(matches)
        if (found) return done(() => resolve(found))
        if (closed) {
          return done(() => reject(new Error(`the server exited (${child.exitCode ?? child.signalCode}) before the log line; stderr: ${stderr}`)))
        }
      }
      const timer = setTimeout(() => done(() => reject(new Error(`no such log line within ${timeoutMs} ms; logs: ${JSON.stringify(lines.map((line) => line.msg))}`))), timeoutMs)
      const done = (settle: () => void) => {
        clearTimeout(timer)
        waiters.delete(check)
        settle()
      }
      waiters.add(check)
      check()
    })
  }

  return { child, stderr: () => stderr, logs: () => [...lines], waitForLog, exited }
}

/** A TCP port that was free a moment ago: listen on 0, note the port, close. */
export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (!address || typeof address === 'string') throw new Error('no TCP address')
  return address.port
}

/**
 * Starts the built server on a free port and resolves once it is listening. Load shedding is off unless `env` turns
 * it on: on a busy CI machine a slow event loop would answer 503 to tests about something else.
 */
export async function startListening (t: Test, env: Record<string, string> = {}, entry?: string): Promise<ServerProcess & { url: string, port: number }> {
  const port = await freePort()
  const server = startServer(t, { NODE_ENV: 'test', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), LOAD_SHEDDING_DELAY_MS: '0', ...env }, entry)
  await server.waitForLog((line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at'))
  return { ...server, port, url: `http://127.0.0.1:${port}` }
}

/**
 * Marks a request's path with the test's own id for it. The server logs each
 * request under an id of its own (a client's X-Request-Id is trusted only
 * from a trusted proxy), so tests find their requests by URL instead.
 */
export function marked (path: string, id: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}request=${encodeURIComponent(id)}`
}

/** The log lines with each marked request's lines under the test's id as `requestId`. */
export function byMarkedId (lines: LogLine[]): LogLine[] {
  const ids = new Map<unknown, string>()
  for (const line of lines) {
    const url = (line.req as { url?: unknown } | undefined)?.url
    const id = typeof url === 'string' ? new URL(url, 'http://localhost').searchParams.get('request') : null
    if (id !== null) ids.set(line.requestId, id)
  }
  return lines.map((line) => ids.has(line.requestId) ? { ...line, requestId: ids.get(line.requestId) } : line)
}
