import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2'
import { Deployment } from 'kubernetes-models/apps/v1'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1'
import type { IContainer, IProbe } from 'kubernetes-models/v1'
import { parseAllDocuments } from 'yaml'
import { DIST_DIR } from '../../src/server/app.js'
import { EnvError, EnvSchema, loadEnv } from '../../src/server/env.js'
import { timeoutOptions } from '../../src/server/http/timeouts.js'
import { drainBoundMs } from '../../src/server/plugins/app/graceful-close.js'
import { SAMPLE_INTERVAL_MS } from '../../src/server/plugins/external/load-shedding.js'
import { build } from '../helpers/app.js'
import { readImage, ROOT } from '../helpers/dockerfile.js'
import { ingressNginxKeepaliveTimeoutMs, upstreamKeepaliveTimeoutMs } from '../helpers/readme.js'

/**
 * The Kubernetes manifests, checked offline: the kustomization rendered here
 * (it only lists resources, which is all this renderer reads, and it refuses
 * anything more), every object validated against the Kubernetes schemas
 * (kubernetes-models), then the relations no schema sees.
 */

const DIR = join(ROOT, 'deploy', 'kubernetes')
const MODELS = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy
} as const
/** The module of kubernetes-models that types each kind: for its fields, which the schemas do not close. */
const TYPES: Record<string, string> = { v1: 'v1', 'apps/v1': 'apps/v1', 'policy/v1': 'policy/v1', 'autoscaling/v2': 'autoscaling/v2', 'networking.k8s.io/v1': 'networking.k8s.io/v1' }

type K8sObject = { apiVersion: string, kind: string, metadata: { name: string, labels?: Record<string, string> }, [key: string]: unknown }

function readObjects (file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`)
    return document.toJS() as K8sObject
  }).filter(Boolean)
}

/** What `kubectl kustomize deploy/kubernetes` prints, for a kustomization that only lists resources. */
function render (): K8sObject[] {
  const [kustomization] = readObjects('kustomization.yaml') as unknown as Array<Record<string, unknown>>
  const unsupported = Object.keys(kustomization ?? {}).filter((key) => !['apiVersion', 'kind', 'resources'].includes(key))
  if (unsupported.length > 0) throw new Error(`the kustomization uses ${unsupported.join(', ')}: teach this renderer, or keep it to resources`)
  return (kustomization?.resources as string[]).flatMap(readObjects)
}

function validate (object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}` as keyof typeof MODELS]
  if (!Model) throw new Error(`${object.apiVersion} ${object.kind} has no schema here`)
  new Model(object as never).validate()
}

/**
 * Fields Kubernetes does not have, as `kubectl apply --validate=strict` would
 * refuse them: the JSON schemas allow any extra field, so each object becomes
 * a literal of its kubernetes-models type, and TypeScript names the excess.
 */
function unknownFields (all: K8sObject[]): string[] {
  const dir = join(DIST_DIR, 'manifest-check')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'manifests.ts')
  const imports = all.map((object, index) => `import type { I${object.kind} as T${index} } from 'kubernetes-models/${TYPES[object.apiVersion]}'`)
  const literals = all.map((object, index) => `export const object${index}: T${index} = ${JSON.stringify(object, null, 2)}`)
  writeFileSync(file, [...imports, ...literals].join('\n'))
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext
  })
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '))
}

const objects = render()
const find = <T>(kind: string) => {
  const found = objects.filter((object) => object.kind === kind)
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`)
  return found[0] as unknown as T
}
const deployment = find<Deployment>('Deployment')
const service = find<Service>('Service')
const configMap = find<ConfigMap>('ConfigMap')
const pdb = find<PodDisruptionBudget>('PodDisruptionBudget')
const hpa = find<HorizontalPodAutoscaler>('HorizontalPodAutoscaler')
const networkPolicy = find<NetworkPolicy>('NetworkPolicy')
const [secret] = readObjects('secret.template.yaml') as unknown as Secret[]
const pod = deployment.spec!.template.spec!
const container = pod.containers[0] as IContainer
const settings = configMap.data ?? {}
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  Object.keys(selector ?? {}).length > 0 && Object.entries(selector ?? {}).every(([key, value]) => labels?.[key] === value)

t.test('the kustomization renders, and every object and the Secret template are valid Kubernetes objects', async (t) => {
  t.same(objects.map((object) => object.kind).sort(), ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'PodDisruptionBudget', 'Service'])
  for (const object of [...objects, secret as unknown as K8sObject]) {
    t.doesNotThrow(() => validate(object), `${object.kind} ${object.metadata.name}`)
  }
  const broken = structuredClone(deployment) as unknown as { spec: { replicas: unknown } }
  broken.spec.replicas = 'three'
  t.throws(() => validate(broken as unknown as K8sObject), /replicas must be integer/, 'the schemas do catch a mistake')
  t.notOk(objects.some((object) => object.kind === 'Secret'), 'no Secret is applied with the kustomization: real secrets are never overwritten')
})

t.test('no object has a field Kubernetes does not know (a misspelt field would be silently dropped)', async (t) => {
  // Checked with one planted mistake, so one compilation shows both that the check works and that nothing else trips it.
  const misspelt = structuredClone(deployment) as unknown as { spec: { template: { spec: { containers: Array<{ securityContext: Record<string, unknown> }> } } } }
  misspelt.spec.template.spec.containers[0]!.securityContext = { readOnlyRootFileSystem: true }
  const found = unknownFields([...objects, secret as unknown as K8sObject, misspelt as unknown as K8sObject])
  t.match(found, [/readOnlyRootFileSystem.* does not exist in type 'ISecurityContext'/], 'only the planted misspelling is found')
  t.equal(found.length, 1)
})

t.test('the Deployment: three replicas, a rolling update that never lowers capacity, locked down, with requests and limits', async (t) => {
  t.equal(deployment.spec!.replicas, 3)
  t.match(deployment.spec!.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } })
  t.ok(Number(deployment.spec!.strategy?.rollingUpdate?.maxSurge) >= 1, 'surges instead')
  t.match(pod.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } })
  t.match(container.securityContext, {
    runAsNonRoot: true,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' }
  })
  t.notOk(container.securityContext?.capabilities?.add, 'adds no capability back')
  t.equal(String(pod.securityContext?.runAsUser), readImage().user?.split(':')[0], 'runs as the image\'s user')
  for (const kind of ['requests', 'limits'] as const) {
    t.ok(container.resources?.[kind]?.cpu && container.resources?.[kind]?.memory, `cpu and memory ${kind}`)
  }
  t.notOk(container.command ?? container.args, 'runs the image\'s CMD, so node gets the signals')
  t.notOk(pod.volumes?.length, 'needs no writable volume: the app writes nothing')
})

t.test('the Service, PodDisruptionBudget and autoscaler select the Deployment\'s pods', async (t) => {
  const labels = deployment.spec!.template.metadata?.labels
  t.ok(matches(deployment.spec!.selector.matchLabels, labels), 'the Deployment selects its own pods')
  t.ok(matches(service.spec!.selector, labels), 'the Service selects them')
  t.ok(matches(pdb.spec!.selector?.matchLabels, labels), 'the PodDisruptionBudget selects them')
  t.ok(pdb.spec!.maxUnavailable === 1 || Number(pdb.spec!.minAvailable) < deployment.spec!.replicas!, 'and lets a node drain')
  t.match(hpa.spec!.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata!.name })
  t.equal(hpa.spec!.minReplicas, deployment.spec!.replicas, 'the autoscaler starts from the Deployment\'s replicas')
  t.ok(hpa.spec!.maxReplicas > hpa.spec!.minReplicas!)
})

t.test('ports: the Service reaches the container port the app listens on, which is the image\'s', async (t) => {
  const named = new Map((container.ports ?? []).map((port) => [port.name, port.containerPort]))
  const [servicePort] = service.spec!.ports ?? []
  t.ok(named.has(String(servicePort?.targetPort)), `the Service's targetPort ${servicePort?.targetPort} is a named container port`)
  t.equal(String(named.get(String(servicePort?.targetPort))), settings.PORT, 'the port PORT makes the app listen on')
  t.equal(settings.PORT, readImage().env.PORT, 'and the image\'s')
  t.equal(settings.HOST, '0.0.0.0', 'listening on every interface of the pod')
})

t.test('metrics: scraped from a container port of their own, never through the Service', async (t) => {
  const named = new Map((container.ports ?? []).map((port) => [port.name, port.containerPort]))
  t.equal(String(named.get('metrics')), settings.METRICS_PORT, 'the port METRICS_PORT makes the metrics listener use')
  t.equal(settings.METRICS_HOST, '0.0.0.0', 'reachable by Prometheus from other pods')
  const annotations = deployment.spec!.template.metadata!.annotations ?? {}
  t.match(annotations, { 'prometheus.io/scrape': 'true', 'prometheus.io/port': settings.METRICS_PORT, 'prometheus.io/path': '/metrics' })
  t.notOk((service.spec!.ports ?? []).some((port) => String(port.targetPort) === 'metrics' || String(port.targetPort) === settings.METRICS_PORT), 'the Service, which the ingress routes to, leaves it out')
})

t.test('TRUST_PROXY names the proxy\'s addresses: never a hop count, `true` or a named range, under which any peer picks its own address and ids', async (t) => {
  const { env } = loadEnv({ ...settings, SESSION_SECRET: 'a'.repeat(44), HONEYPOT_SECRET: 'b'.repeat(44) })
  t.ok(Array.isArray(env.TRUST_PROXY), `a list of addresses or ranges (${settings.TRUST_PROXY})`)
  t.notOk((env.TRUST_PROXY as string[]).some((entry) => ['loopback', 'linklocal', 'uniquelocal'].includes(entry)), 'no named range')
})

t.test('a NetworkPolicy lets only the ingress controller reach the app and only the scraper reach metrics', async (t) => {
  const labels = deployment.spec!.template.metadata?.labels
  t.ok(matches(networkPolicy.spec!.podSelector.matchLabels, labels), 'it selects the Deployment\'s pods')
  t.same(networkPolicy.spec!.policyTypes, ['Ingress'], 'and refuses what it does not list')
  const rules = networkPolicy.spec!.ingress ?? []
  t.same(rules.map((rule) => (rule.ports ?? []).map((port) => port.port)), [['http'], ['metrics']], 'one rule per port, both named container ports')
  const [app, metrics] = rules
  t.same(app?.from, [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }], 'the app port from the ingress controller\'s namespace')
  t.same(metrics?.from, [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } }, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }], 'metrics from Prometheus\' pods only')
  const named = (container.ports ?? []).map((port) => port.name)
  t.ok(named.includes('http') && named.includes('metrics'), 'the ports it names are the container\'s')
})

t.test('the settings are ones the app accepts, the secrets come from the Secret, and its template holds no usable value', async (t) => {
  const known = Object.keys(EnvSchema.properties)
  t.same(Object.keys(settings).filter((name) => !known.includes(name)), [], 'every ConfigMap key is a variable the app reads')
  t.same((container.env ?? []).map((variable) => variable.name).filter((name) => !known.includes(name)), [], 'and every env entry')
  t.same(container.envFrom, [{ configMapRef: { name: configMap.metadata!.name } }], 'settings from the rendered ConfigMap')
  for (const variable of ['SESSION_SECRET', 'HONEYPOT_SECRET']) {
    const reference = container.env?.find((entry) => entry.name === variable)?.valueFrom?.secretKeyRef
    t.match(reference, { name: secret!.metadata!.name, key: variable }, `${variable} from the Secret`)
    t.notOk(settings[variable], `${variable} is not in the ConfigMap`)
  }
  const real = { SESSION_SECRET: 'a'.repeat(44), HONEYPOT_SECRET: 'b'.repeat(44) }
  t.doesNotThrow(() => loadEnv({ ...settings, ...real }), 'the ConfigMap with real secrets is a valid environment')
  t.throws(() => loadEnv({ ...settings, ...secret!.stringData }), EnvError, 'the template\'s placeholders are refused at start-up')
})

t.test('probes: startup, readiness and liveness ask the app paths it answers, on the container\'s port', async (t) => {
  // The ConfigMap's load shedding is left out: a busy test machine's event-loop delay would read as the app's.
  const { app } = await build(t, { env: { ...settings, NODE_ENV: 'test', HOST: '127.0.0.1', LOAD_SHEDDING_DELAY_MS: '0' } })
  const probes: Array<[string, IProbe | undefined, string]> = [
    ['startup', container.startupProbe, '/resources/healthcheck'],
    ['readiness', container.readinessProbe, '/resources/readiness'],
    ['liveness', container.livenessProbe, '/resources/healthcheck']
  ]
  const ports = (container.ports ?? []).map((port) => port.name)
  for (const [name, probe, path] of probes) {
    t.equal(probe?.httpGet?.path, path, `${name} asks ${path}`)
    t.ok(ports.includes(String(probe?.httpGet?.port)), `${name} on a named container port`)
    const answer = await app.inject({ url: probe?.httpGet?.path ?? '/' })
    t.equal(answer.statusCode, 200, `${name}: the app answers ${path} with 200`)
  }
})

t.test('probes tolerate one slow answer, and wait longer than the app takes to answer or shed load', async (t) => {
  const readiness = container.readinessProbe!
  const liveness = container.livenessProbe!
  for (const [name, probe] of [['readiness', readiness], ['liveness', liveness]] as const) {
    t.ok((probe.failureThreshold ?? 3) >= 2 && (probe.failureThreshold ?? 3) <= 3, `${name}: a failure threshold of 2 or 3 (${probe.failureThreshold})`)
    const promisedMs = Number(settings.LOAD_SHEDDING_DELAY_MS) + SAMPLE_INTERVAL_MS
    t.ok(Number(settings.LOAD_SHEDDING_DELAY_MS) > 0 && (probe.timeoutSeconds ?? 1) * 1000 >= 2 * promisedMs, `${name}: timeoutSeconds (${probe.timeoutSeconds} s) at least twice what load shedding takes to react (${promisedMs} ms)`)
  }
  t.ok(Number(settings.LOAD_SHEDDING_DELAY_MS) + SAMPLE_INTERVAL_MS < 1000, 'load shedding reacts before the event loop stalls a second')
})

t.test('shutdown: the grace period covers the preStop pause and the whole drain, and the drain\'s delay covers a readiness period', async (t) => {
  const [sleep, seconds, ...rest] = container.lifecycle?.preStop?.exec?.command ?? []
  t.equal(sleep, 'sleep', 'a preStop pause')
  t.same(rest, [])
  const pauseMs = Number(seconds) * 1000
  t.ok(pauseMs > 0)
  const drain = { delayMs: Number(settings.SHUTDOWN_DELAY_MS), idleGraceMs: Number(settings.SHUTDOWN_IDLE_GRACE_MS) }
  const graceMs = Number(pod.terminationGracePeriodSeconds) * 1000
  t.ok(graceMs > pauseMs + drainBoundMs(drain), `terminationGracePeriodSeconds (${graceMs} ms) > preStop (${pauseMs} ms) + the drain's bound (${drainBoundMs(drain)} ms)`)
  const readiness = container.readinessProbe!
  const readinessPeriodMs = (readiness.periodSeconds ?? 10) * (readiness.failureThreshold ?? 3) * 1000
  t.ok(drain.delayMs >= readinessPeriodMs, `SHUTDOWN_DELAY_MS (${drain.delayMs}) lasts a readiness period (${readinessPeriodMs} ms)`)
  const proxyKeepAliveMs = upstreamKeepaliveTimeoutMs()
  t.ok(drain.idleGraceMs > proxyKeepAliveMs, `SHUTDOWN_IDLE_GRACE_MS outlasts the upstream keepalive_timeout the README gives the proxy (${proxyKeepAliveMs} ms)`)
})

t.test('the ingress-nginx controller is told to let idle connections go before the app closes them', async (t) => {
  const controllerMs = ingressNginxKeepaliveTimeoutMs()
  t.ok(controllerMs < timeoutOptions().keepAliveTimeout, `upstream-keepalive-timeout (${controllerMs} ms) < the app's keep-alive timeout (${timeoutOptions().keepAliveTimeout} ms)`)
  t.ok(controllerMs < Number(settings.SHUTDOWN_IDLE_GRACE_MS), `and < SHUTDOWN_IDLE_GRACE_MS (${settings.SHUTDOWN_IDLE_GRACE_MS} ms)`)
  const proxyNamespaces = networkPolicy.spec?.ingress?.[0]?.from?.map((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'])
  t.same(proxyNamespaces, ['ingress-nginx'], 'the namespace the NetworkPolicy lets in is that controller\'s')
})
