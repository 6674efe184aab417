#!/usr/bin/env python3
"""Time and nodes tmbot binaries take to search checkers positions to a fixed depth.

Each binary runs `tmbot checkers` with `param_tmbot player SPEC,depth=D` and searches every
position of a FEN file (one a line) from a fresh game record (a new table generation), so
the nodes do not depend on the order. The binaries take turns, A B A B ..., for --rounds
rounds; the script prints each round's seconds and nodes and, per binary, the median
seconds and the nodes (the same in every round: the search is deterministic at a fixed
depth). Positions with one legal move are played without a search and left out.

    python3 bench/checkers_time_to_depth.py OLD/tmbot NEW/tmbot --depth 21 --rounds 3
"""
import argparse
import os
import re
import statistics
import time

from text_engine import TextEngine

SUMMARY = re.compile(r"^genmove \w+: .* depth (\d+) nodes (\d+) ")
HERE = os.path.dirname(os.path.abspath(__file__))


def search_all(binary, spec, depth, positions):
    """Seconds (wall, around each search) and nodes over the positions that need a search."""
    engine = TextEngine([binary, "checkers"])
    engine.ask_ok(f"param_tmbot player {spec},depth={depth}")
    engine.ask_ok("param_tmbot max_time 3600")
    seconds = 0.0
    nodes = 0
    for position in positions:
        engine.ask_ok("setboard " + position)
        start = time.perf_counter()
        lines = engine.ask_ok("genmove")
        elapsed = time.perf_counter() - start
        found = [m for m in map(SUMMARY.match, lines) if m]
        if found:
            seconds += elapsed
            nodes += int(found[-1].group(2))
    engine.close()
    return seconds, nodes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binaries", nargs="+", help="tmbot binaries to compare")
    parser.add_argument("--positions", default=os.path.join(HERE, "checkers-middlegames.txt"))
    parser.add_argument("--spec", default="alphabeta:tt=22,eval=knowledge")
    parser.add_argument("--depth", type=int, default=21)
    parser.add_argument("--rounds", type=int, default=3)
    a = parser.parse_args()
    with open(a.positions) as f:
        positions = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    results = {binary: [] for binary in a.binaries}
    for round_index in range(a.rounds):
        for binary in a.binaries:
            seconds, nodes = search_all(binary, a.spec, a.depth, positions)
            results[binary].append((seconds, nodes))
            print(f"round {round_index + 1}  {binary}: {seconds:.2f} s, {nodes} nodes",
                  flush=True)
    print(f"{len(positions)} positions of {a.positions}, {a.spec},depth={a.depth}:")
    for binary, runs in results.items():
        median = statistics.median(s for s, _ in runs)
        spread = f"{min(s for s, _ in runs):.2f}-{max(s for s, _ in runs):.2f}"
        print(f"  {binary}: median {median:.2f} s [{spread}], {runs[-1][1]} nodes")


if __name__ == "__main__":
    main()
