import type { PublicEnv } from '../shared/page-data.js'

export async function startTracker (env: PublicEnv): Promise<void> {
  const { default: Tracker } = await import('@openreplay/tracker')
  const tracker = new Tracker({ projectKey: env.OPENREPLAY_PROJECT_KEY ?? '', respectDoNotTrack: true })
  await tracker.start()
}
