#!/usr/bin/env python3
"""Where a player's lost checkers games went wrong, by a judge engine's values.

Reads the journal of an `arena tournament` (journal.jsonl), replays every game the named
player lost on the board (not on an illegal move or a fault), and before each of the
player's moves after the opening asks a CheckerBoard engine library hosted by `cbhost` (the
judge, Cake by default) for its search value of the position, from the player's side
(hundredths of a man). Positions come from `tmbot checkers` (`play` and `showboard`), so the
judge only ever sees a FEN. Prints one line per game (its values by ply) and a summary: in
which ten-ply stretch the value first fell to -50 and -100, and where the drops of 40 or more
between two of the player's moves happened.

    python3 bench/trace_losses.py runs/opponents/journal.jsonl --player tmbot \\
        --engine-dir opponents/capers/cake --time 0.2 --part 0/2

--part K/N takes the lost games whose index is K modulo N, so N processes can share the work.
A judge's value comes from a search of --time seconds; book moves, and answers the host
refuses (an illegal move of the judge's), give no value (shown -).
"""
import argparse
import collections
import json
import os

from text_engine import TextEngine, checkers_board, genmove_values

# Values beyond this are the judge's database or mate scores, not positional judgements.
DECIDED = 2000


def lost_on_board(record, player):
    side = "black" if record["black"] == player else "white"
    if record["white"] != player and side == "white":
        return None
    lost = record["result"] == ("0-1" if side == "black" else "1-0")
    return side if lost and record["termination"] == "NORMAL" else None


def trace(tracker, judge, record, side):
    """(ply, value) before each of `side`'s moves after the opening."""
    tracker.ask_ok("setboard " + record["start"])
    moves = record["opening"] + [m["mv"] for m in record["moves"]]
    values = []
    to_move = "black"
    for ply, move in enumerate(moves):
        if to_move == side and ply >= len(record["opening"]):
            judge.ask_ok("setboard " + checkers_board(tracker))
            found = genmove_values(judge)
            values.append((ply, found[-1] if found else None))
        tracker.ask_ok("play " + move)
        to_move = "white" if to_move == "black" else "black"
    return values


def stretch(ply):
    return f"{ply // 10 * 10}-{ply // 10 * 10 + 9}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("journal", help="journal.jsonl of an arena tournament")
    parser.add_argument("--player", default="tmbot", help="the player whose losses to trace")
    parser.add_argument("--tmbot", default="target/release/tmbot")
    parser.add_argument("--cbhost", default="target/release/cbhost")
    parser.add_argument("--engine-dir", required=True, help="the judge library's folder")
    parser.add_argument("--library", default="./cake.so")
    parser.add_argument("--time", default="0.2", help="the judge's seconds a position")
    parser.add_argument("--part", default="0/1", help="K/N: the lost games K modulo N")
    a = parser.parse_args()
    part, parts = (int(x) for x in a.part.split("/"))

    tracker = TextEngine([os.path.abspath(a.tmbot), "checkers"], None)
    judge = TextEngine([os.path.abspath(a.cbhost), a.library, "--time", a.time], a.engine_dir)
    first_50, first_100, drops = [], [], []
    with open(a.journal) as f:
        for line in f:
            entry = json.loads(line)
            side = lost_on_board(entry["record"], a.player)
            if side is None or entry["index"] % parts != part:
                continue
            values = trace(tracker, judge, entry["record"], side)
            judged = [(p, v) for p, v in values if v is not None and abs(v) < DECIDED]
            first_50.append(next((p for p, v in judged if v <= -50), None))
            first_100.append(next((p for p, v in judged if v <= -100), None))
            drops += [p for (p, v), (q, w) in zip(judged, judged[1:])
                      if q == p + 2 and v - w >= 40]
            shown = " ".join(f"{p}:{'-' if v is None else v}" for p, v in values)
            print(f"game {entry['index']} ({side}, opening {' '.join(entry['record']['opening'])}):"
                  f" {shown}", flush=True)

    def table(title, plies):
        counts = collections.Counter(stretch(p) for p in plies if p is not None)
        never = sum(p is None for p in plies)
        order = sorted(counts, key=lambda s: int(s.split("-")[0]))
        print(f"{title}: " + ", ".join(f"plies {s}: {counts[s]}" for s in order)
              + (f", never: {never}" if never else ""))

    print(f"{len(first_50)} lost games traced")
    table("value first at -50 or below", first_50)
    table("value first at -100 or below", first_100)
    table("drops of 40 or more between two moves", drops)


if __name__ == "__main__":
    main()
