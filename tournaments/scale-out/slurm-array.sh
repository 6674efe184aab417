#!/usr/bin/env bash
# One tournament split over a Slurm job array: array task K plays shard K of N.
#
#   CONFIG=tournaments/my.toml OUT=/shared/runs/my sbatch --array=1-16 slurm-array.sh
#
# Keep --array=1-N and N equal (the header below says 1-16; a command-line --array
# overrides it, so pass N with it: `N=32 sbatch --array=1-32 ...`). OUT must be on a file
# system every node sees. A failed task is re-run with `sbatch --array=K slurm-array.sh`:
# a shard resumes from its own journal and never touches another shard's files.
# When every task has finished, run merge.sh.
#
#SBATCH --job-name=arena-shard
#SBATCH --array=1-16
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=4
#SBATCH --time=04:00:00
#SBATCH --output=arena-shard-%A_%a.log

set -euo pipefail

# Settings (environment variables override these defaults).
CONFIG="${CONFIG:-tournaments/quick.toml}"   # the tournament file, identical for every shard
OUT="${OUT:-runs/scale-out}"                 # output folder shared by all shards
N="${N:-16}"                                 # number of shards: must match --array=1-N
ARENA="${ARENA:-arena}"                      # the harness binary (path or name on PATH)

: "${SLURM_ARRAY_TASK_ID:?run this script with sbatch --array=1-N}"
if (( SLURM_ARRAY_TASK_ID < 1 || SLURM_ARRAY_TASK_ID > N )); then
    echo "array task ${SLURM_ARRAY_TASK_ID} is outside 1..${N}: set N to match --array" >&2
    exit 2
fi

mkdir -p "$OUT"
exec "$ARENA" tournament "$CONFIG" \
    --shard "${SLURM_ARRAY_TASK_ID}/${N}" \
    --out "$OUT/shard-${SLURM_ARRAY_TASK_ID}" \
    --resume
