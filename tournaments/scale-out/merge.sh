#!/usr/bin/env bash
# Joins the shards of a scaled-out tournament into one result, as an unsharded run would
# have written it. Run once every shard has finished (Slurm: after the array job;
# Kubernetes: after the Indexed Job reports Complete).
#
#   OUT=/shared/runs/my ./merge.sh
set -euo pipefail

OUT="${OUT:-runs/scale-out}"   # the folder the shards wrote into
ARENA="${ARENA:-arena}"        # the harness binary (path or name on PATH)

shopt -s nullglob
shards=("$OUT"/shard-*)
if (( ${#shards[@]} == 0 )); then
    echo "no shard folders under $OUT" >&2
    exit 2
fi

exec "$ARENA" merge "${shards[@]}" --out "$OUT/merged"
