//===- Machine.h - What this core can do at best ----------------*- C++ -*-===//
//
// Micro-benchmarks that give the report its ceilings: the single-core FP32
// FMA peak (independent FMA chains, AVX-512 if the CPU has it, and AVX2),
// what a register-blocked matmul kernel reaches on cached operands (the
// practical ceiling of every matmul), and the read bandwidth of one core at a
// given working-set size (what streaming the recurrent weights once per step
// can reach at B = 1).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_BENCH_MACHINE_H
#define RNN_BENCH_MACHINE_H

#include <cstdint>
#include <string>

namespace rnnc::bench {

struct MachineInfo {
  std::string cpuModel;  ///< /proc/cpuinfo "model name"
  bool avx512 = false;   ///< avx512f
  bool avx2 = false;     ///< avx2 and fma
  double peakAvx512 = 0; ///< GFLOP/s, best of several measurements; 0: none
  double peakAvx2 = 0;   ///< GFLOP/s
  /// The FMA peak of two threads at once (the wider unit), GFLOP/s: what
  /// two-thread runs scale against.
  double peakTwoCores = 0;
  /// Measured like the FMA peaks, 0 without the instruction: vdpbf16ps
  /// (AVX512_BF16: 2 products and 2 adds per 32-bit lane, GFLOP/s) and
  /// vpdpbusd (AVX512_VNNI: 4 products and 4 adds per lane, Gop/s).
  double peakBF16 = 0, peakInt8 = 0;
  /// Without VNNI, on AVX2: vpmaddwd + vpaddd (2 int16 products and 2 adds
  /// per lane, Gop/s), the int8 dot product rnnc uses there.
  double peakInt16Pairs = 0;
  /// GFLOP/s of rnnc's 4 x 64 AVX-512 register block on operands in L1
  /// (loads and broadcasts included); 0: no AVX-512.
  double matmulKernelAvx512 = 0;
  double loadAverage = -1; ///< 1-minute load average when the run started

  /// The larger of the two peaks: the "100 %" of the report.
  double peak() const { return peakAvx512 > peakAvx2 ? peakAvx512 : peakAvx2; }
};

/// Reads the CPU model and features, and measures the FMA peaks and the
/// matmul kernel.
MachineInfo probeMachine();

/// One core's read bandwidth in GB/s (1e9 bytes/s) over a buffer of
/// `bytes`, read repeatedly with vector loads; the best of several
/// measurements.
double measureReadBandwidth(int64_t bytes);

} // namespace rnnc::bench

#endif // RNN_BENCH_MACHINE_H
