#!/bin/sh
# A deliberately broken engine for the match runner's tests. It answers the
# handshake and `isready` like a protocol engine, then on `go` misbehaves as
# its first argument says:
#   illegal  always plays e5 (legal once at most)
#   garbage  answers `bestmove zz`
#   exit     exits without answering
#   silent   never answers
# and in mode `mute` it answers nothing at all, not even the handshake.
mode=${1:-illegal}
while read -r command rest; do
    [ "$mode" = mute ] && continue
    case $command in
        ugi) echo "id name broken-$mode"; echo ugiok ;;
        uci) echo "id name broken-$mode"; echo uciok ;;
        isready) echo readyok ;;
        go)
            case $mode in
                illegal) echo "bestmove e5" ;;
                garbage) echo "bestmove zz" ;;
                exit) exit 1 ;;
                silent) ;;
            esac
            ;;
        quit) exit 0 ;;
    esac
done
