# One image per service, chosen with the build argument SERVICE:
#
#   DOCKER_BUILDKIT=0 docker build --build-arg SERVICE=billing -t mediaforge/billing .
#
# SERVICE: gateway | billing | jobs | editor-agent | export-renderer | webhook-dispatcher
#
# What an image holds: Node on Debian bookworm (NODE_IMAGE), the service's production build in
# /app/dist (main.js: the service, the workspace libraries, its npm dependencies and its migrations
# bundled by esbuild into one CommonJS file with a source map; the gateway also has admin.js, the
# admin CLI, the dashboard's page, styles and bundled script, and redoc's bundle; dist/node_modules
# holds only the packages that cannot be bundled, the gateway's argon2 native addon), run as
# `node --enable-source-maps --max-semi-space-size=2 dist/main.js` by the unprivileged node user
# (the flag keeps an idle service's young generation small: bench/README.md, "Memory of the
# production build"). No TypeScript, no TypeScript loader or compiler, no package manager, no dev
# dependencies, no sources. The media services (jobs, editor-agent, export-renderer) also get
# ffmpeg, espeak-ng and fonts from Debian.
#
# How the six images share work (the classic builder and BuildKit alike):
# - Everything up to and including the build stage is the same for all six: one install of the
#   workspace (keyed on the package manifests and the lockfile only, so editing sources reuses it)
#   and one build of all six services (`pnpm run build:dist`, a few seconds).
# - Two runtime bases: plain and media (plain + ffmpeg). The last stage starts from the one its
#   service needs (svc-<SERVICE>) and adds only that service's dist/: the six images share every
#   layer but the last.
# - Dependency build scripts stay off (pnpm 10's default; pnpm-workspace.yaml allows none), so
#   ffmpeg-static never downloads its binary; the media images get ffmpeg from Debian.
#
# `docker run ... mediaforge/<service> node dist/main.js --migrate-only` migrates the service's
# schema and exits (each service also migrates at start, replicas taking turns). In the gateway image,
# `node dist/admin.js <command>` is the admin CLI.

ARG NODE_IMAGE=node:20-bookworm-slim
ARG SERVICE

# ---------------------------------------------------------------------------------------------
# Fails early, naming the choices, when SERVICE is missing or unknown.
FROM ${NODE_IMAGE} AS check
ARG SERVICE
RUN case "${SERVICE}" in \
      gateway|billing|jobs|editor-agent|export-renderer|webhook-dispatcher) ;; \
      *) echo "build argument SERVICE must be one of: gateway billing jobs editor-agent export-renderer webhook-dispatcher (got '${SERVICE}')" >&2; exit 1 ;; \
    esac

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
# The package manifests and the lockfile, in the repository layout, and nothing else: the install
# below is keyed on this stage's output, so a change to sources alone does not redo it.
FROM pnpm AS manifests
COPY . /src
RUN mkdir /manifests \
 && cd /src \
 && find . -path ./node_modules -prune -o \
      \( -name package.json -o -name pnpm-lock.yaml -o -name pnpm-workspace.yaml -o -name .npmrc \) \
      -type f -exec cp --parents {} /manifests/ \;

# ---------------------------------------------------------------------------------------------
# The whole workspace's install from the frozen lockfile, dev dependencies included: the build
# needs esbuild. The store lives in this stage only; no image ships it.
FROM pnpm AS deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN pnpm install --frozen-lockfile --store-dir /pnpm/store --reporter=append-only \
 && rm -rf /pnpm/store

# ---------------------------------------------------------------------------------------------
# The production build of all six services (scripts/build): services/<name>/dist.
FROM deps AS build
COPY . .
RUN pnpm run -s build:dist

# ---------------------------------------------------------------------------------------------
# Runtime bases. Node only: the package managers the base image brings are removed.
FROM ${NODE_IMAGE} AS runtime
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /usr/local/bin/corepack /opt/yarn-*
WORKDIR /app
ENV NODE_ENV=production
# glibc malloc at two arenas, not eight per core: worker threads do not each keep an arena's pages
# (3-5 MiB of an idle service's RSS; bench/README.md, "Memory of the production build"). A fixed
# mmap threshold (glibc's default start, 128 KiB): big blocks stay mapped on their own and go back
# to the system when freed instead of staying resident in the arena (3-7 MiB; libs/fleet COMPILED_ENV).
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
# The one writable place under /app: local scratch and caches (.data/local-provider of jobs,
# .data/export-cache of export-renderer, .data/media with STORAGE_DRIVER=local). Owned by node so
# a named volume or an emptyDir mounted there starts writable; the rest of /app stays read-only.
RUN mkdir -p /app/.data/export-cache /app/.data/local-provider /app/.data/media \
 && chown -R node:node /app/.data

# ffmpeg and espeak-ng only where media is made: jobs, editor-agent, export-renderer.
FROM runtime AS runtime-media
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ffmpeg espeak-ng fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

# Which base each service runs on.
FROM runtime AS svc-gateway
FROM runtime AS svc-billing
FROM runtime-media AS svc-jobs
FROM runtime-media AS svc-editor-agent
FROM runtime-media AS svc-export-renderer
FROM runtime AS svc-webhook-dispatcher

# ---------------------------------------------------------------------------------------------
FROM svc-${SERVICE}
ARG SERVICE
ENV SERVICE=${SERVICE}
# Root-owned, so read-only for the service user.
COPY --from=build /app/services/${SERVICE}/dist ./dist

# The node user (uid 1000) comes with the base image.
USER node

# The services listen on PORT (default per service: gateway 8080, billing 8081, jobs 8082,
# editor-agent 8083, export-renderer 8084, webhook-dispatcher 8085); no EXPOSE, as one Dockerfile
# serves all six. The compose file sets PORT explicitly.

# SIGTERM starts the graceful shutdown (HTTP, consumers and in-flight messages, broker, pool);
# the service exits 0 within SHUTDOWN_TIMEOUT_MS (10 s by default).
STOPSIGNAL SIGTERM

# Liveness: /healthz answers as soon as the HTTP server is up (no dependency checked). No curl in
# slim images: the build's probe.js (node:http; PORT if set, else the service's default port).
HEALTHCHECK --interval=15s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "dist/probe.js", "/healthz"]

# Exec form: node is PID 1 (or tini's child with `init: true`) and receives SIGTERM itself.
CMD ["node", "--enable-source-maps", "--max-semi-space-size=2", "dist/main.js"]
