import { StrictMode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { Document } from '../ui/document.js'
import { readPageData } from './page-data.js'
import { startTrackerWhenIdle } from './start-tracker.js'

const data = readPageData()

hydrateRoot(
  document,
  <StrictMode>
    <Document data={data} />
  </StrictMode>
)

startTrackerWhenIdle(data.env)
