import { execFileSync, spawnSync } from 'node:child_process'
import type { Test } from 'tap'

/** A host of our own: a network namespace joined to this one by a veth pair. */
export interface Host {
  /** The namespace's name. */
  name: string
  /** The host's address, inside the namespace. */
  address: string
  /** Our side of the link: where the host sees our connections come from. */
  peer: string
  /** The command line that runs `argv` inside the namespace. */
  command (argv: string[]): string[]
}

/** Namespaces of runs whose process is gone (killed before their teardown ran): named for it, so ours to remove. */
function removeOrphans (): void {
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? ''
  for (const [, name = '', pid = ''] of listed.matchAll(/^(as(\d+)h\d+)\b/gm)) {
    if (!isAlive(Number(pid))) spawnSync('ip', ['netns', 'delete', name], { stdio: 'ignore' })
  }
}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

function ip (...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] })
}

/**
 * Makes `count` hosts, each in its own network namespace with its own address
 * on a /30 link to this namespace, and removes them at teardown. Names and
 * subnets come from this process's id, so parallel runs never meet. Where
 * namespaces are refused (not root, no iproute2) it makes nothing and says
 * why: the caller falls back and says so.
 */
export function createHosts (t: Test, count: number): { hosts: Host[] } | { refused: string } {
  removeOrphans()
  const tag = `as${process.pid}`
  // 10.(64–127).(0–255).0/26, one block per process id; each host a /30 in it.
  const block = `10.${64 + ((process.pid >> 8) % 64)}.${process.pid % 256}`
  const hosts: Host[] = []
  const cleanup = () => {
    for (const host of hosts) spawnSync('ip', ['netns', 'delete', host.name], { stdio: 'ignore' })
  }
  t.teardown(cleanup)
  try {
    for (let index = 0; index < count; index++) {
      const name = `${tag}h${index}`
      const outside = `${tag}v${index}`
      const peer = `${block}.${index * 4 + 1}`
      const address = `${block}.${index * 4 + 2}`
      ip('netns', 'add', name)
      hosts.push({ name, address, peer, command: (argv) => ['ip', 'netns', 'exec', name, ...argv] })
      ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name)
      ip('addr', 'add', `${peer}/30`, 'dev', outside)
      ip('link', 'set', outside, 'up')
      ip('-n', name, 'addr', 'add', `${address}/30`, 'dev', 'eth0')
      ip('-n', name, 'link', 'set', 'eth0', 'up')
      ip('-n', name, 'link', 'set', 'lo', 'up')
      // Traffic to the host must leave by our veth and nowhere else.
      const route = execFileSync('ip', ['route', 'get', address], { encoding: 'utf8' })
      if (!route.includes(`dev ${outside}`)) throw new Error(`${address} would not be reached through ${outside}: ${route.trim()}`)
    }
    return { hosts }
  } catch (error) {
    cleanup()
    hosts.length = 0
    const reason = error instanceof Error ? ((error as Error & { stderr?: Buffer }).stderr?.toString().trim() || error.message) : String(error)
    return { refused: reason }
  }
}
