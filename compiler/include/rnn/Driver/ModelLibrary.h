//===- ModelLibrary.h - A compiled model, loaded and callable ---*- C++ -*-===//

#ifndef RNN_DRIVER_MODELLIBRARY_H
#define RNN_DRIVER_MODELLIBRARY_H

#include "rnn/Driver/Driver.h"

#include "mlir/IR/Location.h"

#include <memory>
#include <string>
#include <vector>

namespace rnnc {

/// A compiled model's object file or C source, built with librnnrt into a
/// shared library in a temporary directory and loaded. Gone (unloaded,
/// files removed) with the object.
class ModelLibrary {
public:
  /// Builds and loads `compiled` (Emit::Object or Emit::C) of model `name`;
  /// reports failures at `loc`. With `threads` > 1, run() calls
  /// `<name>_run_parallel` (the header's inline wrapper, compiled into the
  /// library) on a librnnrt pool of that many threads the library keeps.
  static std::unique_ptr<ModelLibrary>
  load(const Compiled &compiled, Emit emit, llvm::StringRef name,
       mlir::Location loc, int threads = 1);
  ~ModelLibrary();

  /// Calls `<name>_run` (or `<name>_run_parallel`) with one pointer per
  /// entry parameter, in order, and a workspace of the right size; returns
  /// its status.
  int32_t run(const std::vector<void *> &parameters);
  /// With threads > 1: how many tasks `<name>_run_parallel` splits a call
  /// into (<NAME>_PARALLEL_TASKS; 1 when the model runs serially).
  int parallelTasks() const { return tasks; }

  /// The most parameters (inputs and outputs) an entry point may have.
  static constexpr size_t kMaxParameters = 64;

private:
  ModelLibrary() = default;
  std::string directory;
  void *handle = nullptr;
  void *entry = nullptr;
  /// With threads > 1: `int32_t (void *const *args, void *workspace)`.
  void *parallelEntry = nullptr;
  int tasks = 1;
  std::vector<uint8_t> workspace;
  void *alignedWorkspace = nullptr;
};

} // namespace rnnc

#endif // RNN_DRIVER_MODELLIBRARY_H
