#!/bin/sh
# `npm start` (after its prestart build): the compiled server as production runs it. `exec`, so the
# server is this very process (its pid, its signals). Measured in docs/benchmarks.md and
# explained in docs/architecture.md "Memory":
# - glibc's allocator: two arenas and a fixed trim threshold; blocks of 32 KiB and more in their
#   own mappings on PGlite (its resident memory), of 128 KiB and more on PostgreSQL, where each
#   socket read's 64 KiB buffer (libuv) would otherwise be an mmap and a munmap, 1.5 of each per
#   charge;
# - V8's old generation grows by at most half (PostgreSQL) or 30 % (PGlite) of what survived a
#   collection (`--heap-growing-percent`), instead of up to four times;
# - V8's young generation: semi-spaces of 32 MB on PostgreSQL (DATABASE_URL set), where requests'
#   short-lived objects then die young instead of being copied and promoted (status reads +20–50 %,
#   +30 MB resident); 8 MB on the embedded PGlite, whose engine shares this process's memory
#   (about 20 MB less at the end of the bench's charge run, the same charge rate);
# - on PostgreSQL, no allocation-site pretenuring: a decision V8 takes during a charge run, and
#   keeps for the process's life, to allocate some code sites' objects straight into the old
#   generation made status reads cost a third more CPU in a quarter of the benches; PGlite keeps
#   V8's default, which the flag would cost a third of its status reads (docs/architecture.md
#   "Memory", docs/benchmarks.md "Fifteenth session").
# V8 sizes its heap when the process starts, hence flags chosen here, by database.
if [ -n "${DATABASE_URL:-}" ]; then
  mmap_threshold=131072 heap_growing_percent=50 semi_space_mb=32 pretenuring=--no-allocation-site-pretenuring
else
  mmap_threshold=32768 heap_growing_percent=30 semi_space_mb=8 pretenuring=--allocation-site-pretenuring
fi
export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_="$mmap_threshold" MALLOC_TRIM_THRESHOLD_=131072
exec node "$pretenuring" --expose-gc --heap-growing-percent="$heap_growing_percent" --max-semi-space-size="$semi_space_mb" dist/main.js serve "$@"
