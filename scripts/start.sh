#!/bin/sh
# `npm start` (after its prestart build): the compiled server as production runs it. `exec`, so the
# server is this very process (its pid, its signals).
exec node dist/main.js serve "$@"
