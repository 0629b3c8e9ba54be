import { createContext, useContext, type ReactNode } from 'react'
import type { RequestInfo } from '../shared/page-data.js'

const RequestInfoContext = createContext<RequestInfo | null>(null)

export function RequestInfoProvider ({ value, children }: { value: RequestInfo, children: ReactNode }) {
  return <RequestInfoContext.Provider value={value}>{children}</RequestInfoContext.Provider>
}

export function useRequestInfo (): RequestInfo {
  const info = useContext(RequestInfoContext)
  if (!info) throw new Error('useRequestInfo must be used inside <RequestInfoProvider>')
  return info
}
