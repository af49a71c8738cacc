#!/bin/sh
# `npm start` (after its prestart build): the compiled server as production runs it. `exec`, so the
# server is this very process (its pid, its signals). What it sets, and why (each measured with
# the bench, alternating runs with and without):
# - glibc's allocator (environment variables of mallopt(3), read by the C library when the
#   process starts, hence set here; musl and macOS ignore them): two arenas and a fixed 128 KiB
#   trim threshold, so that freed memory goes back to the system. On the embedded PGlite, blocks
#   of 32 KiB and more get mappings of their own: the server ends the bench's charge run at about
#   230-290 MB resident instead of 376-413 MB, at the same charge rate. On PostgreSQL the
#   threshold is 128 KiB: libuv reads each socket into a fresh 64 KiB buffer, which at 32 KiB
#   cost an mmap and a munmap each, about 1.5 of each per charge; at 128 KiB charges are about
#   6 % faster at the same resident memory.
# - `--expose-gc`: a new PGlite data directory is made by initdb, a WebAssembly module of about
#   300 MB that V8 would free only at some later full collection; with the flag, the database
#   opener runs that one collection (a first start at rest: 672 -> 349 MB). Without it, nothing
#   is done. No other Node or V8 flag: the server runs on any supported Node as it is.
if [ -n "${DATABASE_URL:-}" ]; then
  mmap_threshold=131072
else
  mmap_threshold=32768
fi
export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_="$mmap_threshold" MALLOC_TRIM_THRESHOLD_=131072
exec node --expose-gc dist/main.js serve "$@"
