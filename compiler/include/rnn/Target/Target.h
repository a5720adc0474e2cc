//===- Target.h - Object code, C and the C header ---------------*- C++ -*-===//

#ifndef RNN_TARGET_TARGET_H
#define RNN_TARGET_TARGET_H

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/Spec/Model.h"
#include "rnn/Target/TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace rnnc {

enum class NativeFile { Object, Assembly, LLVMIR };

/// Translates `module` (in the LLVM dialect, after --rnn-lower-to-llvm) to
/// LLVM IR, marks its functions nounwind, optimizes it at -O3 for the
/// target, and writes it to `os` as `kind`. For an object file, `stackBytes`
/// (when given) receives the largest stack frame of its functions (LLVM's
/// -fstack-usage figure; callees outside the module not counted).
llvm::Error emitNative(mlir::ModuleOp module, const TargetOptions &options,
                       NativeFile kind, llvm::raw_pwrite_stream &os,
                       int64_t *stackBytes = nullptr);

/// Writes `module` (in the EmitC dialect, after --rnn-lower-to-c) as a C99
/// source file: a banner, the include of the model's header (the entry point
/// `<name>_run` names it `<name>.h`), then the translated module.
llvm::Error emitC(mlir::ModuleOp module, llvm::raw_ostream &os);

/// Writes the C header of `model`'s entry point, which `module` holds (on
/// buffers, after bufferization; see --rnn-create-entry-point).
/// `blockRows` is the matmul register block's rows (CodegenOptions), the
/// unit in which <name>_run_parallel splits a batch.
llvm::Error emitHeader(mlir::ModuleOp module, const spec::Model &model,
                       llvm::raw_ostream &os, int64_t blockRows = 4);

/// Writes <name>_run_parallel and its macros (EmitParallel.cpp): `entry`
/// (<name>_run) with a parallel-for hook, splitting the rows of a run-time
/// batch, or of a static one into the part entry points of `module`
/// (staticParallelParts), in parts of `blockRows`; a serial wrapper where
/// it cannot split.
llvm::Error emitParallelDeclarations(mlir::ModuleOp module,
                                     const mlir::rnn::abi::EntryPointABI &entry,
                                     const spec::Model &model,
                                     int64_t blockRows, llvm::raw_ostream &os);

/// Whether <name>_run_parallel splits `model`'s rows (a run-time batch of
/// one dim, batch-major, static time, no lengths or token ids). Such a
/// model must be compiled without alternating sweeps
/// (CodegenOptions::alternateSweeps), so that a row's sums do not depend on
/// how many rows run with it.
bool splitsParallelRows(const spec::Model &model);

/// Whether <name>_run_parallel may split `model` by gate columns (a static
/// batch of 1 row, one forward LSTM or GRU layer of f32 weights, static
/// time, zero initial carries, H large enough that a step pays for a hook
/// call): the driver then adds
/// <name>_cols_step (--rnn-split-gate-columns), which the header's
/// <name>_run_parallel calls once a step in each of two tasks.
bool splitsGateColumns(const spec::Model &model);

/// The name of that step function, `<name>_cols_step`.
std::string columnStepName(const spec::Model &model);

/// The rows of each of <name>_run_parallel's two tasks on a static batch
/// (one batch dim of B >= 2 x `blockRows` rows, batch-major, static time, no
/// lengths or token ids; parts of whole register blocks, the first the
/// larger), or empty when the model's static batch is not split. Each part
/// is compiled as its own entry point (partEntryName), whose scans choose
/// their blocks of steps for the whole batch (rnn.time_block_batch): with
/// alternating sweeps on, a part's row then sums as in <name>_run.
llvm::SmallVector<int64_t, 2> staticParallelParts(const spec::Model &model,
                                                  int64_t blockRows);

/// The model name of the entry point (`<name>_rows<rows>`, whose entry is
/// `<name>_rows<rows>_run`) that runs `rows` rows of a static batch.
std::string partModelName(const spec::Model &model, int64_t rows);

/// What a model takes besides the caller's buffers and the workspace: its
/// stack and its flash. Unknown sizes (the C path's code and stack, which
/// the C compiler decides) are -1.
struct Footprint {
  int64_t stackBytes = -1;
  int64_t codeBytes = -1;
  int64_t weightsBytes = 0;
};

/// Inserts `footprint`'s macros (<NAME>_STACK_SIZE, _CODE_SIZE,
/// _WEIGHTS_SIZE, _FLASH_SIZE) into `header`, a header of emitHeader for
/// `model`, after its workspace macros: they are known only once the code
/// is generated, after the header.
void addFootprintToHeader(std::string &header, const spec::Model &model,
                          const Footprint &footprint);

/// Lower-case hex SHA-256 of `bytes` (the spec and weights hashes of
/// <name>_info()).
std::string sha256Hex(llvm::StringRef bytes);

/// Records the SHA-256 of the spec and weights files on `module`, for the
/// header and <name>_info() (see EmitInfo.cpp).
void setInfoHashes(mlir::ModuleOp module, llvm::StringRef specSha256,
                   llvm::StringRef weightsSha256);

/// Writes the header's build-information macros, `<name>_info_t` and the
/// declaration of `<name>_info()`. `module` is on buffers (it holds the
/// workspace size) and has the hashes of setInfoHashes.
llvm::Error emitInfoDeclarations(mlir::ModuleOp module,
                                 const spec::Model &model,
                                 llvm::raw_ostream &os);

/// With `input.stream: true`: the header's streaming API (<name>_state,
/// <NAME>_STATE_SIZE, <name>_state_init, <name>_stream) around `entry`,
/// the model's entry point.
llvm::Error emitStreamDeclarations(const mlir::rnn::abi::EntryPointABI &entry,
                                   const spec::Model &model,
                                   llvm::raw_ostream &os);

/// Adds `<name>_info()` and its constant data to `module`, in the LLVM
/// dialect (the object path) or as EmitC (the C path, after
/// --rnn-lower-to-c). Call before emitNative or emitC.
mlir::LogicalResult addInfoToLLVMModule(mlir::ModuleOp module,
                                        const spec::Model &model);
mlir::LogicalResult addInfoToEmitCModule(mlir::ModuleOp module,
                                         const spec::Model &model);

} // namespace rnnc

#endif // RNN_TARGET_TARGET_H
