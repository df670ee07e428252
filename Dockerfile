# syntax=docker/dockerfile:1
#
# One image per service, chosen with the build argument SERVICE (a directory under services/;
# its package is @mf/<SERVICE>):
#
#   docker build --build-arg SERVICE=billing -t mediaforge/billing .
#
# SERVICE: gateway | billing | jobs | editor-agent | export-renderer | webhook-dispatcher
#
# How the dependencies get into the image, and why not `pnpm deploy`:
# - Nothing is compiled. Services and the workspace libraries (libs/*, `main: ./src/index.ts`) are
#   TypeScript run by tsx at run time, so the image holds sources plus node_modules.
# - `pnpm deploy` in pnpm 10 refuses a workspace without inject-workspace-packages=true unless
#   given --legacy, and it moves the service to the root of its output directory. This image
#   keeps the repository layout instead (services/<name>/src/main.ts, services/<name>/migrations,
#   the admin CLI at services/gateway/src/admin/cli.ts), with no workspace setting changed.
# - So the build stage runs a filtered production install, `--filter @mf/<SERVICE>...` (the
#   service and the workspace packages it depends on) with `--prod`, from the frozen lockfile, in
#   the repository layout; the runtime stage copies node_modules, libs/ and services/<SERVICE>/.
#   Dev tools (jest, swc, typescript, testcontainers) are not installed: nothing here needs them.
# - Dependency build scripts stay off (pnpm 10's default; pnpm-workspace.yaml allows none), so
#   ffmpeg-static never runs its install script (it downloads a binary). The media images get
#   ffmpeg and espeak-ng from Debian instead.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
# pnpm 10 on the Node base. Pinned to package.json's "packageManager" (pnpm@10.34.9): with any
# other version pnpm 10 would download and switch to that one (manage-package-manager-versions).
FROM ${NODE_IMAGE} AS pnpm
ARG PNPM_VERSION=10.34.9
ENV npm_config_update_notifier=false
RUN npm install -g "pnpm@${PNPM_VERSION}" \
 && npm cache clean --force \
 && pnpm --version

# ---------------------------------------------------------------------------------------------
# Package downloads, keyed on the lockfile only (`pnpm fetch` reads no package.json), so editing
# sources or a package.json's scripts does not throw this layer away. No SERVICE argument here:
# the six images share this layer.
FROM pnpm AS fetch
WORKDIR /app
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc* ./
# The store lives in this build stage only. The virtual store that fetch also writes under
# node_modules is dropped: install re-links it from the store, and installing over a fetched
# node_modules has left modules missing in some pnpm 10 releases (pnpm/pnpm#9744).
RUN pnpm fetch --prod --store-dir /pnpm/store \
 && rm -rf node_modules

# ---------------------------------------------------------------------------------------------
# The service's production install, in the repository layout.
FROM fetch AS build
ARG SERVICE
RUN case "${SERVICE}" in \
      gateway|billing|jobs|editor-agent|export-renderer|webhook-dispatcher) ;; \
      *) echo "build argument SERVICE must be one of: gateway billing jobs editor-agent export-renderer webhook-dispatcher (got '${SERVICE}')" >&2; exit 1 ;; \
    esac
COPY . .
# --prefer-offline: the store already has everything; anything it lacks is downloaded rather
# than failing the build.
RUN pnpm install --frozen-lockfile --prefer-offline --prod --store-dir /pnpm/store \
      --filter "@mf/${SERVICE}..."
# `node --import tsx` resolves tsx from the working directory (/app), but tsx is a dependency of
# the service (services/<SERVICE>/node_modules/tsx) and the root installs no production
# dependencies. Link it at the root the way pnpm links any package (into .pnpm), then check that
# the service's modules load (config, migrations, the runtime library and its dependencies)
# without starting anything.
RUN if [ ! -e node_modules/tsx ]; then \
      ln -s "$(realpath --relative-to=node_modules "services/${SERVICE}/node_modules/tsx")" node_modules/tsx; \
    fi \
 && node --import tsx -e " \
      require('./services/${SERVICE}/src/config.ts'); \
      require('./services/${SERVICE}/migrations'); \
      require('./services/${SERVICE}/node_modules/@mf/runtime');"

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
# ffmpeg and espeak-ng only where media is made: jobs, editor-agent, export-renderer.
RUN case "${SERVICE}" in \
      jobs|editor-agent|export-renderer) \
        apt-get update \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ffmpeg espeak-ng fonts-dejavu-core \
        && rm -rf /var/lib/apt/lists/* ;; \
    esac

WORKDIR /app
ENV NODE_ENV=production \
    SERVICE=${SERVICE}

# Root-owned and read-only for the service user.
COPY --from=build /app/package.json /app/pnpm-workspace.yaml /app/tsconfig.base.json /app/tsconfig.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/libs ./libs
COPY --from=build /app/services/${SERVICE} ./services/${SERVICE}

# The one writable place under /app: local scratch and caches (.data/local-provider of jobs,
# .data/export-cache of export-renderer, .data/media with STORAGE_DRIVER=local). Owned by node so
# a named volume or an emptyDir mounted there starts writable; the rest of /app stays read-only.
RUN mkdir -p /app/.data/export-cache /app/.data/local-provider /app/.data/media \
 && chown -R node:node /app/.data

# The node user (uid 1000) comes with the base image.
USER node

# The services listen on PORT (default per service: gateway 8080, billing 8081, jobs 8082,
# editor-agent 8083, export-renderer 8084, webhook-dispatcher 8085); no EXPOSE, as one Dockerfile
# serves all six. The compose file sets PORT explicitly.

STOPSIGNAL SIGTERM

# Liveness: /healthz answers as soon as the HTTP server is up (no dependency checked). No curl in
# slim images, so Node's fetch. PORT if set, else the service's default port.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const p=process.env.PORT||{gateway:8080,billing:8081,jobs:8082,'editor-agent':8083,'export-renderer':8084,'webhook-dispatcher':8085}[process.env.SERVICE];fetch('http://127.0.0.1:'+p+'/healthz',{signal:AbortSignal.timeout(4000)}).then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# Shell form so ${SERVICE} (from ENV) expands at run time; `exec` makes node PID 1 (or tini's
# child with `init: true`), so it receives SIGTERM itself and shuts down gracefully.
CMD exec node --import tsx "services/${SERVICE}/src/main.ts"
