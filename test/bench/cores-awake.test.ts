import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { holdCoresAwake } from '../../bench/cores-awake.mjs'

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
