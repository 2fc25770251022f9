# adsnap as a container image: `docker build -t REGISTRY/adsnap:VERSION .`, then
# `docker run --rm -v "$PWD/snapshots:/data" REGISTRY/adsnap:VERSION crawl --domains top.csv --out /data/out`.
# The image is built the way test/package.test.ts checks the package: the project is packed with
# `npm pack`, the tarball unpacked and its production dependencies installed with
# `npm ci --omit=dev --ignore-scripts` from the project's lockfile.
# Base: Node 24, an LTS line until 2028-04-30 (test/dockerfile.test.ts fails once the pinned major
# is past its end of life). The process runs as uid 1000 (`node`): a bind-mounted /data must be
# writable by uid/gid 1000 (deploy/README.md).

# Build stage: the whole toolchain, the TypeScript build, the package tarball.
FROM node:24.11.1-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY bin bin
COPY src src
COPY pipelines pipelines
COPY schemas schemas
COPY sql sql
COPY data data
COPY data-samples data-samples
COPY README.md ./
RUN npm run build && mkdir /pkg && npm pack --ignore-scripts --pack-destination /pkg

# Runtime stage: Node, the package and its production dependencies as the lockfile pins them; no
# compiler, no dev tools.
FROM node:24.11.1-bookworm-slim
ENV NODE_ENV=production
COPY --from=build /pkg/ /tmp/pkg/
COPY package-lock.json /tmp/pkg/
RUN mkdir -p /opt/adsnap \
 && tar -xzf /tmp/pkg/adsnap-*.tgz -C /opt/adsnap --strip-components=1 \
 && cp /tmp/pkg/package-lock.json /opt/adsnap/ \
 && cd /opt/adsnap && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf /tmp/pkg && npm cache clean --force
# The node image's unprivileged user (uid/gid 1000); snapshots go to the /data volume.
RUN mkdir /data && chown node:node /data
USER node
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["node", "/opt/adsnap/bin/adsnap.js"]
CMD ["--help"]
