#!/bin/bash
# The `cuda` feature's whole check, in one run on a machine with an NVIDIA GPU:
#   1. builds arena and the GPU tests with the feature (or takes them from $GPU_BIN when
#      this machine has no Rust toolchain: `bash bench/gpu-check.sh --prepare` makes them);
#   2. runs tests/cuda.rs, the GPU-CPU equality tests, with a GPU required;
#   3. `arena bench gpu`: the checkers thesis's machine, epochs on the GPU beside 2 CPU
#      threads, then batched inference;
#   4. the per-class machine on seed 000's 9x9 sets on the CPU (every core) and the GPU,
#      seeds 1-4 ($SEEDS);
#   5. the checkers thesis's 10-fold cross-validation on the GPU.
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
    echo "prepared .gpu-bin and .gpu-data"
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

if command -v cargo >/dev/null; then
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
timeout 120 "$ARENA" bench gpu --folds "$DATA/checkers/standard_end_10fold" 2>"$OUT/bench.err" \
    | tee "$OUT/bench.log"
tail -3 "$OUT/bench.err"

echo "== seed 000 9x9, per-class, 1000 clauses, T 1000, s 18, 10 epochs: CPU and GPU"
for set in 2moves 5moves; do
    for seed in ${SEEDS:-1 2 3 4}; do
        line="$set seed $seed:"
        for device in cpu cuda; do
            /usr/bin/time -f "%e" -o "$OUT/t" timeout 60 "$ARENA" train \
                "$DATA/hex/hex_9x9_${set}_train.csv" --test "$DATA/hex/hex_9x9_${set}_test.csv" \
                --encoder hex-connection --clauses 1000 --T 1000 --s 18 --epochs 10 \
                --seed "$seed" --device $device --json 2>>"$OUT/hex.err" >"$OUT/hex.json"
            acc=$(grep -o '"test":{"accuracy":[0-9.]*' "$OUT/hex.json" | grep -o '[0-9.]*$')
            line="$line $device ${acc:-none} ($(tail -1 "$OUT/t") s)"
        done
        echo "$line" | tee -a "$OUT/hex.log"
    done
done
awk '{c[$1]+=$5; g[$1]+=$9; n[$1]++} END {for (s in n) printf "%s mean over %d seeds: cpu %.2f%%, gpu %.2f%%\n", s, n[s], 100*c[s]/n[s], 100*g[s]/n[s]}' "$OUT/hex.log"

echo "== checkers thesis, 10 folds, GPU"
start=$(date +%s)
OUT="$OUT/cv" ARENA=$ARENA DATA=$DATA timeout 170 bash tournaments/seeds/seed001-thesis.sh \
    --device cuda >"$OUT/cv.log" 2>&1
echo "exit $?, $(( $(date +%s) - start )) s"
tail -14 "$OUT/cv.log"
