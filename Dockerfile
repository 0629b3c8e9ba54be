# syntax=docker/dockerfile:1
# The Agent Stack image: docker build -t agent-stack . (docs/deploying.md).
# test/deploy/image.test.ts plays its runtime stage without Docker.

# Debian slim, for both stages. Distroless would drop the shell and npm, but
# its entrypoint is node itself (no exec-form CMD ["node", …]), it cannot run
# `npm ci` for the production dependencies, and it has no `sleep` for the
# Kubernetes preStop pause. Same base in both stages: the Node 24 LTS that
# package.json's engines asks for, one libc.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
# .npmrc turns install scripts off; the cache stays in the mount, out of the image.
# The optional dependencies are the Node that npm scripts run on a machine whose
# own is older: the image runs its base's.
COPY package.json package-lock.json .npmrc ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --omit=optional --no-audit --no-fund
# static/ is copied into dist/client by the build, so dist/ is all the app reads.
COPY --from=build /app/dist ./dist
# nobody: owns no file here, so the app directory is read-only to it, and the
# app writes nothing at run time (a read-only root filesystem works).
USER 65534:65534
EXPOSE 3000
# Exec form with node itself: the image has no curl, and needs none.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/resources/healthcheck', { signal: AbortSignal.timeout(2000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node runs as PID 1 without tini: it handles SIGTERM and SIGINT itself
# (src/server/serve.ts); its one helper thread (a pino transport, when one is
# configured) is a thread, not a process, so there is nothing to forward
# signals to or reap. `docker run --init` stays possible. Started as npm start
# and the tests start it (docs/decisions/start-up.md).
CMD ["node", "dist/server/main.js"]
