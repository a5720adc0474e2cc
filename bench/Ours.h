//===- Ours.h - rnnc's generated code and the reference ---------*- C++ -*-===//
//
// The project's own two implementations of a Problem: the code rnnc
// generates for its spec (compiled in this process for the host CPU and
// loaded as a shared library: weights are baked in at compile time, so the
// timed call is `<name>_run` alone) and the double-precision reference
// implementation the compiler is tested against.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_BENCH_OURS_H
#define RNN_BENCH_OURS_H

#include "Problem.h"

#include "rnn/Driver/Driver.h"
#include "rnn/Driver/ModelLibrary.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace rnnc::bench {

/// A Problem compiled by rnnc, with its input and output buffers bound.
/// With Config::threads > 1 the spec has a run-time batch (`{max: B}`,
/// called with B) and run() calls `<name>_run_parallel` on a librnnrt pool.
class RnncModel {
public:
  /// Compiles and loads `problem`'s model; on failure returns nullptr and
  /// sets `error` to the compiler's diagnostics.
  static std::unique_ptr<RnncModel> compile(const Problem &problem,
                                            std::string &error);

  /// Calls the generated entry point; returns its status (0: success).
  int32_t run();
  /// What the last run() wrote.
  Outputs outputs() const;
  /// How many tasks `<name>_run_parallel` splits a call into (1: it runs
  /// `<name>_run` itself, the header says why).
  int parallelTasks() const { return library->parallelTasks(); }
  /// Seconds spent compiling (spec to loaded library).
  double compileSeconds() const { return compileTime; }
  /// The model and bound weights, for the reference implementation.
  const LoadedModel &loaded() const { return model; }

private:
  RnncModel() = default;
  LoadedModel model;
  std::vector<EntryParameter> parameters;
  std::unique_ptr<ModelLibrary> library;
  std::vector<std::vector<float>> floats; ///< one buffer per parameter
  std::vector<int32_t> lengths;
  std::deque<int32_t> batchSizes; ///< run-time batch sizes (stable addresses)
  std::vector<void *> pointers;
  double compileTime = 0;
};

/// Runs the reference implementation on `problem` (whose model `rnnc`
/// compiled). Returns false and sets `error` if it rejects the problem.
bool runReference(const RnncModel &rnnc, const Problem &problem,
                  Outputs &outputs, std::string &error);

} // namespace rnnc::bench

#endif // RNN_BENCH_OURS_H
