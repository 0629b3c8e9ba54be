import { defineLoader } from '../../server/screens/index.js'
import type { TimeData } from './time.js'

export const loader = defineLoader<TimeData>(() => ({ now: new Date().toISOString() }))
