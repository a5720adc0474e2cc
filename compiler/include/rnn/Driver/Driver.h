//===- Driver.h - What the rnnc commands do ---------------------*- C++ -*-===//
//
// The rnnc tool only parses its command line; each command is a function
// here. User mistakes are reported through the MLIR context's diagnostic
// engine (spec locations render with the source line and a caret) and turn
// into a failure, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_DRIVER_DRIVER_H
#define RNN_DRIVER_DRIVER_H

#include "rnn/Pipelines/Pipelines.h"
#include "rnn/Spec/Model.h"
#include "rnn/Target/Target.h"
#include "rnn/Weights/Params.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>
#include <vector>

namespace rnnc {

/// Registers every dialect, interface and pass the compiler uses.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// A spec with its bound weights.
struct LoadedModel {
  spec::Model model;
  std::vector<LayerParams> params;
  /// The weights file read (its SHA-256 goes into <name>_info()); empty
  /// when the params came from elsewhere, as in the benchmark.
  std::string weightsPath = {};
};

/// Parses the spec in buffer `bufferId` and binds the weights file to it.
/// Keys matching `ignoreParams` (globs, as --ignore-params) or the spec's
/// `ignore_params` may be in the file without being used. The model's cell
/// params paths are the ones binding read (see rnnc::cellParamsPath).
std::optional<LoadedModel>
loadModel(llvm::SourceMgr &sourceMgr, unsigned bufferId,
          llvm::StringRef weightsPath, mlir::MLIRContext &ctx,
          llvm::ArrayRef<std::string> ignoreParams = {});

enum class Emit { MLIR, LLVMIR, Assembly, Object, C };

struct CompileOptions {
  Emit emit = Emit::Object;
  TargetOptions target;
  /// Step outputs per block of a long time loop (see
  /// --convert-rnn-scan-to-scf); 0 runs every loop unblocked.
  int64_t timeBlockBytes = kDefaultTimeBlockBytes;
  /// Rows (batch x steps) per block of a long time loop, at least.
  int64_t timeBlockRows = kDefaultTimeBlockRows;
  Optimize optimize = Optimize::Default;
  /// Non-zero (LLVM path): this register block (rows x columns) instead of
  /// the target's (TargetInfo::matmulBlock), with the rest of AVX-512's
  /// kernel (16-lane pieces, the batch-1 overlap). For tests: AVX-512's
  /// 4 x 64 block run on any x86-64 host (LLVM splits the 512-bit
  /// vectors), so its code is checked where it cannot be timed.
  int64_t blockRows = 0, blockColumns = 0;
};

/// One parameter of a model's entry point `<name>_run`, in call order (the
/// workspace, always last, is not listed): the driver's copy of
/// rnn::abi::Parameter, which outlives the module it was read from.
struct EntryParameter {
  std::string name; ///< "x", "seq_lengths", "carry/dec/h", ...
  std::vector<int64_t> shape;
  bool isLengths = false; ///< int32 sequence lengths
  bool isTokens = false;  ///< int32 token ids (x after an Embed)
  bool isSteps = false;   ///< the int32 run-time number of steps
  /// With a run-time number of steps: the time axis of `shape` (its size is
  /// the maximum; the caller's buffer is dense for the actual steps).
  std::optional<int64_t> timeAxis;
  /// With a run-time batch size: the axis of the first batch dim of `shape`
  /// (its sizes are the maxima; the caller's buffer is dense for the actual
  /// sizes).
  std::optional<int64_t> batchAxis;
  /// The int32 run-time size of this batch dim (`batch_<d>`).
  std::optional<int64_t> batchSizeOf;
  bool isOutput = false;  ///< else float32 unless isLengths or isTokens
};

/// The artifacts of one compilation.
struct Compiled {
  std::string header; ///< the C header (empty for Emit::MLIR)
  std::string code;   ///< the object file, assembly, LLVM IR, C or MLIR
  std::vector<EntryParameter> parameters; ///< empty for Emit::MLIR
  int64_t workspaceSize = 0;
  /// The workspace alignment the header recommends (WORKSPACE_ALIGNMENT).
  int64_t workspaceAlignment = 64;
  /// The constant data the weights are stored as (after packing), in bytes.
  int64_t weightsBytes = 0;
  /// Emit::Object: the bytes of the object's executable sections; -1 for
  /// the other kinds (whose size is the file's, `code.size()`).
  int64_t codeBytes = -1;
  /// Emit::Object: the entry point's largest stack frame; -1 otherwise.
  int64_t stackBytes = -1;
};

/// Compiles a loaded model. Fails (with diagnostics) on pipeline errors.
mlir::FailureOr<Compiled> compileModel(const LoadedModel &loaded,
                                       const llvm::SourceMgr &sourceMgr,
                                       const CompileOptions &options,
                                       mlir::MLIRContext &ctx);

/// The file name an emitted artifact gets: "<name>.o", "<name>.c", ...
std::string artifactName(const spec::Model &model, Emit emit);

struct RunOptions {
  std::string inputsPath;
  std::string outputPath;
  CodegenPath path = CodegenPath::LLVM;
  unsigned repeat = 0; ///< time this many runs (0: run once, untimed)
  /// The CPU to compile for (empty: the host's): one the host runs, e.g. to
  /// run AVX2 code on an AVX-512 host (--cpu of `rnnc run`).
  std::string cpu;
};

/// Compiles the model, runs it on the arrays in `inputsPath` and writes the
/// results to `outputPath` (the `rnnc run` contract).
mlir::LogicalResult runModel(const LoadedModel &loaded,
                             const llvm::SourceMgr &sourceMgr,
                             const RunOptions &options, mlir::MLIRContext &ctx);

/// `rnnc check --quantize int8 --inputs IN.npz`: compiles and runs the
/// (float) model and its `quantize: {weights: int8}` version on the arrays
/// in `inputsPath`, and prints every output's max and mean absolute
/// deviation of the int8 one from the float one. `dynamic` (`--quantize
/// int8-dynamic`) quantizes the activations too (`activations: dynamic`).
mlir::LogicalResult printQuantizationDeviation(const LoadedModel &loaded,
                                               const llvm::SourceMgr &sourceMgr,
                                               llvm::StringRef inputsPath,
                                               bool dynamic,
                                               llvm::raw_ostream &os,
                                               mlir::MLIRContext &ctx);

/// Lists the arrays `rnnc run` reads and writes for `model`: name, dtype
/// and shape of each input (x, seq_lengths, initial_carry/...) and output
/// (y, carry/...), in the entry point's order (`rnnc run --list-arrays`).
void printModelArrays(llvm::raw_ostream &os, const spec::Model &model);

} // namespace rnnc

#endif // RNN_DRIVER_DRIVER_H
