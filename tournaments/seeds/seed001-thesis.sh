#!/bin/sh
# Seed 001's ten folds at the thesis's setting (71.69% reported): one weighted machine per
# class with positive boost, 19,000 clauses, T 40000, s 9, adaptive epochs on a validation
# tenth of each training set, two folds at a time. The journal in OUT (default cv-thesis)
# keeps every finished fold: run again with --resume to continue. Extra arguments go to
# arena cv: `--adaptive-on test` stops each fold on its test accuracy, as the thesis did
# (no validation tenth held out: a choice made on the test set). ENCODER replaces the
# encoder: `ENCODER=checkers-planes:fold=on` trains on each position's colour-exchanged copy
# too (two rows for one; test folds and validation rows as they are).
set -eu
ARENA=${ARENA:-target/release/arena}
DATA=${DATA:-../shared/data}
OUT=${OUT:-cv-thesis}
F=$DATA/checkers/standard_end_10fold
exec "$ARENA" cv "$F/fold0.csv" "$F/fold1.csv" "$F/fold2.csv" "$F/fold3.csv" "$F/fold4.csv" \
    "$F/fold5.csv" "$F/fold6.csv" "$F/fold7.csv" "$F/fold8.csv" "$F/fold9.csv" \
    --encoder "${ENCODER:-checkers-planes}" --weighted --clauses 19000 --T 40000 --s 9 \
    --adaptive --max-epochs 100 --fold-jobs 2 --out "$OUT" "$@"
