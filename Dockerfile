# syntax=docker/dockerfile:1
# txmon serve as a container: docs in README.md ("Container") and docs/decisions.md ("CLI").
#   docker build -t txmon .
#   docker run -p 8080:8080 -v txmon-data:/data txmon          # PGlite in the volume; prints a generated key once
# test/package/container.test.ts replays these steps on this machine (no Docker there).

# Build: every dependency, then the bundle (dist/). Install scripts are skipped: the build needs
# none (esbuild's binary comes as an optional platform package), and neither does the runtime.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsup.config.ts ./
COPY src ./src
RUN npm run build

# Runtime: production dependencies only, plus the two store drivers, which the package declares as
# optional peers (dev dependencies here) and `txmon serve` loads: pg and PGlite, at the versions of
# the lockfile (moved to `dependencies` before installing, so the lockfile decides every version).
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm node -e "const f='./package.json',p=require(f);for(const n of ['pg','@electric-sql/pglite']){p.dependencies[n]=p.devDependencies[n];delete p.devDependencies[n]}require('fs').writeFileSync(f,JSON.stringify(p,null,2))" && npm install --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
# The image's unprivileged user (uid 1000); the data directory is the only place it writes.
USER node
VOLUME ["/data"]
ENV TXMON_STORE=pglite:/data
EXPOSE 8080
# /readyz: 200 once every store answers a round trip, 503 while starting or while the database is away.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/cli.js"]
# Keys and store from the environment or mounted files: TXMON_API_KEY_FILE, TXMON_METRICS_KEY_FILE,
# TXMON_STORE or TXMON_STORE_FILE (see `docker run txmon serve --help`).
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
