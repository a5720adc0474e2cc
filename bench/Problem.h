//===- Problem.h - One benchmark configuration and its data -----*- C++ -*-===//
//
// A benchmark config (cell, H, B, T, bidirectional, variable lengths) and the
// problem it stands for: a spec, random weights under Flax's linen names
// (I = H), a batch-major input and, with variable lengths, one length per
// row. Every implementation (rnnc, the reference, oneDNN, PyTorch) is fed
// the same Problem, and every result is an Outputs that checkOutputs()
// compares against rnnc's.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_BENCH_PROBLEM_H
#define RNN_BENCH_PROBLEM_H

#include "rnn/Weights/Array.h"
#include "rnn/Weights/Params.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rnnc::bench {

enum class CellType { LSTM, GRU };

/// What rnnc stores and computes in, and which peers it races.
enum class Precision {
  F32,
  /// `param_dtype: bfloat16`: weights stored as bf16, f32 maths. Every
  /// implementation is fed the same weights rounded to bf16 (f32 peers).
  BF16Params,
  /// `param_dtype` and `dtype: bfloat16`: Flax's bf16 compute. The weights
  /// are rounded to bf16; the peer is oneDNN's bf16 RNN.
  BF16,
  /// `quantize: {weights: int8}`: int8 kernels, f32 maths; every
  /// implementation is fed the same dequantized kernels; the peers are
  /// oneDNN's int8 RNN (u8 activations, s8 weights) and PyTorch's
  /// dynamic-quantized LSTM/GRU.
  Int8Weights,
  /// `quantize: {weights: int8, activations: dynamic}`: as Int8Weights, with
  /// int8 activations quantized per row at each step.
  Int8Dynamic,
};

/// "f32", "bf16p", "bf16", "int8w", "int8d".
const char *precisionName(Precision precision);
/// Whether the peers run in reduced precision too, so that their outputs
/// differ from rnnc's by more than float rounding (see kReducedAtol).
bool peersReduced(Precision precision);

struct Config {
  CellType cell = CellType::LSTM;
  int64_t hidden = 0; ///< H, and I (input size = hidden size)
  int64_t batch = 0;  ///< B
  int64_t time = 0;   ///< T
  bool bidirectional = false;
  bool varlen = false;      ///< lengths uniform in [T/2, T], the first is T
  bool zerosPadded = false; ///< varlen with `padded_outputs: zeros`
  Precision precision = Precision::F32;
  /// Cores rnnc (`<name>_run_parallel` on librnnrt's pool), oneDNN (OpenMP)
  /// and PyTorch (intra-op threads) may use.
  int threads = 1;

  int64_t gates() const { return cell == CellType::LSTM ? 4 : 3; }
  int64_t directions() const { return bidirectional ? 2 : 1; }
  /// A precision or thread variant, timed against rnnc f32 on one core too.
  bool variant() const { return precision != Precision::F32 || threads != 1; }
  /// "lstm_h64_b1_t32", "lstm_bi_h256_b16_t128", "gru_varlen_zeros_h256_...",
  /// "lstm_bf16p_h1024_b1_t32", "gru_int8d_h256_b16_t32", "lstm_2t_h1024...".
  std::string id() const;
  /// "lstm", "lstm bi", "gru varlen", "gru varlen zeros", "lstm bf16p",
  /// "lstm 2T".
  std::string kind() const;
  /// The same config with `time` steps (a truncated run of a slow config).
  Config withTime(int64_t steps) const;
};

/// A config's data. Deterministic in (config, seed).
struct Problem {
  Config config;
  ParamTree params;             ///< Flax linen names under `rnn/...`
  std::vector<float> x;         ///< [B, T, H]
  std::vector<int32_t> lengths; ///< [B]; empty unless config.varlen

  /// Recurrent weights bytes of one direction (the per-step working set), as
  /// rnnc stores them (2 bytes a weight in bf16, 1 in int8).
  int64_t recurrentWeightBytes() const;
  /// 2*G*H*(I+H) per row and step, times the sum of the lengths (B*T
  /// without lengths), times the directions.
  double flops() const;
  /// The length of row `b` (T without lengths).
  int64_t length(int64_t b) const;
  /// The first `steps` steps of this problem: x cut to [B, steps, H] and
  /// each length scaled by steps/T (at least 1).
  Problem truncated(int64_t steps) const;
};

/// Random weights (uniform in +-1/sqrt(H), PyTorch's default init; rounded
/// to bf16 with bf16 params or compute, int8-quantized and dequantized with
/// int8 weights) and inputs (uniform in [-1, 1]) for `config`. The seed
/// should not depend on the precision: variants of a size share the f32
/// config's weights before rounding.
Problem makeProblem(const Config &config, uint32_t seed);

/// The rnnc spec of a config; the model is named `name`.
std::string specYaml(const Config &config, const std::string &name);

/// The inputs of `problem` as the model's arrays: x, and seq_lengths with
/// variable lengths.
std::vector<weights::Array> inputArrays(const Problem &problem);

/// Writes `problem` as `rnnc run` takes it, so that a row's check can be
/// replayed outside the harness: DIR/<id>.yaml (the spec, named <id>),
/// DIR/<id>.npz (the weights) and DIR/<id>_in.npz (x, and seq_lengths with
/// variable lengths). An error message, or empty.
std::string writeProblem(const Problem &problem, const std::string &dir);

/// The Flax params path of a direction's cell: "rnn/cell",
/// "rnn/forward_rnn/cell" or "rnn/backward_rnn/cell".
std::string cellPrefix(const Config &config, int direction);

/// What one implementation computed: y [B, T, D*H] and the final carries,
/// keyed "h", "c" (unidirectional) or "forward/h", "backward/c", ...
/// each [B, H].
struct Outputs {
  std::vector<float> y;
  std::map<std::string, std::vector<float>> carries;
};

/// Which positions of y a comparison looks at.
enum class Positions {
  All,   ///< every (b, t)
  Valid, ///< t < length(b): the peer's padded outputs mean something else
};

/// The result of comparing one implementation's outputs with rnnc's.
struct Check {
  bool ran = false;  ///< a comparison was made
  bool ok = false;   ///< every compared element within tolerance
  double maxAbs = 0; ///< largest |got - want|
  int64_t compared = 0;
  int64_t differing = 0; ///< compared elements not equal to `want`'s
  /// The first step at which some element of y differs (-1: none), how
  /// many of its elements do, and the fraction of them the check allows.
  int64_t firstStep = -1;
  int64_t firstStepDiffering = 0;
  double maxFirstStepDiffering = 1;
  std::string detail; ///< the first mismatch, or what was not compared
};

/// Compares `got` with `want` (rnnc's) element by element within
/// atol + rtol * |want|, and, with `maxFirstStepDiffering` < 1, asks that
/// at the first step where y differs at all, at most that fraction of the
/// step's elements do (or one). Carries missing from `got` are not compared and are
/// named in Check::detail.
Check checkOutputs(const Problem &problem, const Outputs &want,
                   const Outputs &got, Positions positions, double atol,
                   double rtol, double maxFirstStepDiffering = 1);

} // namespace rnnc::bench

#endif // RNN_BENCH_PROBLEM_H
