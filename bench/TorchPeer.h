//===- TorchPeer.h - PyTorch's nn.LSTM / nn.GRU in a child process -*- C++
//-*-===//
//
// The PyTorch peer runs in one long-lived `/usr/bin/python3 torch_peer.py
// --serve` process, started with LD_LIBRARY_PATH pointing at Debian's serial
// OpenBLAS (python3-torch links the netlib reference BLAS by default),
// OMP_NUM_THREADS=1, and without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE. The
// driver writes each problem to an npz file (Flax params under `params/`,
// `x`, `seq_lengths`), sends one JSON request line per problem and reads one
// JSON line back; the peer writes its first call's outputs to another npz.
// The peer reports at start-up which BLAS libraries it actually mapped.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_BENCH_TORCHPEER_H
#define RNN_BENCH_TORCHPEER_H

#include "Problem.h"
#include "Timing.h"

#include <memory>
#include <string>

namespace rnnc::bench {

class TorchPeer {
public:
  /// Starts the peer; on failure returns nullptr and sets `error`.
  /// `script` is torch_peer.py; `blasDir` is prepended to LD_LIBRARY_PATH
  /// (empty: leave the default BLAS); `scratch` is a directory for the npz
  /// files; `swapGates` deliberately maps two gates wrongly.
  static std::unique_ptr<TorchPeer> start(const std::string &script,
                                          const std::string &blasDir,
                                          const std::string &scratch,
                                          bool swapGates, std::string &error);
  ~TorchPeer();

  /// "PyTorch 1.13.0 on /usr/lib/.../libopenblas-r0.3.21.so (Cooperlake)".
  const std::string &description() const { return about; }
  /// True if the mapped BLAS is OpenBLAS (the configuration we race).
  bool usesOpenBlas() const { return openBlas; }
  /// Environment variables removed for the peer ("OPENBLAS_CORETYPE=...").
  const std::string &removedEnvironment() const { return removed; }

  /// Runs `problem` once and returns its outputs in `outputs`; if `timed`,
  /// then times it under `policy` into `stats`. False (and `error`) if the
  /// peer failed.
  bool run(const Problem &problem, bool timed, const Policy &policy,
           Outputs &outputs, Stats &stats, std::string &error);

private:
  TorchPeer() = default;
  bool exchange(const std::string &request, std::string &reply,
                std::string &error);
  int pid = -1;
  void *toChild = nullptr;   ///< FILE *
  void *fromChild = nullptr; ///< FILE *
  std::string scratchDir, about, removed;
  bool openBlas = false;
  int requests = 0;
};

} // namespace rnnc::bench

#endif // RNN_BENCH_TORCHPEER_H
