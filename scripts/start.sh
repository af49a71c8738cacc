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
# - on PostgreSQL, no allocation-site pretenuring: V8 may decide, during a charge run whose
#   requests live across scavenges, to allocate the objects of some code sites straight into the
#   old generation, and it keeps that decision for the process's life
#   (--trace-pretenuring-statistics); status reads then filled the old generation at about
#   20 MB/s, with scavenges of 4-5 ms instead of under 1 ms and about three full collections a
#   second: 33-35 instead of 21-24 us of CPU a read, in 5 of 21 benches; with the flag, none in
#   10. On PGlite the flag cost a third of the status reads (56-67 -> 80-96 us of CPU a read) and
#   that state was never seen, so PGlite keeps V8's pretenuring (docs/benchmarks.md "Fifteenth
#   session").
# V8 sizes its heap when the process starts, hence flags chosen here, by database.
if [ -n "${DATABASE_URL:-}" ]; then
  mmap_threshold=131072 heap_growing_percent=50 semi_space_mb=32 pretenuring=--no-allocation-site-pretenuring
else
  mmap_threshold=32768 heap_growing_percent=30 semi_space_mb=8 pretenuring=--allocation-site-pretenuring
fi
export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_="$mmap_threshold" MALLOC_TRIM_THRESHOLD_=131072
exec node "$pretenuring" --expose-gc --heap-growing-percent="$heap_growing_percent" --max-semi-space-size="$semi_space_mb" dist/main.js serve "$@"
