#!/bin/sh
# An engine that logs what it is told: appends every command it receives
# to the file given as its first argument, and passes it on to the engine
# program given as the rest (e.g. Ultimo), whose answers it passes back.
# The match runner's tests use it to see the `go` command each engine gets.
log=$1
shift
tee -a "$log" | "$@"
