#!/usr/bin/env python3
"""Label checkers positions with a CheckerBoard engine's search value.

Reads positions files of `arena selfplay` (checkers), asks the engine hosted by `cbhost`
for its move in a sample of their positions, and writes a positions file of the same format
whose `value` column holds the engine's value for the side to move, mapped from its score
S (hundredths of a man) to 1 / (1 + exp(-S / SCALE)); `visits` is left empty. Positions the
engine answers without a score (its opening book), the first plies of each game
(--skip-plies) and final positions are left out. `arena tune --value-weight 1` then fits the
knowledge evaluation to these values.

    python3 bench/label_positions.py runs/selfplay/positions.csv --out labeled.csv \\
        --engine-dir opponents/capers/cake --library ./cake.so --time 0.02 --count 100000

The sample is drawn with --seed from the files' rows in the order given, so the same
arguments label the same positions; an engine searching by time may value them slightly
differently from run to run.
"""
import argparse
import csv
import math
import os
import random
import re
import subprocess
import sys

HEADER = ["event", "game", "ply", "plies_to_end", "side_to_move", "position",
          "outcome_stm", "outcome_black", "value", "visits"]
SCORE = re.compile(r"^genmove \w+: .* value (-?\d+)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("positions", nargs="+", help="positions.csv files of arena selfplay")
    parser.add_argument("--out", required=True, help="the labeled positions file to write")
    parser.add_argument("--cbhost", default="target/release/cbhost")
    parser.add_argument("--engine-dir", required=True, help="the engine library's folder")
    parser.add_argument("--library", default="./cake.so")
    parser.add_argument("--time", default="0.02", help="seconds a position")
    parser.add_argument("--count", type=int, default=100000, help="positions to label")
    parser.add_argument("--skip-plies", type=int, default=8)
    parser.add_argument("--scale", type=float, default=200.0)
    parser.add_argument("--seed", type=int, default=7)
    a = parser.parse_args()

    rows = []
    for path in a.positions:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            if next(reader, None) != HEADER:
                sys.exit(f"{path}: not a positions file (header {','.join(HEADER)})")
            rows += [r for r in reader
                     if len(r) == len(HEADER) and int(r[2]) >= a.skip_plies and int(r[3]) > 0]
    random.Random(a.seed).shuffle(rows)
    rows = rows[:a.count]

    engine = subprocess.Popen(
        [os.path.abspath(a.cbhost), a.library, "--time", a.time], cwd=a.engine_dir,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        bufsize=1)

    def ask(command):
        """Sends one command; returns every line up to and including its answer."""
        engine.stdin.write(command + "\n")
        engine.stdin.flush()
        lines = []
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit(f"the engine stopped after '{command}'")
            lines.append(line)
            if line.startswith("=") or line.startswith("?"):
                engine.stdout.readline()  # the empty line closing the answer
                return lines

    tmp = a.out + ".tmp"
    labeled = 0
    with open(tmp, "w") as f:
        f.write(",".join(HEADER) + "\n")
        for done, row in enumerate(rows, 1):
            if not ask("setboard " + row[5])[-1].startswith("="):
                sys.exit(f"the engine refused position {row[5]}")
            scores = [int(m.group(1)) for m in map(SCORE.match, ask("genmove")) if m]
            if scores:
                row[8] = f"{1.0 / (1.0 + math.exp(-scores[-1] / a.scale)):.4f}"
                row[9] = ""
                # The position always quoted, as arena writes it.
                f.write(",".join(row[:5]) + ',"' + row[5] + '",' + ",".join(row[6:]) + "\n")
                labeled += 1
            if done % 5000 == 0:
                print(f"{done} of {len(rows)} asked, {labeled} labeled", file=sys.stderr)
    ask("quit")
    os.replace(tmp, a.out)
    print(f"{labeled} of {len(rows)} positions labeled into {a.out}")


if __name__ == "__main__":
    main()
