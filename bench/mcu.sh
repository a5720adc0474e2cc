#!/usr/bin/env bash
# Footprint and speed of the examples on Cortex-M under qemu-system-arm:
#   bench/mcu.sh [BUILD_DIR [EXAMPLE...]]      (default: ./build, every example)
#
# Per example, target (m4: Cortex-M4F hard float, mps2-an386; m3: Cortex-M3
# soft float, mps2-an385) and path (c: rnnc's C built by arm-none-eabi-gcc
# -O2; llvm: rnnc's object), with rnnc's default for the target (RAM-lean):
#   flash   the model's code + weights (arm-none-eabi-size of its object:
#           text + rodata; for the C path, the C compiled -O2)
#   RAM     workspace (<NAME>_WORKSPACE_SIZE) + the model's stack frame
#           (<NAME>_STACK_SIZE, or GCC's -fstack-usage for the C) + its
#           data and bss
#   instr   instructions of one <name>_run: SysTick ticks x 40 under
#           -icount shift=0 (1 ns per instruction, 25 MHz clock), through
#           the examples' timing hook (bench/mcu/systick_clock.h)
#   /MAC    instructions per multiply-accumulate (the header's FLOPs / 2)
# qemu counts instructions, not cycles (no pipeline, no wait states).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shift || true
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=(kws_bilstm stacked_lstm seq2seq char_lm convlstm_frames)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The sum of `text + data` (code and rodata: GCC's and LLVM's .rodata land in
# size's "text") and of data + bss of the model's objects.
sizes() { arm-none-eabi-size -t "$@" | tail -1 | awk '{print $1, $2 + $3}'; }

printf '| example | target | path | flash (code + weights) | RAM (workspace + stack + data) | instructions / run | per MAC |\n'
printf '|---|---|---|---|---|---|---|\n'
for name in "${examples[@]}"; do
  for platform in m4 m3; do
    case "$platform" in
    m4) arch=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16) ;;
    m3) arch=(-mcpu=cortex-m3 -mthumb -mfloat-abi=soft) ;;
    esac
    for path in c llvm; do
      out="$work/$name-$platform-$path"
      log="$out.log"
      if ! RNN_CROSS_CFLAGS="-include $here/mcu/systick_clock.h" \
          RNN_CROSS_QEMU_FLAGS="-icount shift=0" \
          "$root/tests/Embedded/run-cross.sh" "$name" "$platform" "$path" \
          "$build" "$out" >"$log" 2>&1; then
        printf '| %s | %s | %s | run failed: see below | | | |\n' "$name" "$platform" "$path"
        sed 's/^/    /' "$log" >&2
        continue
      fi
      objects=() ram_stack=0 workspace=0 flops=0
      for header in "$out"/*.h; do
        prefix="$(basename "$header" .h | tr a-z A-Z)"
        ws=$(sed -n "s/^#define ${prefix}_WORKSPACE_SIZE \([0-9]*\)/\1/p" "$header")
        workspace=$((workspace > ws ? workspace : ws))
        f=$(sed -n 's/^ \*   .* \([0-9]*\) FLOPs$/\1/p' "$header" | paste -sd+ | bc)
        flops=$((flops + ${f:-0}))
        if [ "$path" = llvm ]; then
          st=$(sed -n "s/^#define ${prefix}_STACK_SIZE \([0-9]*\)/\1/p" "$header")
          objects+=("${header%.h}.o")
        else
          arm-none-eabi-gcc -std=c99 -O2 "${arch[@]}" -fstack-usage \
            -I "$out" -I "$root/runtime/include" -c "${header%.h}.c" \
            -o "${header%.h}.c.o"
          st=$(awk -F'\t' '{ if ($2 > m) m = $2 } END { print m + 0 }' "${header%.h}.c.su")
          objects+=("${header%.h}.c.o")
        fi
        ram_stack=$((ram_stack > st ? ram_stack : st))
      done
      read -r flash data < <(sizes "${objects[@]}")
      us=$(sed -n 's/.*one .*run: \([0-9.]*\) us.*/\1/p' "$log" | head -1)
      instructions=$(printf '%.0f' "$(echo "$us * 1000" | bc -l)")
      macs=$((flops / 2))
      per=$(printf '%.2f' "$(echo "$instructions / $macs" | bc -l)")
      printf '| %s | %s | %s | %d | %d (%d + %d + %d) | %d | %s |\n' \
        "$name" "$platform" "$path" "$flash" \
        $((workspace + ram_stack + data)) "$workspace" "$ram_stack" "$data" \
        "$instructions" "$per"
    done
  done
done
