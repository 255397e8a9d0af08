# dqctl serve in a container. Build: docker build -t dqctl .   Run: see "Running dqctl serve in a container"
# in README.md. Two stages: the first compiles and packs dqctl (dev dependencies, TypeScript), the second installs
# only that tarball (runtime dependencies) into a slim image and runs it as the unprivileged user `node`.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# dependencies first (a cached layer while only the sources change); prepare needs the sources, so no scripts yet
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY bin ./bin
COPY schemas ./schemas
COPY catalog ./catalog
COPY examples/shop ./examples/shop
RUN npm run build && npm pack --ignore-scripts --silent && mv dqctl-*.tgz /tmp/dqctl.tgz

FROM node:20-bookworm-slim
# git: for `serve --git` (simple-git runs the git binary); tini: signals reach node, zombies are reaped
RUN apt-get update && apt-get install -y --no-install-recommends git tini ca-certificates \
  && rm -rf /var/lib/apt/lists/*
COPY --from=build /tmp/dqctl.tgz /tmp/dqctl.tgz
RUN npm install --global --omit=dev --no-audit --no-fund /tmp/dqctl.tgz && rm /tmp/dqctl.tgz && npm cache clean --force
# the embedded store (PGlite) and the clone of serve --git live in the volume; with --database (or
# DQCTL_DATABASE_URL) the state is in PostgreSQL and the volume holds only the clone
ENV DQCTL_STATE_DIR=/var/lib/dqctl/state \
    NODE_ENV=production
RUN mkdir -p /var/lib/dqctl && chown node:node /var/lib/dqctl
VOLUME /var/lib/dqctl
WORKDIR /var/lib/dqctl
USER node
EXPOSE 8888
# /api/healthcheck needs no token; 503 when the live store does not answer within 2 s
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8888/api/healthcheck').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "dqctl"]
# listening on all interfaces needs tokens: pass DQCTL_TOKENS (the YAML list) or mount a file and add --tokens
CMD ["serve", "--host", "0.0.0.0", "--port", "8888"]
