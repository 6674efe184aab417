#!/bin/sh
# Seed 000, 9x9 Hex, five moves before the end, at the paper's setting (95.1% reported):
# the connection symbols in a 1,024-bit hypervector (two positions each), 10,000 shared
# clauses, T 20000, s 20, 16 state bits, EPOCHS epochs (default 20). ENCODER replaces the
# encoder: `ENCODER=hex-connection:hv=1024,hv-bits=2,fold=on,rotate=on` trains on each
# position's mirror and half-turn copies too (four rows for one; the test set as it is).
# HV_SEED picks the mapping of symbols to positions (default 0); seed 000 drew a new one for
# every run, so `--seed K` with `HV_SEED=K` varies both as its runs did.
# UPDATE is the coalesced update (default joint, that of the runs in BENCHMARKS.md;
# `UPDATE=sequential` for the machine's default). Extra arguments go to arena train (-o FILE).
set -eu
ARENA=${ARENA:-target/release/arena}
DATA=${DATA:-../shared/data}
exec "$ARENA" train "$DATA/hex/hex_9x9_5moves_train.csv" \
    --test "$DATA/hex/hex_9x9_5moves_test.csv" \
    --encoder "${ENCODER:-hex-connection:hv=1024,hv-bits=2,hv-seed=${HV_SEED:-0}}" --model coalesced \
    --clauses 10000 --T 20000 --s 20 --state-bits 16 --coalesced-update "${UPDATE:-joint}" \
    --epochs "${EPOCHS:-20}" \
    --test-each-epoch "$@"
