#!/bin/sh
# `npm start` (after its prestart build): the compiled server as production runs it. `exec`, so the
# server is this very process (its pid, its signals). What it sets, and why, is documented once in
# docs/performance.md "The start script"; no setting depends on one Node or V8 version, and the
# server runs the same without any of them (only slower or larger).
if [ -n "${DATABASE_URL:-}" ]; then
  mmap_threshold=131072 semi_space="--max-semi-space-size=32"
else
  mmap_threshold=32768 semi_space=""
fi
export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_="$mmap_threshold" MALLOC_TRIM_THRESHOLD_=131072
# shellcheck disable=SC2086 # $semi_space is empty or one flag
exec node --expose-gc $semi_space dist/main.js serve "$@"
