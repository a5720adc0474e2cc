#!/usr/bin/env bash
# Builds rnn-bench and runs it: `bench/run.sh [--quick] [rnn-bench options]`.
# The full grid takes under 15 minutes, --quick under 2. Results go to
# stdout (Markdown) and to $build/bench-results.{csv,json}.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${RNN_BUILD_DIR:-$root/build}"
RNN_BUILD_DIR="$build" "$root/scripts/build" rnn-bench >&2
# One thread everywhere (oneDNN's OpenMP, OpenBLAS inside the PyTorch peer,
# which rnn-bench also starts with these set).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
exec "$build/bin/rnn-bench" \
  --csv "$build/bench-results.csv" --json "$build/bench-results.json" "$@"
