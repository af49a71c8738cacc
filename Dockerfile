# syntax=docker/dockerfile:1
# Kolo's container image. The build stage runs scripts/build-release.sh, the very script CI runs
# on a clean clone and then starts (.ci/run, "release"); the runtime stage copies its output and
# runs it as `npm start` does (scripts/start.sh), as an unprivileged user. docs/deploy.md explains
# how to run it (alone, or with PostgreSQL through compose.yaml).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN bash scripts/build-release.sh /release

FROM ${NODE_IMAGE}
# KOLO_ENV=production: Kolo starts only with a complete, safe configuration (PostgreSQL, HTTPS
# addresses, the three shared secrets; README "Production mode"), without demo data.
# DATA_DIR: what Kolo writes besides the database (mails without SMTP_URL; the embedded database
# when KOLO_ENV=development). Its own volume, owned by the kolo user.
ENV KOLO_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/kolo \
    LOG_LEVEL=info
RUN groupadd --system --gid 10001 kolo \
 && useradd --system --uid 10001 --gid kolo --home-dir /var/lib/kolo --no-create-home --shell /usr/sbin/nologin kolo \
 && mkdir -p /var/lib/kolo && chown kolo:kolo /var/lib/kolo && chmod 700 /var/lib/kolo \
 && ln -s /app/kolo /usr/local/bin/kolo
WORKDIR /app
# Owned by root, read-only to the kolo user: the running server cannot change its own code.
COPY --from=build /release/ /app/
USER kolo
VOLUME ["/var/lib/kolo"]
EXPOSE 8080
# The health route answers {"status":"UP","version":…} once the database answers (no curl in
# the slim image: Node's fetch).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/actuator/health').then(r=>r.json()).then(b=>process.exit(b.status==='UP'?0:1),()=>process.exit(1))"]
# SIGTERM starts the graceful stop (bounded by SHUTDOWN_TIMEOUT_MS, 25 s by default): give the
# container a longer grace period (compose.yaml: stop_grace_period 30s).
STOPSIGNAL SIGTERM
# start.sh `exec`s node, so node is PID 1 and receives the signals itself.
CMD ["sh", "scripts/start.sh"]
