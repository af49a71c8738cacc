#!/bin/sh
# `npm start` (after its prestart build): the compiled server as production runs it. `exec`, so the
# server is this very process (its pid, its signals). Measured in docs/benchmarks.md and
# explained in docs/architecture.md "Memory":
# - glibc's allocator: two arenas, blocks of 32 KiB and more in their own mappings, a fixed trim
#   threshold (PGlite's resident memory);
# - V8's old generation grows by at most half of what survived a collection
#   (`--heap-growing-percent=50`), instead of up to four times;
# - V8's young generation: semi-spaces of 32 MB on PostgreSQL (DATABASE_URL set), where requests'
#   short-lived objects then die young instead of being copied and promoted (status reads +20–50 %,
#   +30 MB resident); V8's default (16 MB) on the embedded PGlite, whose engine shares this
#   process's memory and would take it over the 250 MB of issue 14.
export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=32768 MALLOC_TRIM_THRESHOLD_=131072
if [ -n "${DATABASE_URL:-}" ]; then semi_space_mb=32; else semi_space_mb=16; fi
exec node --expose-gc --heap-growing-percent=50 --max-semi-space-size="$semi_space_mb" dist/main.js serve "$@"
