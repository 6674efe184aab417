#!/usr/bin/env python3
"""Where did tmbot lose? For each game tmbot lost in a tournament journal against MoHex,
replays the game and, after every tmbot move, asks MoHex's DFPN solver
(`dfpn-solve-state`, `param_dfpn timelimit SECONDS`) who wins the position: T (tmbot),
L (MoHex) or ? (not proven in time). Stops a game at its first L. Each entry prints as
PLY:MOVE:RESULT:VALUE, VALUE being tmbot's own estimate of the move.

Usage: bench/mohex-proofs.py JOURNAL [GAMES=12] [SECONDS=3]   (needs `mohex` on PATH)
"""
import json
import subprocess
import sys


def main():
    journal = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    seconds = sys.argv[3] if len(sys.argv) > 3 else "3"
    mohex = subprocess.Popen(["mohex", "--quiet", "--use-logfile=0"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def ask(command):
        mohex.stdin.write(command + "\n")
        mohex.stdin.flush()
        lines = []
        while True:
            line = mohex.stdout.readline()
            if not line:
                sys.exit(f"mohex ended while answering {command!r}")
            if line.strip():
                lines.append(line.strip())
            elif lines:
                return " ".join(lines)

    ask("param_dfpn timelimit " + seconds)
    lost = 0
    for line in open(journal):
        entry = json.loads(line)
        record = entry["record"]
        tmbot = 0 if "tmbot" in record["black"] else 1
        winner = 0 if record["result"] == "1-0" else 1
        if winner == tmbot:
            continue
        lost += 1
        if lost > limit:
            break
        size = record["start"].count("/") + 1
        ask(f"boardsize {size} {size}")
        moves = record["opening"] + [m["mv"] for m in record["moves"]]
        book = len(record["opening"])
        found = []
        for ply, move in enumerate(moves):
            color = "b" if ply % 2 == 0 else "w"
            ask(f"play {color} {move}")
            if ply < book or ply % 2 != tmbot:
                continue
            answer = ask("dfpn-solve-state " + ("w" if color == "b" else "b")).split()[-1]
            mine = "black" if tmbot == 0 else "white"
            result = "?" if answer not in ("black", "white") else ("T" if answer == mine else "L")
            value = record["moves"][ply - book].get("value")
            found.append(f"{ply + 1}:{move}:{result}" + (f":{value:.2f}" if value is not None else ""))
            if result == "L":
                break
        side = "black" if tmbot == 0 else "white"
        print(f"game {entry['index']} tmbot {side} opening {' '.join(record['opening'])}: "
              + " ".join(found), flush=True)


if __name__ == "__main__":
    main()
