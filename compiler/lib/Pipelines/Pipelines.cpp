//===- Pipelines.cpp - From rnn IR to LLVM IR or C ------------------------===//
//
// The pipelines are textual so that `rnn-opt --rnn-lower-to-llvm` and the
// rnnc driver run exactly the same passes, and so each stage can be replayed
// pass by pass with rnn-opt when debugging.
//
//===----------------------------------------------------------------------===//

#include "rnn/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace {

/// rnn on tensors -> the entry point with cells in linalg, on tensors.
constexpr llvm::StringLiteral kToLinalg =
    "rnn-expand-bidirectional,canonicalize,"
    "rnn-create-entry-point,"
    "convert-rnn-scan-to-scf{{time-block-bytes={0} time-block-rows={1} "
    "ram-lean={2}},"
    "convert-rnn-to-linalg,convert-rnn-to-runtime,"
    "canonicalize,cse";

/// For speed, the input projection of every step is one matmul over the
/// whole sequence (or block of steps) before the recurrence; RAM-lean code
/// keeps it in each step, so no buffer grows with T.
constexpr llvm::StringLiteral kHoistInputProjection =
    "rnn-hoist-input-projection";

/// For the LLVM path, matmuls become register-blocked vector code (blocks of
/// {0} x {1}) that reads weights read again every step in alternate
/// directions (unless {2} is false: CodegenOptions::alternateSweeps); the
/// accumulator block is hoisted out of the loop over k (a
/// zero accumulator then folds to a constant vector), and constant weights
/// are stored in the order the blocks read them.
constexpr llvm::StringLiteral kVectorizeMatmuls =
    "rnn-vectorize-matmuls{{tile-m={0} tile-n={1} alternate-sweeps={2}},"
    "canonicalize,"
    "loop-invariant-subset-hoisting,canonicalize,rnn-pack-weight-panels";

/// Matmuls still in linalg: on vector targets, loops (i, k, j) whose inner
/// loop the backend vectorizes; on scalar targets (CodegenOptions::
/// scalarMatmuls: Cortex-M, C), blocks of {0} x ({1} / rows) accumulators
/// carried through the loop over k.
constexpr llvm::StringLiteral kReorderMatmulLoops = "rnn-reorder-matmul-loops";
constexpr llvm::StringLiteral kBlockMatmuls =
    "rnn-block-matmuls{{tile-m={0} accumulators={1}}";

/// -> buffers, as loops. Outputs are built in the caller's buffers by
/// rnn-write-outputs-in-place rather than upstream's eliminate-empty-tensors:
/// after CSE one tensor.empty can seed several values (c and h of a cell,
/// the initial and the final carries), and the elimination then made them
/// share one output buffer (caught by the equivalence suite).
constexpr llvm::StringLiteral kBufferize =
    "canonicalize,cse,rnn-fuse-output-copies,"
    "rnn-write-outputs-in-place,empty-tensor-to-alloc-tensor,"
    "one-shot-bufferize,canonicalize,cse,canonicalize,"
    "func.func(buffer-hoisting,buffer-loop-hoisting),"
    "rnn-assign-workspace{{alignment={0}},rnn-strided-copies-to-linalg,"
    "convert-linalg-to-loops,canonicalize,cse";

/// exp and tanh as polynomials vectorize; C keeps libm, since EmitC cannot
/// express the approximations' float/int bit casts. bf16 conversions (bf16
/// params' widening, bf16 compute's rounding) become integer ops, which
/// vectorize (no avx512_bf16 here; LLVM would otherwise call a routine). Vector transfers are
/// unrolled to rows and contractions lowered to broadcasts and FMAs. {0}
/// sets the width of `index` (empty: 64 bits; on 32-bit targets 32, so
/// that loop counters and addresses are not pairs of registers).
constexpr llvm::StringLiteral kBuffersToLLVM =
    "rnn-interleave-math-loops,rnn-approximate-math,"
    "arith-expand{{include-bf16=true},"
    "convert-vector-to-scf{{full-unroll=true},"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "convert-vector-to-llvm{{vector-contract-lowering=outerproduct},"
    "finalize-memref-to-llvm{{{0}},convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm{{{0}},"
    "convert-func-to-llvm{{use-bare-ptr-memref-call-conv=1 {0}},"
    "convert-cf-to-llvm{{{0}},reconcile-unrealized-casts";

/// bf16 params become uint16 bit patterns widened by librnnrt (C99 has no
/// bfloat16). Buffers become C pointers (rnn-convert-buffers-to-emitc); affine.apply
/// (convolutions) becomes arith first, and maximumf and friends compares and
/// selects, since C has no NaN-propagating max. The entry point then gets its
/// header's signature, and form-expressions folds single-use values into C
/// expressions.
constexpr llvm::StringLiteral kBuffersToEmitC =
    "rnn-store-bf16-as-bits,lower-affine,arith-expand,"
    "rnn-convert-buffers-to-emitc,"
    "rnn-emitc-entry-abi,form-expressions";

void addPipeline(OpPassManager &pm, StringRef pipeline) {
  // The strings are constants of this file: a parse error is a bug here.
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("rnnc: invalid built-in pass pipeline");
}

} // namespace

void rnnc::buildRNNToBuffersPipeline(OpPassManager &pm,
                                     const CodegenOptions &options) {
  addPipeline(pm, llvm::formatv(kToLinalg.data(), options.timeBlockBytes,
                                options.timeBlockRows, options.ramLean)
                      .str());
  if (!options.ramLean)
    addPipeline(pm, kHoistInputProjection);
  if (options.path == CodegenPath::LLVM && !options.scalarMatmuls) {
    // Batch 1 runs a piece of the input projection in the loop over k of
    // each step's recurrent matmul; the two share one block's accumulators,
    // which leaves too few for the recurrence with 16 vector registers
    // (AVX2, NEON: 6 % slower at LSTM H=64) but not with 32 (AVX-512: 10 %
    // faster).
    if (options.blockRows * options.blockColumns >= 256 && !options.ramLean)
      addPipeline(pm, "rnn-overlap-input-projection");
    addPipeline(pm, llvm::formatv(kVectorizeMatmuls.data(), options.blockRows,
                                  options.blockColumns,
                                  options.alternateSweeps ? "true" : "false")
                        .str());
  }
  if (options.scalarMatmuls)
    addPipeline(pm, llvm::formatv(kBlockMatmuls.data(), options.blockRows,
                                  options.blockRows * options.blockColumns)
                        .str());
  else
    addPipeline(pm, kReorderMatmulLoops);
  addPipeline(pm,
              llvm::formatv(kBufferize.data(), options.workspaceAlignment).str());
}

void rnnc::buildBuffersToLLVMPipeline(OpPassManager &pm,
                                      unsigned indexBitwidth) {
  std::string width =
      indexBitwidth ? llvm::formatv("index-bitwidth={0}", indexBitwidth).str()
                    : std::string();
  addPipeline(pm, llvm::formatv(kBuffersToLLVM.data(), width).str());
}

void rnnc::buildBuffersToEmitCPipeline(OpPassManager &pm) {
  addPipeline(pm, kBuffersToEmitC);
}

/// rnnc's defaults without --target: C from 4 x 4 scalar blocks.
static rnnc::CodegenOptions codegenFor(rnnc::CodegenPath path, bool ramLean) {
  rnnc::CodegenOptions options{path};
  options.ramLean = ramLean;
  if (path == rnnc::CodegenPath::C) {
    options.scalarMatmuls = true;
    options.blockRows = options.blockColumns = 4;
  }
  return options;
}

void rnnc::buildRNNToLLVMPipeline(OpPassManager &pm, bool ramLean) {
  buildRNNToBuffersPipeline(pm, codegenFor(CodegenPath::LLVM, ramLean));
  buildBuffersToLLVMPipeline(pm);
}

void rnnc::buildRNNToEmitCPipeline(OpPassManager &pm, bool ramLean) {
  buildRNNToBuffersPipeline(pm, codegenFor(CodegenPath::C, ramLean));
  buildBuffersToEmitCPipeline(pm);
}

namespace {
/// rnnc's --optimize, so that rnn-opt replays either lowering.
struct LoweringOptions : PassPipelineOptions<LoweringOptions> {
  enum class Goal { Speed, Ram };
  Option<Goal> optimize{
      *this, "optimize", llvm::cl::desc("What the code is lean in"),
      llvm::cl::init(Goal::Speed),
      llvm::cl::values(
          clEnumValN(Goal::Speed, "speed",
                     "time: the input projection hoisted for all steps"),
          clEnumValN(Goal::Ram, "ram", "scratch memory independent of T"))};
  bool ramLean() const { return optimize == Goal::Ram; }
};
} // namespace

void rnnc::registerPipelines() {
  PassPipelineRegistration<LoweringOptions>(
      "rnn-lower-to-buffers",
      "Lower a model function in the rnn dialect to loops on buffers, as "
      "for LLVM",
      [](OpPassManager &pm, const LoweringOptions &options) {
        buildRNNToBuffersPipeline(
            pm, codegenFor(CodegenPath::LLVM, options.ramLean()));
      });
  PassPipelineRegistration<LoweringOptions>(
      "rnn-lower-to-llvm",
      "Lower a model function in the rnn dialect to the LLVM dialect",
      [](OpPassManager &pm, const LoweringOptions &options) {
        buildRNNToLLVMPipeline(pm, options.ramLean());
      });
  PassPipelineRegistration<LoweringOptions>(
      "rnn-lower-to-c",
      "Lower a model function in the rnn dialect to EmitC, ready for C",
      [](OpPassManager &pm, const LoweringOptions &options) {
        buildRNNToEmitCPipeline(pm, options.ramLean());
      });
}
