//===- Machine.cpp - What this core can do at best ------------------------===//

#include "Machine.h"
#include "Timing.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

using namespace rnnc::bench;

namespace {

constexpr int kChains512 = 24; // of 32 zmm registers
constexpr int kChains256 = 12; // of 16 ymm registers

/// `iterations` rounds of kChains512 independent 16-lane FMAs.
__attribute__((target("avx512f"))) float fmaChains512(int64_t iterations) {
  __m512 acc[kChains512];
  for (int k = 0; k < kChains512; ++k)
    acc[k] = _mm512_set1_ps(static_cast<float>(k));
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma clang loop unroll(full)
    for (int k = 0; k < kChains512; ++k)
      acc[k] = _mm512_fmadd_ps(acc[k], a, b);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kChains512; ++k)
    sum = _mm512_add_ps(sum, acc[k]);
  return _mm512_reduce_add_ps(sum);
}

/// `iterations` rounds of kChains256 independent 8-lane FMAs.
__attribute__((target("avx2,fma"))) float fmaChains256(int64_t iterations) {
  __m256 acc[kChains256];
  for (int k = 0; k < kChains256; ++k)
    acc[k] = _mm256_set1_ps(static_cast<float>(k));
  __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma clang loop unroll(full)
    for (int k = 0; k < kChains256; ++k)
      acc[k] = _mm256_fmadd_ps(acc[k], a, b);
  }
  __m256 sum = acc[0];
  for (int k = 1; k < kChains256; ++k)
    sum = _mm256_add_ps(sum, acc[k]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float lane : lanes)
    total += lane;
  return total;
}

/// `iterations` rounds of kChains512 independent vdpbf16ps.
__attribute__((target("avx512f,avx512bf16"))) float
bf16Chains512(int64_t iterations) {
  __m512 acc[kChains512];
  for (int k = 0; k < kChains512; ++k)
    acc[k] = _mm512_set1_ps(static_cast<float>(k));
  __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
  for (int64_t i = 0; i < iterations; ++i) {
#pragma clang loop unroll(full)
    for (int k = 0; k < kChains512; ++k)
      acc[k] = _mm512_dpbf16_ps(acc[k], a, a);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kChains512; ++k)
    sum = _mm512_add_ps(sum, acc[k]);
  return _mm512_reduce_add_ps(sum);
}

/// `iterations` rounds of kChains512 independent vpdpbusd.
__attribute__((target("avx512f,avx512vnni"))) float
int8Chains512(int64_t iterations) {
  __m512i acc[kChains512];
  for (int k = 0; k < kChains512; ++k)
    acc[k] = _mm512_set1_epi32(k);
  __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  for (int64_t i = 0; i < iterations; ++i) {
#pragma clang loop unroll(full)
    for (int k = 0; k < kChains512; ++k)
      acc[k] = _mm512_dpbusd_epi32(acc[k], a, b);
  }
  __m512i sum = acc[0];
  for (int k = 1; k < kChains512; ++k)
    sum = _mm512_add_epi32(sum, acc[k]);
  return static_cast<float>(_mm512_reduce_add_epi32(sum));
}

/// `iterations` rounds of kChains256 / 2 independent vpmaddwd + vpaddd
/// (AVX2: the int8 dot product where there is no VNNI; half the registers
/// hold the pair sums on their way to the accumulators).
__attribute__((target("avx2"))) float int16PairChains256(int64_t iterations) {
  constexpr int chains = kChains256 / 2;
  __m256i acc[chains];
  for (int k = 0; k < chains; ++k)
    acc[k] = _mm256_set1_epi32(k);
  __m256i a = _mm256_set1_epi16(3), b = _mm256_set1_epi16(-2);
  for (int64_t i = 0; i < iterations; ++i) {
    // The operands may change: the products cannot be hoisted.
    asm volatile("" : "+x"(a));
#pragma clang loop unroll(full)
    for (int k = 0; k < chains; ++k)
      acc[k] = _mm256_add_epi32(acc[k], _mm256_madd_epi16(a, b));
  }
  __m256i sum = acc[0];
  for (int k = 1; k < chains; ++k)
    sum = _mm256_add_epi32(sum, acc[k]);
  int32_t lanes[8];
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(lanes), sum);
  int64_t total = 0;
  for (int32_t lane : lanes)
    total += lane;
  return static_cast<float>(total);
}

// The register block of rnnc's AVX-512 matmuls: 4 rows x 64 columns, 16
// accumulators; per k, 4 loads of a packed weight panel and 4 broadcasts.
// A depth of 96 keeps the panel (24 KiB) in L1.
constexpr int kKernelRows = 4;
constexpr int kKernelColumns = 64;
constexpr int kKernelDepth = 96;
alignas(64) float kernelLhs[kKernelDepth * kKernelRows];
alignas(64) float kernelPanel[kKernelDepth * kKernelColumns];
alignas(64) float kernelResult[kKernelRows * kKernelColumns];

/// `iterations` runs of the 4 x 64 kernel over operands in L1.
__attribute__((target("avx512f"))) float matmulKernel512(int64_t iterations) {
  for (int64_t i = 0; i < iterations; ++i) {
    // The operands do not change between runs: tell the compiler they may,
    // or it computes the product once.
    asm volatile("" ::: "memory");
    __m512 acc[kKernelRows][4];
    for (auto &row : acc)
      for (__m512 &a : row)
        a = _mm512_setzero_ps();
    for (int k = 0; k < kKernelDepth; ++k) {
      const float *panel = kernelPanel + k * kKernelColumns;
      __m512 b[4];
      for (int j = 0; j < 4; ++j)
        b[j] = _mm512_load_ps(panel + 16 * j);
#pragma clang loop unroll(full)
      for (int r = 0; r < kKernelRows; ++r) {
        __m512 a = _mm512_set1_ps(kernelLhs[k * kKernelRows + r]);
#pragma clang loop unroll(full)
        for (int j = 0; j < 4; ++j)
          acc[r][j] = _mm512_fmadd_ps(a, b[j], acc[r][j]);
      }
    }
    for (int r = 0; r < kKernelRows; ++r)
      for (int j = 0; j < 4; ++j)
        _mm512_store_ps(kernelResult + r * kKernelColumns + 16 * j, acc[r][j]);
  }
  return kernelResult[0];
}

volatile float sink; // keeps the benchmarks' results alive

/// Iterations of `chains` that take about 50 ms on one thread.
template <typename Fn> int64_t calibrate(Fn chains) {
  int64_t iterations = 1 << 16;
  for (;;) {
    double start = now();
    sink = chains(iterations);
    if (now() - start > 0.01 || iterations > (int64_t(1) << 40))
      break;
    iterations *= 2;
  }
  iterations *= 5;
  return iterations;
}

/// Best GFLOP/s of `trials` runs of `chains` (which does `flopsPerIteration`
/// per iteration).
template <typename Fn>
double bestGflops(Fn chains, double flopsPerIteration, int trials) {
  int64_t iterations = calibrate(chains);
  double best = 0;
  for (int t = 0; t < trials; ++t) {
    // An opaque copy of the count: the call cannot be hoisted or merged.
    int64_t count = iterations;
    asm volatile("" : "+r"(count));
    double start = now();
    sink = chains(count);
    double seconds = now() - start;
    best = std::max(best, flopsPerIteration * iterations / seconds / 1e9);
  }
  return best;
}

/// GFLOP/s of `chains` run on two threads at once (each `iterations` rounds
/// of `flopsPerIteration`, started together), best of `trials`: the peak of
/// both cores, against which two-thread runs scale.
template <typename Fn>
double bestGflopsOnTwoThreads(Fn chains, double flopsPerIteration,
                              int trials) {
  int64_t iterations = calibrate(chains);
  double best = 0;
  for (int t = 0; t < trials; ++t) {
    std::atomic<int> ready{0};
    auto run = [&] {
      ready.fetch_add(1);
      while (ready.load() < 2)
        ;
      int64_t count = iterations;
      asm volatile("" : "+r"(count));
      sink = chains(count);
    };
    double start = now();
    std::thread other(run);
    run();
    other.join();
    double seconds = now() - start;
    best = std::max(best, 2 * flopsPerIteration * iterations / seconds / 1e9);
  }
  return best;
}

/// GFLOP/s of matmulKernel512, best of 7; 0 if its product is wrong (a
/// figure is only worth something if the kernel computed the product).
double measureMatmulKernel512() {
  for (int i = 0; i < kKernelDepth * kKernelRows; ++i)
    kernelLhs[i] = 1.0f / (1 + i % 5);
  for (int i = 0; i < kKernelDepth * kKernelColumns; ++i)
    kernelPanel[i] = 1.0f / (1 + i % 7);
  double gflops = bestGflops(
      matmulKernel512, 2.0 * kKernelRows * kKernelColumns * kKernelDepth, 7);
  for (int r = 0; r < kKernelRows; ++r)
    for (int c = 0; c < kKernelColumns; ++c) {
      double want = 0;
      for (int k = 0; k < kKernelDepth; ++k)
        want += double(kernelLhs[k * kKernelRows + r]) *
                kernelPanel[k * kKernelColumns + c];
      if (std::abs(kernelResult[r * kKernelColumns + c] - want) > 1e-4 * want)
        return 0;
    }
  return gflops;
}

__attribute__((target("avx512f"))) float readSum512(const float *data,
                                                    int64_t count) {
  __m512 acc[8];
  for (__m512 &a : acc)
    a = _mm512_setzero_ps();
  for (int64_t i = 0; i + 128 <= count; i += 128) {
#pragma clang loop unroll(full)
    for (int k = 0; k < 8; ++k)
      acc[k] = _mm512_add_ps(acc[k], _mm512_load_ps(data + i + 16 * k));
  }
  for (int k = 1; k < 8; ++k)
    acc[0] = _mm512_add_ps(acc[0], acc[k]);
  return _mm512_reduce_add_ps(acc[0]);
}

__attribute__((target("avx2"))) float readSum256(const float *data,
                                                 int64_t count) {
  __m256 acc[8];
  for (__m256 &a : acc)
    a = _mm256_setzero_ps();
  for (int64_t i = 0; i + 64 <= count; i += 64) {
#pragma clang loop unroll(full)
    for (int k = 0; k < 8; ++k)
      acc[k] = _mm256_add_ps(acc[k], _mm256_load_ps(data + i + 8 * k));
  }
  for (int k = 1; k < 8; ++k)
    acc[0] = _mm256_add_ps(acc[0], acc[k]);
  float lanes[8];
  _mm256_storeu_ps(lanes, acc[0]);
  float total = 0;
  for (float lane : lanes)
    total += lane;
  return total;
}

} // namespace

MachineInfo rnnc::bench::probeMachine() {
  MachineInfo info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      info.cpuModel = line.substr(line.find(':') + 2);
      break;
    }
  std::ifstream loadavg("/proc/loadavg");
  loadavg >> info.loadAverage;
  __builtin_cpu_init();
  info.avx512 = __builtin_cpu_supports("avx512f");
  info.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (info.avx512) {
    info.peakAvx512 = bestGflops(fmaChains512, kChains512 * 16 * 2.0, 7);
    info.matmulKernelAvx512 = measureMatmulKernel512();
  }
  if (info.avx2)
    info.peakAvx2 = bestGflops(fmaChains256, kChains256 * 8 * 2.0, 7);
  if (info.avx512)
    info.peakTwoCores =
        bestGflopsOnTwoThreads(fmaChains512, kChains512 * 16 * 2.0, 7);
  else if (info.avx2)
    info.peakTwoCores =
        bestGflopsOnTwoThreads(fmaChains256, kChains256 * 8 * 2.0, 7);
  if (info.avx512 && __builtin_cpu_supports("avx512bf16"))
    info.peakBF16 = bestGflops(bf16Chains512, kChains512 * 16 * 4.0, 7);
  if (info.avx512 && __builtin_cpu_supports("avx512vnni"))
    info.peakInt8 = bestGflops(int8Chains512, kChains512 * 16 * 8.0, 7);
  else if (info.avx2)
    info.peakInt16Pairs =
        bestGflops(int16PairChains256, kChains256 / 2 * 8 * 4.0, 7);
  return info;
}

double rnnc::bench::measureReadBandwidth(int64_t bytes) {
  __builtin_cpu_init();
  bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !__builtin_cpu_supports("avx2"))
    return 0;
  int64_t count = std::max<int64_t>(bytes / 4 / 128 * 128, 128);
  std::unique_ptr<float, decltype(&std::free)> buffer(
      static_cast<float *>(std::aligned_alloc(64, count * sizeof(float))),
      &std::free);
  for (int64_t i = 0; i < count; ++i)
    buffer.get()[i] = static_cast<float>(i % 7);
  auto pass = [&] {
    // The sums are pure functions of memory the loop does not change: tell
    // the compiler memory may have changed, or it folds repeated passes.
    asm volatile("" ::: "memory");
    sink = avx512 ? readSum512(buffer.get(), count)
                  : readSum256(buffer.get(), count);
  };
  pass(); // bring the buffer into whatever cache level holds it
  int64_t passes = 1;
  for (;;) {
    double start = now();
    for (int64_t p = 0; p < passes; ++p)
      pass();
    if (now() - start > 0.01)
      break;
    passes *= 2;
  }
  double best = 0;
  for (int trial = 0; trial < 7; ++trial) {
    double start = now();
    for (int64_t p = 0; p < passes; ++p)
      pass();
    double seconds = now() - start;
    best = std::max(best, count * 4.0 * passes / seconds / 1e9);
  }
  return best;
}
