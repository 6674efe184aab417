#!/usr/bin/env bash
# An evolution file's runs x seeds over a Slurm job array: array task K evolves shard K of N
# (with N equal to the number of (run, seed) pairs, one evolution per task; fewer tasks take
# several each). Every shard writes its own NAME-sSEED folder under OUT; nothing is merged.
#
#   FILE=tournaments/evolve/seed003.toml OUT=/shared/evolve N=18 sbatch --array=1-18 evolve-slurm.sh
#
# A failed or pre-empted task is re-run with `sbatch --array=K evolve-slurm.sh`: it resumes
# from its runs' checkpoints, bit for bit. When every task has finished:
#
#   arena evolve "$FILE" --out "$OUT" --report --cross 20
#
#SBATCH --job-name=arena-evolve
#SBATCH --array=1-18
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=4
#SBATCH --time=04:00:00
#SBATCH --output=arena-evolve-%A_%a.log

set -euo pipefail

FILE="${FILE:-tournaments/evolve/seed003.toml}"   # the evolution file, identical for every task
OUT="${OUT:-runs/evolve}"                         # output folder shared by all tasks
N="${N:-18}"                                      # number of shards: must match --array=1-N
ARENA="${ARENA:-arena}"                           # the harness binary (path or name on PATH)

: "${SLURM_ARRAY_TASK_ID:?run this script with sbatch --array=1-N}"
if (( SLURM_ARRAY_TASK_ID < 1 || SLURM_ARRAY_TASK_ID > N )); then
    echo "array task ${SLURM_ARRAY_TASK_ID} is outside 1..${N}: set N to match --array" >&2
    exit 2
fi

mkdir -p "$OUT"
exec "$ARENA" evolve "$FILE" --shard "${SLURM_ARRAY_TASK_ID}/${N}" --out "$OUT" --resume --json
