#!/usr/bin/env python3
"""How closely `go solve` keeps a time limit and how fast it stops.

Usage: scripts/solve-latency.py [path/to/ultimo]   (default target/release/ultimo)

Sends `go solve movetime 20` fifteen times from the start position and
prints by how much the time from `go` to `bestmove` (as this script sees
it, pipes included) passes 20 ms; then fifteen times `go solve infinite`,
`stop` 50 ms later, and the time from `stop` to `bestmove`. Medians and
maxima in milliseconds. Run it on an idle machine.
"""
import statistics
import subprocess
import sys
import time

exe = sys.argv[1] if len(sys.argv) > 1 else "target/release/ultimo"
p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def send(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def until(prefix):
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("the engine ended")
        if line.startswith(prefix):
            return line


send("setoption name Hash value 64")
send("isready")
until("readyok")
send("position startpos")
send("go solve nodes 1000")  # the table is reserved at the first solve
until("bestmove")
over, stops = [], []
for _ in range(15):
    t = time.perf_counter()
    send("go solve movetime 20")
    until("bestmove")
    over.append((time.perf_counter() - t) * 1000 - 20)
    send("go solve infinite")
    time.sleep(0.05)
    t = time.perf_counter()
    send("stop")
    until("bestmove")
    stops.append((time.perf_counter() - t) * 1000)
send("quit")
print("go solve movetime 20: past the limit by %.2f ms (median), %.2f ms (max)" % (statistics.median(over), max(over)))
print("stop to bestmove: %.2f ms (median), %.2f ms (max)" % (statistics.median(stops), max(stops)))
