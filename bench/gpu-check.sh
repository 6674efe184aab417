#!/bin/bash
# The `cuda` feature's whole check, in one run on a machine with an NVIDIA GPU:
#   1. builds arena and the GPU tests with the feature, unless $GPU_BIN (default .gpu-bin)
#      holds them (`bash bench/gpu-check.sh --prepare` makes them for a machine without a
#      Rust toolchain);
#   2. runs tests/cuda.rs, the GPU-CPU equality tests, with a GPU required;
#   3. `arena bench gpu`: the checkers thesis's machine, epochs on the GPU beside 2 CPU
#      threads, then batched inference;
#   4. seed 000's 9x9 sets, per-class machine (1,000 clauses, T 1,000, s 18, 10 epochs):
#      the GPU's models against the CPU's given the same draws (`--device cuda-reference`,
#      whose models' SHA-256 `--prepare` computes into $REF, as it takes minutes), then the
#      GPU's accuracy over seeds $SEEDS (the CPU's, with its own draws, to set beside them:
#      `arena train ... --seed N` on any machine);
#   5. games with a Tsetlin Machine evaluator scoring on the GPU (bench/gpu-game.toml) and
#      the same games scored on the CPU: the records must be equal;
#   6. with FOLDS=1, the checkers thesis's 10-fold cross-validation on the GPU.
# Usage: bash bench/gpu-check.sh [OUT]   (figures and logs go to OUT, default gpu-check)
#        DATA=folder of the seeds' data (default ../shared/data)
set -u
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prepare" ]; then
    # Build here, for a GPU machine without Rust: binaries to .gpu-bin, data to .gpu-data.
    set -e
    cargo build --release --workspace --features cuda
    tests=$(cargo test --profile ci-test --features cuda --test cuda --no-run \
        --message-format=json | grep '"name":"cuda","src_path"' \
        | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
    mkdir -p .gpu-bin
    cp target/release/arena .gpu-bin/arena
    cp "$tests" .gpu-bin/cuda-tests
    rm -rf .gpu-data && cp -rL "${DATA:-../shared/data}" .gpu-data
    # The models the GPU must reproduce in step 4 (single-threaded: a few minutes each).
    mkdir -p .gpu-ref
    for set in 2moves 5moves; do
        target/release/arena train ".gpu-data/hex/hex_9x9_${set}_train.csv" \
            --encoder hex-connection --clauses 1000 --T 1000 --s 18 --epochs 10 --seed 1 \
            --device cuda-reference -o .gpu-ref/model.tm >/dev/null
        sha256sum <.gpu-ref/model.tm | cut -d' ' -f1 >".gpu-ref/$set.sha256"
        rm .gpu-ref/model.tm
    done
    echo "prepared .gpu-bin, .gpu-data and .gpu-ref"
    exit 0
fi

OUT=${1:-gpu-check}
mkdir -p "$OUT"
DATA=${DATA:-../shared/data}
[ -d "$DATA" ] || DATA=.gpu-data
GPU_BIN=${GPU_BIN:-.gpu-bin}

echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
nproc
# NVRTC: the toolkit's, or the one a Python CUDA wheel brings.
nvrtc=$(find /usr/local /opt /usr/lib -name 'libnvrtc.so*' 2>/dev/null | grep -v stub | head -1)
[ -n "$nvrtc" ] && export LD_LIBRARY_PATH="$(dirname "$nvrtc"):${LD_LIBRARY_PATH:-}"
echo "nvrtc: ${nvrtc:-not found}"

if command -v cargo >/dev/null && [ ! -x "$GPU_BIN/arena" ]; then
    echo "== build"
    cargo build --release --workspace --features cuda || exit 1
    ARENA=target/release/arena
    TESTS="cargo test --profile ci-test --features cuda --test cuda --"
else
    ARENA=$GPU_BIN/arena
    TESTS=$GPU_BIN/cuda-tests
fi
echo "== equality tests"
TMBOT_DATA=$(realpath "$DATA") TMBOT_REQUIRE_GPU=1 timeout 100 $TESTS --test-threads 1 --nocapture 2>&1 | tee "$OUT/tests.log" \
    | grep -E "GPU:|seed|three|test result|panicked|FAILED|ok$"

echo "== arena bench gpu"
timeout 120 "$ARENA" bench gpu --folds "$DATA/checkers/standard_end_10fold" --cpu-epochs 1 \
    --gpu-epochs 3 2>"$OUT/bench.err" | tee "$OUT/bench.log"
tail -3 "$OUT/bench.err"

REF=${REF:-.gpu-ref}
echo "== seed 000 9x9: the GPU's model against the CPU's with the same draws (seed 1)"
for set in 2moves 5moves; do
    timeout 60 "$ARENA" train "$DATA/hex/hex_9x9_${set}_train.csv" \
        --test "$DATA/hex/hex_9x9_${set}_test.csv" --encoder hex-connection --clauses 1000 \
        --T 1000 --s 18 --epochs 10 --seed 1 --device cuda -o "$OUT/gpu.tm" --json \
        2>>"$OUT/hex.err" >"$OUT/hex.json"
    acc=$(grep -o '"test":{"accuracy":[0-9.]*' "$OUT/hex.json" | grep -o '[0-9.]*$')
    gpu_sha=$(sha256sum <"$OUT/gpu.tm" 2>/dev/null | cut -d' ' -f1)
    if [ ! -f "$OUT/gpu.tm" ]; then
        verdict="no GPU model (see $OUT/hex.err)"
    elif [ -f "$REF/$set.sha256" ]; then
        [ "$gpu_sha" = "$(cat "$REF/$set.sha256")" ] && verdict="EQUAL" || verdict="DIFFERENT"
    else
        verdict="no reference ($REF/$set.sha256: bash bench/gpu-check.sh --prepare)"
    fi
    echo "$set: GPU accuracy $acc; GPU model vs cuda-reference model: $verdict" | tee -a "$OUT/hex.log"
    rm -f "$OUT/gpu.tm"
done

echo "== seed 000 9x9, the GPU's accuracy by seed (10 epochs)"
for set in 2moves 5moves; do
    line="$set:"
    for seed in ${SEEDS:-1 2 3 4 5 6 7 8 9 10 11 12}; do
        timeout 60 "$ARENA" train "$DATA/hex/hex_9x9_${set}_train.csv" \
            --test "$DATA/hex/hex_9x9_${set}_test.csv" --encoder hex-connection \
            --clauses 1000 --T 1000 --s 18 --epochs 10 --seed "$seed" --device cuda --json \
            2>>"$OUT/hex.err" >"$OUT/hex.json"
        acc=$(grep -o '"test":{"accuracy":[0-9.]*' "$OUT/hex.json" | grep -o '[0-9.]*$')
        line="$line ${acc:-none}"
    done
    echo "$line" | tee -a "$OUT/hex.log"
done

echo "== games with the evaluator on the GPU, then on the CPU"
sed 's/,device=cuda//' bench/gpu-game.toml >bench/gpu-game-cpu.toml
for side in gpu gpu-cpu; do
    start=$(date +%s)
    timeout 120 "$ARENA" tournament "bench/gpu-game${side#gpu}.toml" --out "$OUT/games-$side" \
        >"$OUT/games-$side.log" 2>&1
    echo "$side: exit $?, $(( $(date +%s) - start )) s, $(grep -c '^\[Event' "$OUT/games-$side"/records/*.pdn) games"
done
rm -f bench/gpu-game-cpu.toml
cmp "$OUT"/games-gpu/records/*.pdn "$OUT"/games-gpu-cpu/records/*.pdn \
    && echo "records: EQUAL" || echo "records: DIFFERENT"
tail -4 "$OUT/games-gpu.log"

if [ "${FOLDS:-0}" = 1 ]; then
    echo "== checkers thesis, 10 folds, GPU"
    start=$(date +%s)
    OUT="$OUT/cv" ARENA=$ARENA DATA=$DATA timeout 170 bash tournaments/seeds/seed001-thesis.sh \
        --device cuda >"$OUT/cv.log" 2>&1
    echo "exit $?, $(( $(date +%s) - start )) s"
    tail -14 "$OUT/cv.log"
fi
