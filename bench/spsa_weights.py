#!/usr/bin/env python3
"""Tune the checkers knowledge evaluation's weights on game results (SPSA).

Simultaneous perturbation stochastic approximation, as chess engines tune their parameters
on games: each iteration draws a sign (+1 or -1) for every tuned weight, plays the weights
moved one step along the signs against the weights moved one step against them (`arena
tournament`, ACF ballots with both colours, fixed-depth alpha-beta so that the games do not
depend on the machine's load), and moves every weight along its sign by the step times
the first side's result (wins less losses, per game). The steps shrink slowly over the
iterations, the moves faster (the usual exponents 0.101 and 0.602).

    python3 bench/spsa_weights.py --iterations 300 --out tuned.weights
    python3 bench/spsa_weights.py --start W --terms 'man|king|trade' --depth 6 ...

Tuned by default: the named terms and their `end:` twins that the start file gives a
weight (the square tables with --terms '.'). Every iteration is appended to --journal
(JSON lines: the iteration, the result, the weights after it), and the weights file is
rewritten (through a temporary file) after each, so a stopped run leaves its last weights.
Each iteration's games use the seed --seed + iteration: a run is reproduced by its
arguments.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HEADER = "# tmbot checkers knowledge weights, version 1"


def read_weights(path):
    """The scale and the (name, value) lines of a weights file, in file order."""
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or lines[0].strip() != HEADER:
        sys.exit(f"{path}:1: expected '{HEADER}'")
    scale, weights = 200.0, []
    for number, line in enumerate(lines[1:], 2):
        line = line.split("#")[0].strip()
        if not line:
            continue
        parts = line.split()
        try:
            name, value = parts[0], float(parts[1])
        except (IndexError, ValueError):
            sys.exit(f"{path}:{number}: expected 'NAME VALUE', got '{line}'")
        if name == "scale":
            scale = value
        else:
            weights.append((name, value))
    return scale, weights


def write_weights(path, scale, weights, comment):
    """Writes a weights file through a temporary file in the same folder."""
    text = f"{HEADER}\n# {comment}\nscale {scale}\n"
    text += "".join(f"{name} {round(value, 2)}\n" for name, value in weights)
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False) as f:
        f.write(text)
    os.replace(f.name, path)


def play(args, plus, minus, seed, work):
    """Plays `plus` against `minus` (weights files) and returns (wins, draws, losses) of
    `plus`."""
    spec = f"alphabeta:depth={args.depth},tt=18,eval=knowledge:"
    toml = os.path.join(work, "match.toml")
    with open(toml, "w") as f:
        f.write(f"""seed = {seed}
concurrency = {args.concurrency}

[[event]]
name = "spsa"
game = "checkers"
games = {args.games}
openings = "{os.path.abspath(args.openings)}"
opening_order = "shuffled"
max_plies = 300
players = [
    {{ name = "plus", spec = "{spec}{plus}" }},
    {{ name = "minus", spec = "{spec}{minus}" }},
]
""")
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    run = subprocess.run([args.arena, "tournament", toml, "--out", out],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"arena tournament failed:\n{run.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        pairing = json.load(f)["events"][0]["pairings"][0]
    wdl = pairing["wdl"]
    if pairing["a"] == "plus":
        return wdl["wins"], wdl["draws"], wdl["losses"]
    return wdl["losses"], wdl["draws"], wdl["wins"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", default="src/eval/checkers_knowledge.weights")
    parser.add_argument("--out", required=True, help="the tuned weights file")
    parser.add_argument("--journal", help="JSON lines, one an iteration (default: OUT.jsonl)")
    parser.add_argument("--terms", default=r"^(end:)?[a-z-]+$",
                        help="regular expression of the names tuned")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--games", type=int, default=64, help="games an iteration (even)")
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--step", type=float, default=0.1,
                        help="a weight's first step, as a share of its start value")
    parser.add_argument("--least-step", type=float, default=1.0,
                        help="the smallest first step (hundredths of a man)")
    parser.add_argument("--rate", type=float, default=2.0,
                        help="steps moved for a result of one (all games won) at first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--arena", default="target/release/arena")
    parser.add_argument("--openings", default="openings/checkers-3move.txt")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        sys.exit("--games must be even (each ballot with both colours)")
    scale, weights = read_weights(args.start)
    pattern = re.compile(args.terms)
    tuned = [i for i, (name, _) in enumerate(weights) if pattern.search(name)]
    if not tuned:
        sys.exit(f"no weight of {args.start} matches --terms '{args.terms}'")
    first_step = {i: max(args.least_step, args.step * abs(weights[i][1])) for i in tuned}
    journal = args.journal or args.out + ".jsonl"
    rng = random.Random(args.seed)
    values = [value for _, value in weights]
    print(f"tuning {len(tuned)} weights of {args.start} over {args.iterations} iterations "
          f"of {args.games} games at depth {args.depth}", flush=True)
    with tempfile.TemporaryDirectory() as work, open(journal, "a") as log:
        for k in range(args.iterations):
            shrink = (k + 1) ** -0.101
            rate = args.rate * ((k + 1 + args.iterations / 10) /
                                (1 + args.iterations / 10)) ** -0.602
            signs = {i: rng.choice((-1, 1)) for i in tuned}
            sides = []
            for direction in (1, -1):
                moved = list(values)
                for i in tuned:
                    moved[i] += direction * signs[i] * first_step[i] * shrink
                path = os.path.join(work, f"{'plus' if direction > 0 else 'minus'}.weights")
                write_weights(path, scale, [(n, v) for (n, _), v in zip(weights, moved)],
                              f"iteration {k}")
                sides.append(path)
            wins, draws, losses = play(args, sides[0], sides[1], args.seed + k, work)
            result = (wins - losses) / args.games
            for i in tuned:
                values[i] += rate * result * signs[i] * first_step[i] * shrink
            write_weights(args.out, scale, [(n, v) for (n, _), v in zip(weights, values)],
                          f"tuned by bench/spsa_weights.py from {args.start}, "
                          f"{k + 1} iterations of {args.games} games at depth {args.depth}")
            log.write(json.dumps({"iteration": k, "wins": wins, "draws": draws,
                                  "losses": losses,
                                  "weights": {weights[i][0]: round(values[i], 3)
                                              for i in tuned}}) + "\n")
            log.flush()
            print(f"{k + 1}/{args.iterations}: +{wins} ={draws} -{losses}", flush=True)


if __name__ == "__main__":
    main()
