#!/usr/bin/env bash
# Builds and runs one example: examples/run_example.sh NAME [BUILD_DIR]
#
# NAME is a folder of examples/ (kws_bilstm, seq2seq, stacked_lstm,
# convlstm_frames, char_lm); BUILD_DIR is rnnc's build tree (default: build/,
# made by scripts/build rnnc rnnrt). Every spec SPEC.yaml of the example is
# compiled with BUILD_DIR/bin/rnnc and the weights SPEC.weights.npz, or
# weights.npz when there is no such file, into BUILD_DIR/examples/NAME/
# (EMIT=c: BUILD_DIR/examples/NAME-c/); main.c is then compiled as strict
# C99, linked with the generated code and librnnrt, and run. The exit status
# is the program's: 0 when every output matches.
# Set CC to use another C compiler than cc. Set EMIT=c to compile the specs
# to portable C (rnnc compile --emit=c) instead of object files; the
# generated C is then built as strict C99 with main.c.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 NAME [BUILD_DIR]" >&2
  exit 2
fi
name="$1"
build="$(cd "${2:-$here/../build}" && pwd)"
src="$here/$name"
emit="${EMIT:-obj}"
case "$emit" in
  obj) out="$build/examples/$name" ext=o ;;
  c) out="$build/examples/$name-c" ext=c ;;
  *) echo "$0: EMIT must be obj or c, not '$emit'" >&2; exit 2 ;;
esac
cc="${CC:-cc}"

if [ ! -f "$src/main.c" ]; then
  echo "$0: no example '$name' (expected $src/main.c)" >&2
  exit 2
fi
for f in "$build/bin/rnnc" "$build/lib/librnnrt.a"; do
  if [ ! -f "$f" ]; then
    echo "$0: $f not found; build it first: scripts/build rnnc rnnrt" >&2
    exit 2
  fi
done

rm -rf "$out"
mkdir -p "$out"
for spec in "$src"/*.yaml; do
  stem="$(basename "$spec" .yaml)"
  weights="$src/$stem.weights.npz"
  [ -f "$weights" ] || weights="$src/weights.npz"
  # Quiet on success (but for warnings); everything rnnc said on failure.
  if ! "$build/bin/rnnc" compile "$spec" --weights "$weights" -o "$out" \
      --emit="$emit" >"$out/$stem.log" 2>&1; then
    cat "$out/$stem.log" >&2
    exit 1
  fi
  grep -i "warning" "$out/$stem.log" >&2 || true
done
objects=("$out"/*."$ext")

# $CC may carry flags (CC="clang -fsanitize=address"), as make's does.
# shellcheck disable=SC2086
$cc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -I "$out" -I "$src" \
  -I "$here" -I "$here/../runtime/include" \
  "$src/main.c" "${objects[@]}" -L "$build/lib" -lrnnrt -lm -o "$out/$name"
"$out/$name"
