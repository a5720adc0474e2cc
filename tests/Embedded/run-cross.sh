#!/usr/bin/env bash
# Cross-compiles one example for another machine and runs it under qemu:
#   tests/Embedded/run-cross.sh NAME PLATFORM PATH BUILD_DIR [OUT_DIR]
#
# NAME is a folder of examples/ (or of $RNN_CROSS_SRC: a folder holding
# specs, their weights and a main.c); PATH is `llvm` (rnnc's object file) or `c`
# (rnnc's C99, built by the cross compiler); PLATFORM is one of
#   host      this machine, built by $CC (default cc): what the others
#             must print
#   aarch64   aarch64-linux-gnu, static, under qemu-aarch64
#   armhf     armv7-linux-gnueabihf (hard float), static, under qemu-arm
#   m4        thumbv7em-none-eabihf --cpu=cortex-m4 (FPv4-SP, hard float),
#             bare metal on qemu-system-arm -M mps2-an386, semihosting
#   m3        thumbv7m-none-eabi --cpu=cortex-m3 (no FPU, soft float),
#             bare metal on qemu-system-arm -M mps2-an385, semihosting
#   m55       thumbv8.1m.main-none-eabihf --cpu=cortex-m55 (Helium, hard
#             float), bare metal on qemu-system-arm -M mps3-an547,
#             semihosting
# The program is the example's own main.c with librnnrt's C sources, built
# by the platform's GCC; it prints what it prints on the host and exits
# non-zero when an output differs from the expected values. On bare metal,
# tests/Embedded/baremetal/ holds the startup code and the boards' linker
# scripts.
# Everything is built in OUT_DIR (emptied first; default
# BUILD_DIR/tests/Embedded/cross/NAME-PLATFORM-PATH): callers that run at
# the same time need their own. bench/mcu.sh adds compiler flags with
# RNN_CROSS_CFLAGS and qemu-system-arm options with RNN_CROSS_QEMU_FLAGS
# (both split on spaces).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ $# -ne 4 ] && [ $# -ne 5 ]; then
  echo "usage: $0 NAME host|aarch64|armhf|m4|m3|m55 llvm|c BUILD_DIR [OUT_DIR]" >&2
  exit 2
fi
name="$1" platform="$2" path="$3"
build="$(cd "$4" && pwd)"
src="${RNN_CROSS_SRC:-$root/examples}/$name"
out="${5:-$build/tests/Embedded/cross/$name-$platform-$path}"

case "$platform" in
host)
  triple="" cpu="" cc="${CC:-cc}" cflags=() run=() ;;
aarch64)
  triple=aarch64-linux-gnu cpu="" cc=aarch64-linux-gnu-gcc
  cflags=(-static) run=(qemu-aarch64) ;;
armhf)
  triple=armv7-linux-gnueabihf cpu="" cc=arm-linux-gnueabihf-gcc
  cflags=(-static) run=(qemu-arm) ;;
m4)
  triple=thumbv7em-none-eabihf cpu=cortex-m4 cc=arm-none-eabi-gcc
  cflags=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16)
  run=(qemu-system-arm -M mps2-an386) board=mps2.ld ;;
m3)
  triple=thumbv7m-none-eabi cpu=cortex-m3 cc=arm-none-eabi-gcc
  cflags=(-mcpu=cortex-m3 -mthumb -mfloat-abi=soft)
  run=(qemu-system-arm -M mps2-an385) board=mps2.ld ;;
m55)
  triple=thumbv8.1m.main-none-eabihf cpu=cortex-m55 cc=arm-none-eabi-gcc
  cflags=(-mcpu=cortex-m55 -mthumb -mfloat-abi=hard)
  run=(qemu-system-arm -M mps3-an547) board=mps3-an547.ld ;;
*)
  echo "$0: unknown platform '$platform'" >&2
  exit 2 ;;
esac
case "$path" in
llvm) emit=obj ext=o ;;
c) emit=c ext=c ;;
*) echo "$0: unknown path '$path' (llvm or c)" >&2; exit 2 ;;
esac
for tool in "$cc" ${run[@]:+"${run[0]}"}; do
  command -v "$tool" >/dev/null || {
    echo "$0: $tool not found: run scripts/bootstrap" >&2
    exit 2
  }
done

rm -rf "$out"
mkdir -p "$out"
for spec in "$src"/*.yaml; do
  stem="$(basename "$spec" .yaml)"
  weights="$src/$stem.weights.npz"
  [ -f "$weights" ] || weights="$src/weights.npz"
  if ! "$build/bin/rnnc" compile "$spec" --weights "$weights" -o "$out" \
      --emit="$emit" ${triple:+--target="$triple"} ${cpu:+--cpu="$cpu"} \
      >"$out/$stem.log" 2>&1; then
    cat "$out/$stem.log" >&2
    exit 1
  fi
  grep -i "warning" "$out/$stem.log" >&2 || true
done
generated=("$out"/*."$ext")

read -r -a extra_cflags <<<"${RNN_CROSS_CFLAGS:-}"
read -r -a extra_qemu <<<"${RNN_CROSS_QEMU_FLAGS:-}"
flags=(-std=c99 -Wall -Wextra -Werror -Wcast-qual -Wcast-align -O2 -DEXAMPLE_RUNS=1 "${cflags[@]}"
       ${extra_cflags[@]+"${extra_cflags[@]}"}
       -I "$out" -I "$src" -I "$root/examples" -I "$root/runtime/include")
sources=("$src/main.c" "${generated[@]}" "$root"/runtime/src/*.c)
case "$platform" in
m4|m3|m55)
  # -nostartfiles: baremetal/startup.c is the whole start-up; rdimon is
  # newlib's semihosting back-end (stdio, exit).
  "$cc" "${flags[@]}" --specs=rdimon.specs -nostartfiles \
    -L "$here/baremetal" -T "$here/baremetal/$board" \
    "$here/baremetal/startup.c" \
    "${sources[@]}" -lm -o "$out/$name.elf"
  # qemu's exit status is the program's (semihosting SYS_EXIT); timeout
  # ends a program that faulted into the fault handler's loop.
  timeout 120 "${run[@]}" ${extra_qemu[@]+"${extra_qemu[@]}"} \
    -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -no-reboot \
    -kernel "$out/$name.elf"
  ;;
*)
  "$cc" "${flags[@]}" "${sources[@]}" -lm -o "$out/$name"
  timeout 120 ${run[@]:+"${run[@]}"} "$out/$name"
  ;;
esac
