import t from 'tap'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { holdCoresAwake, idleCondition } from '../../bench/cores-awake.mjs'

// The bench asks the kernel to keep every core out of idle while it runs: a 32-bit 0 (µs of idle latency) written
// to the PM QoS device and left open. A plain file stands in for the device.
t.test('the request is one 32-bit zero, and is reported as held', async (t) => {
  const folder = await mkdtemp(join(tmpdir(), 'cores-awake-'))
  t.teardown(() => rm(folder, { recursive: true }))
  const device = join(folder, 'cpu_dma_latency')
  await writeFile(device, 'stale')
  t.same(holdCoresAwake(device), { held: true, device })
  t.same([...await readFile(device)], [0, 0, 0, 0])
})

t.test('a device that cannot be written is reported with its reason, and the bench goes on', async (t) => {
  const device = join(tmpdir(), 'no-such-directory-for-cores-awake', 'cpu_dma_latency')
  t.same(holdCoresAwake(device), { held: false, device, reason: 'ENOENT' })
})

// Holding the cores awake matters as much as the machine's idle driver makes it: the run records that driver.
t.test('the idle condition is read from sysfs: the driver, its governor, and haltpoll\'s polling time', async (t) => {
  const sysfs = await mkdtemp(join(tmpdir(), 'idle-condition-'))
  t.teardown(() => rm(sysfs, { recursive: true }))
  await mkdir(join(sysfs, 'devices/system/cpu/cpuidle'), { recursive: true })
  await mkdir(join(sysfs, 'module/haltpoll/parameters'), { recursive: true })
  await writeFile(join(sysfs, 'devices/system/cpu/cpuidle/current_driver'), 'haltpoll\n')
  await writeFile(join(sysfs, 'devices/system/cpu/cpuidle/current_governor_ro'), 'haltpoll\n')
  await writeFile(join(sysfs, 'module/haltpoll/parameters/guest_halt_poll_ns'), '0\n')
  t.same(idleCondition(sysfs), { driver: 'haltpoll', governor: 'haltpoll', haltPollNs: 0 })

  await writeFile(join(sysfs, 'devices/system/cpu/cpuidle/current_driver'), 'intel_idle\n')
  t.same(idleCondition(sysfs), { driver: 'intel_idle', governor: 'haltpoll', haltPollNs: null }, 'the polling time only under haltpoll')
})

t.test('a kernel that says nothing of its idling gives nulls, and the bench goes on', async (t) => {
  t.same(idleCondition(join(tmpdir(), 'no-such-sysfs-for-idle-condition')), { driver: null, governor: null, haltPollNs: null })
})
