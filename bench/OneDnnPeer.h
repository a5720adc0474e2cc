//===- OneDnnPeer.h - oneDNN's lstm_forward and lbr_gru_forward -*- C++ -*-===//
//
// The oneDNN peer: one forward_inference `lstm_forward` or `lbr_gru_forward`
// primitive per Problem (batch-major `ntc` activations, zero initial state,
// weights created in format `any` and reordered from the Flax params once,
// outside the timed region).
//
// Weight mapping, per direction (ldigo: W[l][d][in][gate][out]):
//   LSTM  gates i, f, g, o = Flax ii/if/ig/io (layer), hi/hf/hg/ho (iter);
//         bias = hi/hf/hg/ho biases (Flax has no input-side LSTM bias)
//   GRU   lbr_gru gates u, r, o = Flax z, r, n; bias [u, r, o, u'] =
//         [iz, ir, in, hn] biases (Flax's hidden r, z have no bias)
//
// oneDNN 2.6 has no sequence lengths: with lengths it computes the padded
// batch (all T steps). Only valid positions of y are then comparable, and h
// is taken from y at each row's last valid step (c is not available).
//
// Precision (Config::precision): f32 for F32 and BF16Params; for BF16 the
// bf16 configuration (src/dst layer and iter bf16, c and bias f32, weights
// reordered to bf16); for Int8* the int8 one as oneDNN's int8 RNN example
// sets it up (u8 src_layer and outputs quantized as 127 x + 128, s8
// weights with one scale for all, see create(), f32 bias and c). oneDNN 2.6
// has no int8 LBR GRU. Config::threads OpenMP threads run the primitive.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_BENCH_ONEDNNPEER_H
#define RNN_BENCH_ONEDNNPEER_H

#include "Problem.h"

#include <memory>
#include <string>

namespace rnnc::bench {

/// True if the benchmark was built with oneDNN.
bool oneDnnAvailable();
/// "oneDNN 2.6.3 (cpu runtime OpenMP)", or why it is not available.
std::string oneDnnDescription();
/// Why oneDNN is no peer for `config` on this CPU, or empty. Debian's oneDNN
/// 2.6.3 creates no bf16 RNN below AVX-512, and its int8 RNN is right only
/// in its brgemm kernel (AVX-512 VNNI): elsewhere it picks a packed-gemm
/// path without the u8 compensation, whose outputs are off by about 0.1.
std::string oneDnnUnsupported(const Config &config);

class OneDnnRnn {
public:
  /// Builds the primitive and its weights for `problem`; `swapGates`
  /// deliberately maps two gates wrongly (to test the correctness gate).
  /// On failure returns nullptr and sets `error`.
  static std::unique_ptr<OneDnnRnn> create(const Problem &problem,
                                           bool swapGates, std::string &error);
  ~OneDnnRnn();

  /// Executes the primitive once; false (and `error`) on failure.
  bool run(std::string &error);
  /// What the last run() computed, in rnnc's layout (see above for lengths).
  Outputs outputs(const Problem &problem) const;
  /// The implementation oneDNN picked (what ONEDNN_VERBOSE names), e.g.
  /// "ref:any" or "brgemm:avx512_core_bf16".
  std::string implementation() const;

  struct State;

private:
  OneDnnRnn() = default;
  std::unique_ptr<State> state;
};

} // namespace rnnc::bench

#endif // RNN_BENCH_ONEDNNPEER_H
