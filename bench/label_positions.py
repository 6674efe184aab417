#!/usr/bin/env python3
"""Label checkers positions with a CheckerBoard engine's search value.

Reads positions files of `arena selfplay` (checkers), or journals of `arena tournament`
(journal.jsonl: every position of the games that ended on the board, replayed through
`tmbot checkers`), asks the engine hosted by `cbhost` for its move in a sample of their
positions, and writes a positions file of the same format whose `value` column holds the
engine's value for the side to move, mapped from its score S (hundredths of a man) to
1 / (1 + exp(-S / SCALE)); `visits` is left empty. Positions the engine answers without a
score (its opening book), the first plies of each game (--skip-plies) and final positions
are left out. `arena tune --value-weight 1` then fits the knowledge evaluation to these
values.

    python3 bench/label_positions.py runs/selfplay/positions.csv --out labeled.csv \\
        --engine-dir opponents/capers/cake --library ./cake.so --time 0.02 --count 100000
    python3 bench/label_positions.py runs/opponents-1s-cb/journal.jsonl --out labeled.csv \\
        --engine-dir opponents/capers/cake --time 0.3 --count 20000

The sample is drawn with --seed from the files' rows in the order given, so the same
arguments label the same positions; an engine searching by time may value them slightly
differently from run to run.
"""
import argparse
import csv
import json
import math
import os
import random
import sys

from text_engine import TextEngine, checkers_board, genmove_values

HEADER = ["event", "game", "ply", "plies_to_end", "side_to_move", "position",
          "outcome_stm", "outcome_black", "value", "visits"]


def positions_rows(path):
    """The rows of a positions file of `arena selfplay`."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        if next(reader, None) != HEADER:
            sys.exit(f"{path}: not a positions file (header {','.join(HEADER)})")
        return [r for r in reader if len(r) == len(HEADER)]


def journal_rows(path, tracker):
    """Rows in the positions file's format for every position of the checkers games of a
    tournament journal that ended on the board (not on an illegal move or a fault): each
    game is replayed by `tracker` (`tmbot checkers`), which gives the position before each
    move and after the last."""
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                entry = json.loads(line)
                record = entry["record"]
                moves = record["opening"] + [m["mv"] for m in record["moves"]]
                result, termination = record["result"], record["termination"]
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"{path}:{number}: not a journal entry of a checkers game ({e})")
            if termination not in ("NORMAL", "ADJUDICATION"):
                continue
            black = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
            tracker.ask_ok("setboard " + record["start"])
            for ply in range(len(moves) + 1):
                fen = checkers_board(tracker)
                side = fen[0].lower()
                stm = black if side == "b" else 1.0 - black
                rows.append([entry["event"], str(entry["index"]), str(ply),
                             str(len(moves) - ply), side, fen, f"{stm:g}", f"{black:g}", "",
                             ""])
                if ply < len(moves):
                    tracker.ask_ok("play " + moves[ply])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("positions", nargs="+",
                        help="positions.csv files of arena selfplay, journal.jsonl files of "
                             "arena tournament")
    parser.add_argument("--out", required=True, help="the labeled positions file to write")
    parser.add_argument("--cbhost", default="target/release/cbhost")
    parser.add_argument("--tmbot", default="target/release/tmbot",
                        help="replays the journals' games")
    parser.add_argument("--engine-dir", required=True, help="the engine library's folder")
    parser.add_argument("--library", default="./cake.so")
    parser.add_argument("--time", default="0.02", help="seconds a position")
    parser.add_argument("--count", type=int, default=100000, help="positions to label")
    parser.add_argument("--skip-plies", type=int, default=8)
    parser.add_argument("--scale", type=float, default=200.0)
    parser.add_argument("--seed", type=int, default=7)
    a = parser.parse_args()

    rows = []
    tracker = None
    for path in a.positions:
        if path.endswith(".jsonl"):
            if tracker is None:
                tracker = TextEngine([os.path.abspath(a.tmbot), "checkers"])
            found = journal_rows(path, tracker)
        else:
            found = positions_rows(path)
        rows += [r for r in found if int(r[2]) >= a.skip_plies and int(r[3]) > 0]
    if tracker is not None:
        tracker.close()
    random.Random(a.seed).shuffle(rows)
    rows = rows[:a.count]

    engine = TextEngine([os.path.abspath(a.cbhost), a.library, "--time", a.time],
                        a.engine_dir)
    tmp = a.out + ".tmp"
    labeled = 0
    with open(tmp, "w") as f:
        f.write(",".join(HEADER) + "\n")
        for done, row in enumerate(rows, 1):
            engine.ask_ok("setboard " + row[5])
            scores = genmove_values(engine)
            if scores:
                row[8] = f"{1.0 / (1.0 + math.exp(-scores[-1] / a.scale)):.4f}"
                row[9] = ""
                # The position always quoted, as arena writes it.
                f.write(",".join(row[:5]) + ',"' + row[5] + '",' + ",".join(row[6:]) + "\n")
                labeled += 1
            if done % 5000 == 0:
                print(f"{done} of {len(rows)} asked, {labeled} labeled", file=sys.stderr)
    engine.close()
    os.replace(tmp, a.out)
    print(f"{labeled} of {len(rows)} positions labeled into {a.out}")


if __name__ == "__main__":
    main()
