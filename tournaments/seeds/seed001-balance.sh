#!/bin/sh
# Ours on seed 001's ten folds: the thesis's planes with the material balance appended
# (`checkers-planes:balance=on`: own pieces minus the opponent's and own kings minus the
# opponent's as thermometers, 48 bits), a weighted machine per class, s 9, two folds at a
# time. SIZE=small (default): 2,000 clauses, T 4000, 15 epochs; SIZE=thesis: the thesis's
# 19,000 clauses, T 40000, adaptive epochs (at most 100). The journal in OUT (default
# cv-balance) keeps every finished fold: run again with --resume to continue. Extra arguments
# go to arena cv (`--device cuda`).
set -eu
ARENA=${ARENA:-target/release/arena}
DATA=${DATA:-../shared/data}
OUT=${OUT:-cv-balance}
case ${SIZE:-small} in
    small) size="--clauses 2000 --T 4000 --epochs 15" ;;
    thesis) size="--clauses 19000 --T 40000 --adaptive --max-epochs 100" ;;
    *) echo "SIZE must be small or thesis" >&2; exit 2 ;;
esac
F=$DATA/checkers/standard_end_10fold
# shellcheck disable=SC2086
exec "$ARENA" cv "$F/fold0.csv" "$F/fold1.csv" "$F/fold2.csv" "$F/fold3.csv" "$F/fold4.csv" \
    "$F/fold5.csv" "$F/fold6.csv" "$F/fold7.csv" "$F/fold8.csv" "$F/fold9.csv" \
    --encoder checkers-planes:balance=on --weighted $size --s 9 --seed 1 --fold-jobs 2 \
    --out "$OUT" "$@"
