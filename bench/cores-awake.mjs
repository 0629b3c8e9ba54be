// Keeps the machine's cores out of idle for as long as the bench runs, through Linux's PM QoS interface: a process
// that holds /dev/cpu_dma_latency open with 0 in it asks every core to poll when idle instead of halting; closing it
// (the process ending, however it ends) withdraws the request. Between answers wrk's core would otherwise halt, and
// each answer the server sends must wake it: in a VM that wakeup is an interrupt the sending core pays, which charged
// a slow server more per request than a fast ceiling (docs/decisions/bench-cores-held-awake.md).
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const PM_QOS_DEVICE = '/dev/cpu_dma_latency'

/**
 * Asks for no idle latency (0 µs) until this process exits. Returns what was done, for the run's report:
 * `{ held: true, device }`, or `{ held: false, device, reason }` when the device cannot be written (no root, not Linux).
 */
export function holdCoresAwake (device = PM_QOS_DEVICE) {
  let fd
  try {
    fd = openSync(device, 'w')
    // The kernel reads a request as a 32-bit integer, in microseconds.
    writeSync(fd, Buffer.alloc(4))
    return { held: true, device }
  } catch (error) {
    if (fd !== undefined) closeSync(fd)
    return { held: false, device, reason: error.code ?? error.message }
  }
}

/**
 * How this machine's cores idle, which decides what holding them awake changes: cpuidle's driver and governor and,
 * under the haltpoll driver (KVM and Firecracker guests), how long an idle core polls before it halts. Each is null
 * where the kernel does not say (`sysfs` stands in for /sys in tests).
 */
export function idleCondition (sysfs = '/sys') {
  const read = (path) => {
    try {
      return readFileSync(join(sysfs, path), 'utf8').trim()
    } catch {
      return null
    }
  }
  const driver = read('devices/system/cpu/cpuidle/current_driver')
  const pollNs = driver === 'haltpoll' ? read('module/haltpoll/parameters/guest_halt_poll_ns') : null
  return {
    driver,
    governor: read('devices/system/cpu/cpuidle/current_governor') ?? read('devices/system/cpu/cpuidle/current_governor_ro'),
    haltPollNs: pollNs === null ? null : Number(pollNs)
  }
}
