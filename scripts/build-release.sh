#!/usr/bin/env bash
# scripts/build-release.sh <outdir>: builds what production runs into an empty <outdir>, from the
# files of this checkout, in a staging directory (the checkout's own node_modules and dist are
# neither used nor touched):
#   1. npm ci (development dependencies included: TypeScript, Vite, React for the build);
#   2. npm run build: src/ compiled to dist/ with the migrations, page templates and page assets
#      beside it, and the dashboard web app (with its server renderer) in web/dist;
#   3. npm prune --omit=dev;
#   4. copies package.json, package-lock.json, node_modules, dist, web/dist and scripts/start.sh
#      to <outdir>, plus `kolo`, a launcher of the compiled command.
# <outdir> then runs as `npm start` runs the checkout, without the build: `sh scripts/start.sh`
# from <outdir> serves; `./kolo <command>` runs any other command. The Dockerfile runs this very
# script, and CI (.ci/run) runs it on a clean clone and starts the result.
set -euo pipefail
export NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false

if [ "$#" -ne 1 ]; then
  echo "usage: scripts/build-release.sh <outdir>" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
if [ -n "$(ls -A "$out")" ]; then
  echo "build-release: $out is not empty" >&2
  exit 2
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# What the build reads: the manifests, the compiler configurations, the build scripts, the
# server's sources and the web app's (never a node_modules or an earlier build).
echo "== build-release: staging sources in $stage"
tar -C "$root" -cf - \
  --exclude=node_modules --exclude=web/dist --exclude='*.test.ts' --exclude='*.test.tsx' \
  package.json package-lock.json tsconfig.json tsconfig.build.json scripts src web \
  | tar -C "$stage" -xf -

cd "$stage"
echo "== build-release: npm ci"
npm ci --prefer-offline --loglevel=error
echo "== build-release: npm run build"
npm run build --silent
echo "== build-release: npm prune --omit=dev"
npm prune --omit=dev --prefer-offline --loglevel=error

echo "== build-release: copying to $out"
mkdir -p "$out/web" "$out/scripts"
cp -R package.json package-lock.json node_modules dist "$out/"
cp -R web/dist "$out/web/dist"
cp scripts/start.sh "$out/scripts/start.sh"
rm -f "$out/dist/.tsbuildinfo"
cat >"$out/kolo" <<'LAUNCHER'
#!/bin/sh
# The `kolo` command of a release (scripts/build-release.sh): the compiled sources, from anywhere.
exec node "$(dirname "$(readlink -f "$0")")/dist/main.js" "$@"
LAUNCHER
chmod 755 "$out/kolo"
echo "== build-release: done ($(du -sh "$out" | cut -f1) in $out)"
