//===- Pipelines.h - From rnn IR to LLVM IR or C ----------------*- C++ -*-===//

#ifndef RNN_PIPELINES_PIPELINES_H
#define RNN_PIPELINES_PIPELINES_H

#include "rnn/Target/TargetInfo.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

namespace rnnc {

enum class CodegenPath { LLVM, C };

/// The defaults of --convert-rnn-scan-to-scf's time-block-bytes and
/// time-block-rows.
constexpr int64_t kDefaultTimeBlockBytes = 256 * 1024;
constexpr int64_t kDefaultTimeBlockRows = 256;

/// How the model is lowered to buffers.
struct CodegenOptions {
  CodegenPath path = CodegenPath::LLVM;
  /// The register block of the matmuls: vector code on the LLVM path,
  /// scalar blocks (rnn-block-matmuls) with scalarMatmuls.
  int64_t blockRows = 4, blockColumns = 64;
  /// Matmuls as blocks of scalar accumulators instead of vector code: for
  /// targets without a vector unit, and for C.
  bool scalarMatmuls = false;
  /// Copies of a scalar block's step per iteration of its loop over k
  /// (rnn-block-matmuls' unroll-k): 4 for C on targets without a vector
  /// unit, whose C compilers do not unroll at -O2.
  int64_t blockUnrollK = 1;
  /// f32 lanes of a vector register (TargetInfo::vectorLanes): the column
  /// unit of rnn-vectorize-matmuls' shared loops and of
  /// rnn-overlap-input-projection's pieces, and the width of bf16 dot
  /// blocks. The default is AVX-512's, like the block's.
  int64_t vectorLanes = 16;
  /// The narrowest block of columns rnn-vectorize-matmuls vectorizes
  /// (min-block-columns): TargetInfo::narrowestVectorBlock.
  int64_t minVectorColumns = 8;
  /// Vector registers an int8 dot block keeps its sums in (rnn-int8-matmuls'
  /// accumulators): TargetInfo::kernelAccumulators.
  int64_t kernelAccumulators = 16;
  /// A batch-1 input projection computed piece by piece beside the
  /// recurrence (rnn-overlap-input-projection; LLVM path, vector blocks,
  /// not RAM-lean): TargetInfo::overlapsInputProjection. On by default, with
  /// the default 4 x 64 block.
  bool overlapInputProjection = true;
  /// A core's private cache (TargetInfo::cacheBytes): the projection's
  /// kernel must stay in it for that overlap (rnn-overlap-input-projection's
  /// max-kernel-bytes), and a length-sorted block's recurrent weights for
  /// its phases of fewer rows (convert-rnn-scan-to-scf's
  /// row-phase-cache-bytes; 0: no figure).
  int64_t cacheBytes = 1 << 20;
  /// Step outputs per block of a long time loop; 0: no blocks.
  int64_t timeBlockBytes = kDefaultTimeBlockBytes;
  /// Rows (batch x steps) per block of a long time loop, at least.
  int64_t timeBlockRows = kDefaultTimeBlockRows;
  /// The rest of the scan's blocking (convert-rnn-scan-to-scf's
  /// runtime-step-block, skip-block-rows, length-block-rows):
  /// TargetInfo::scanBlocking.
  ScanBlocking scanBlocking = {};
  /// Matmuls that read weights read again alternate their direction (and so
  /// their order of summation) from read to read (LLVM path). A stream
  /// turns it off: its chunks start at any step, so a step's order must not
  /// depend on where in a call it runs.
  bool alternateSweeps = true;
  /// The x86 instruction the int8 x int8 matmuls of dynamic int8
  /// activations run on (LLVM path, rnn-int8-matmuls): "vpdpbusd" (AVX-512
  /// VNNI) or "vpmaddwd" (AVX2); empty without either, and
  /// `activations: dynamic` is then rejected at its spec line.
  llvm::StringRef int8Dot = {};
  /// RAM-lean code (rnnc --optimize=ram): scratch memory independent of
  /// T, the input projection computed step by step inside the recurrence.
  bool ramLean = false;
  /// The alignment of the buffers in the workspace (rnn-assign-workspace).
  int64_t workspaceAlignment = 64;
  /// Buffers of the innermost loops at the lowest workspace offsets
  /// (rnn-assign-workspace's innermost-first): TargetInfo::shortLoadOffsets.
  bool innermostBuffersFirst = false;
  /// The width of `index` on the LLVM path (0: MLIR's default, 64).
  unsigned indexBitwidth = 0;
  /// bf16 weight panels of the LLVM path stored in pairs of columns for
  /// registers of this many f32 lanes (rnn-vectorize-matmuls'
  /// pair-bf16-lanes; 0: off): AVX-512 hosts, where it was measured.
  int64_t bf16PairLanes = 0;
  /// bf16 compute's matmuls as vdpbf16ps dot products (rnn-vectorize-
  /// matmuls' bf16-dot): LLVM path, targets with AVX512_BF16
  /// (TargetInfo::bf16Dot). Not bit-exact with Flax: see docs/Semantics.md.
  bool bf16Dot = false;
  /// f32 <-> bf16 conversions left to LLVM, which rounds with the target's
  /// instruction (AVX512_BF16's vcvtneps2bf16) in vectors of vectorLanes
  /// (rnn-annotate-vector-loops' bf16-lanes), instead of arith-expand's
  /// integer arithmetic: LLVM path, TargetInfo::bf16Convert.
  bool bf16Convert = false;
  /// Scalar sigmoid and tanh as rational functions (rnn-approximate-math's
  /// rational-gates, both paths): TargetInfo::rationalGates.
  bool rationalGates = false;

  /// Whether batch-1 scans may compute their input projection beside the
  /// recurrence (rnn-overlap-input-projection runs).
  bool overlapsBatchOne() const {
    return path == CodegenPath::LLVM && !scalarMatmuls &&
           overlapInputProjection && !ramLean;
  }
};

/// What the generated code is lean in (--optimize): time, or RAM (scratch
/// memory independent of T). Default: RAM on microcontrollers
/// (TargetInfo::microcontroller), speed elsewhere.
enum class Optimize { Default, Speed, Ram };

/// The code generation options the target asks for on `path`: its matmul
/// block (TargetInfo::matmulBlock, cMatmulBlock), its `index` width, and
/// RAM-lean code with 8-byte buffer alignment on microcontrollers unless
/// `optimize` says otherwise. Without a triple or CPU, the C path is built
/// from 4 x 4 scalar blocks without looking at the host (the C compiler
/// picks the host's vectors); the LLVM path then targets the host. Fails
/// like describeTarget.
llvm::Expected<CodegenOptions> selectCodegenOptions(const TargetOptions &target,
                                                    CodegenPath path,
                                                    Optimize optimize);

/// The model function on tensors -> its entry point on buffers, as loops
/// (and, for the LLVM path, vector code for the matmuls).
void buildRNNToBuffersPipeline(mlir::OpPassManager &pm,
                               const CodegenOptions &options);

/// Adds `<entryPoint minus _run>_cols_step` beside the bufferized entry
/// point `entryPoint`: one batch-1 step on one task's gate columns, for
/// <name>_run_parallel (--rnn-split-gate-columns; nothing when the
/// recurrence is not of the shape it splits), cloned from the bufferized
/// function `from` (built for the split, rnn.column_split; then erased)
/// or, when empty, from the entry point.
void buildSplitGateColumnsPipeline(mlir::OpPassManager &pm,
                                   llvm::StringRef entryPoint,
                                   llvm::StringRef from = {});

/// The entry point on buffers -> the LLVM dialect, with `index` of
/// `options.indexBitwidth` bits (0: the default, 64).
void buildBuffersToLLVMPipeline(mlir::OpPassManager &pm,
                                const CodegenOptions &options);

/// The entry point on buffers -> the EmitC dialect, ready for C emission.
void buildBuffersToEmitCPipeline(mlir::OpPassManager &pm,
                                 const CodegenOptions &options);

/// Registers --rnn-lower-to-buffers, --rnn-lower-to-llvm and
/// --rnn-lower-to-c, each with the options `target=<triple>`, `cpu=<name>`
/// and `optimize=default|speed|ram` of rnnc compile's --target, --cpu and
/// --optimize: with the same options they run the passes rnnc runs. With
/// neither target nor cpu, the code does not depend on the host: the LLVM
/// path uses 4 x 64 vector blocks (AVX-512's), the C path 4 x 4 scalars.
void registerPipelines();

} // namespace rnnc

#endif // RNN_PIPELINES_PIPELINES_H
