import type { FastifyInstance } from 'fastify'

/** One line of the Prometheus text format: `name{label="value",…} number`. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g

/** Parses the text format as Prometheus would; throws on a line it could not read. */
export function parseExposition (text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = LINE.exec(line)
    if (!match) throw new Error(`not a sample line: ${line}`)
    const [, name = '', labels = '', value = ''] = match
    samples.push({ name, labels: Object.fromEntries([...labels.matchAll(LABEL)].map(([, key = '', text = '']) => [key, text])), value: Number(value) })
  }
  return samples
}

/** What a scrape of the app's metrics would read. */
export async function scrape (app: FastifyInstance): Promise<Sample[]> {
  if (!app.metrics) throw new Error('the app was built without metrics: set METRICS_PORT')
  return parseExposition(await app.metrics.registry.metrics())
}

/** The value of the one sample named so whose labels include `labels`, or undefined. */
export function valueOf (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value
}

/** The distinct values a label takes across the samples of one name. */
export function labelValues (samples: Sample[], name: string, label: string): string[] {
  return [...new Set(samples.filter((sample) => sample.name === name).map((sample) => sample.labels[label] ?? ''))].sort()
}
