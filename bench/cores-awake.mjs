// Linux's PM QoS: 0 held in /dev/cpu_dma_latency keeps every core polling, not halting, until the process ends.
// Else each answer must wake wrk's core, which in a VM the sending core pays, charging a slow server more than a
// fast ceiling (docs/decisions/bench-cores-held-awake.md).
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const PM_QOS_DEVICE = '/dev/cpu_dma_latency'

/** `held: false` when the device cannot be written (no root, not Linux). */
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

/** What holding the cores awake changes depends on how they idle; null where the kernel does not say. */
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
