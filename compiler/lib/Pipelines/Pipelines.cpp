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
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace {

/// rnn on tensors -> the entry point with cells in linalg, on tensors ({4}:
/// kSplitInputProjection or nothing; {8}: kOverlapInputProjection or
/// nothing).
constexpr llvm::StringLiteral kToLinalg =
    "rnn-expand-bidirectional,canonicalize,rnn-runtime-rows,"
    "rnn-create-entry-point,{4}{8}"
    "convert-rnn-scan-to-scf{{time-block-bytes={0} time-block-rows={1} "
    "ram-lean={2} last-row-copies={3} runtime-step-block={5} "
    "skip-block-rows={6} length-block-rows={7} "
    "row-phase-cache-bytes={9}},"
    "convert-rnn-to-linalg{{fuse-projections={3} integer-row-maxima={10} "
    "dequantize-generic={11}}";

/// bf16 compute's products (bf16 rows into f32) in f32 where no bf16 dot
/// computes them: every target but rnn-vectorize-matmuls' bf16-dot.
constexpr llvm::StringLiteral kWidenBF16Rows = "rnn-widen-bf16-rows";

/// For speed, the input projection of every step is one matmul over the
/// whole sequence (or block of steps) before the recurrence; RAM-lean code
/// keeps it in each step, so no buffer grows with T.
constexpr llvm::StringLiteral kSplitInputProjection =
    "rnn-split-input-projection,";

/// Batch 1 runs a piece of the input projection in the loop over k of each
/// step's recurrent matmul (CodegenOptions::overlapInputProjection): pieces
/// of at least a vector ({0} lanes) per row, kernels that stay in {1} bytes
/// of cache. Decided on the scans, after the split.
constexpr llvm::StringLiteral kOverlapInputProjection =
    "rnn-overlap-input-projection{{piece-lanes={0} max-kernel-bytes={1}},";

/// For the LLVM path, matmuls become register-blocked vector code (blocks of
/// {0} x {1}) that reads weights read again every step in alternate
/// directions (unless {2} is false: CodegenOptions::alternateSweeps) and
/// constant weights stored in the order the blocks read them (bf16 ones in
/// pairs of columns for {3}-lane registers: CodegenOptions::bf16PairLanes);
/// the accumulator block is hoisted out of the loop over k (a zero
/// accumulator then folds to a constant vector).
constexpr llvm::StringLiteral kVectorizeMatmuls =
    "rnn-vectorize-matmuls{{tile-m={0} tile-n={1} alternate-sweeps={2} "
    "pair-bf16-lanes={3} bf16-dot={4} vector-lanes={5} "
    "min-block-columns={6}},"
    "canonicalize,"
    "loop-invariant-subset-hoisting,canonicalize";

/// Matmuls still in linalg: on vector targets, loops (i, k, j) whose inner
/// loop the backend vectorizes; on scalar targets (CodegenOptions::
/// scalarMatmuls: Cortex-M, C), blocks of {0} x ({1} / rows) accumulators
/// carried through the loop over k.
constexpr llvm::StringLiteral kReorderMatmulLoops = "rnn-reorder-matmul-loops";
constexpr llvm::StringLiteral kBlockMatmuls =
    "rnn-block-matmuls{{tile-m={0} accumulators={1} unroll-k={2}}";

/// -> buffers, as loops. Outputs are built in the caller's buffers by
/// rnn-write-outputs-in-place rather than upstream's eliminate-empty-tensors:
/// after CSE one tensor.empty can seed several values (c and h of a cell,
/// the initial and the final carries), and the elimination then made them
/// share one output buffer (caught by the equivalence suite).
constexpr llvm::StringLiteral kBufferize =
    "canonicalize,cse,"
    "rnn-write-outputs-in-place,empty-tensor-to-alloc-tensor,"
    "rnn-bufferize,canonicalize,cse,canonicalize,"
    "func.func(buffer-hoisting,buffer-loop-hoisting),"
    "rnn-assign-workspace{{alignment={0} innermost-first={1}},"
    "convert-linalg-to-loops,canonicalize,cse";

/// exp and tanh as polynomials vectorize; C keeps libm, since EmitC cannot
/// express the approximations' float/int bit casts ({1}: scalar gates as
/// rational functions instead, as C gets them too). bf16 conversions (bf16
/// params' widening, bf16 compute's rounding) become integer ops, which
/// vectorize, unless the target has an instruction for them ({2} false:
/// CodegenOptions::bf16Convert; their loops then vectorize at {3} lanes).
/// Vector transfers are unrolled to rows and contractions lowered to
/// broadcasts and FMAs, which become contractable where they need not be
/// exact. {0} sets the width of `index` (empty: 64 bits; on 32-bit targets
/// 32, so that loop counters and addresses are not pairs of registers).
constexpr llvm::StringLiteral kBuffersToLLVM =
    "rnn-annotate-vector-loops{{bf16-lanes={3}},"
    "rnn-approximate-math{{rational-gates={1}},"
    "arith-expand{{include-bf16={2}},"
    "convert-vector-to-scf{{full-unroll=true},"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "rnn-convert-vector-to-llvm{{enable-x86vector=true {0}},"
    "convert-ub-to-llvm,finalize-memref-to-llvm{{{0}},convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-arith-to-llvm{{{0}},"
    "convert-func-to-llvm{{use-bare-ptr-memref-call-conv=1 {0}},"
    "convert-cf-to-llvm{{{0}},reconcile-unrealized-casts,rnn-relax-fmas";

/// On scalar FPUs the gates' sigmoid and tanh become rational functions
/// first (kRationalGatesForC); other maths stays librnnrt's. bf16 params become uint16
/// bit patterns widened by librnnrt (C99 has no bfloat16). Buffers become C pointers (rnn-convert-buffers-to-emitc); affine.apply
/// (convolutions) becomes arith first, and maximumf and friends compares and
/// selects, since C has no NaN-propagating max. The entry point then gets its
/// header's signature, and form-expressions folds single-use values into C
/// expressions.
constexpr llvm::StringLiteral kRationalGatesForC =
    "rnn-approximate-math{rational-gates=true approximate-other=false}";
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
  // RAM-lean code with scalar register blocks. The input projection is
  // computed in each step, so the cells' two products and biases can share
  // one block's accumulators (convert-rnn-to-linalg's fuse-projections), and
  // with lengths each row's final carry is copied at its last step instead
  // of selected element by element every step (convert-rnn-scan-to-scf's
  // last-row-copies): kws on the Cortex-M4, 7 % fewer instructions on the
  // C path, 544 bytes less workspace, 492 less flash; on the LLVM path 1 %
  // fewer once the operand row sits within vldr's reach
  // (rnn-assign-workspace's innermost-first). Vector blocks are tuned for
  // the separate, hoisted projection.
  bool leanScalar = options.ramLean && options.scalarMatmuls;
  const ScanBlocking &scan = options.scanBlocking;
  // Row maxima (dynamic int8) on the magnitudes' bits, for the loop
  // vectorizer; C and scalar targets compare floats.
  bool integerRowMaxima =
      options.path == CodegenPath::LLVM && !options.scalarMatmuls;
  // The projection's dynamic int8 sums converted in the int8 kernel's
  // epilogue, where rnn-int8-matmuls runs.
  bool int8Kernels = options.path == CodegenPath::LLVM &&
                     !options.scalarMatmuls && !options.int8Dot.empty();
  std::string overlap;
  if (options.overlapsBatchOne())
    overlap = llvm::formatv(kOverlapInputProjection.data(),
                            options.vectorLanes, options.cacheBytes)
                  .str();
  addPipeline(pm, llvm::formatv(kToLinalg.data(), options.timeBlockBytes,
                                options.timeBlockRows, options.ramLean,
                                leanScalar,
                                options.ramLean ? "" : kSplitInputProjection,
                                scan.runtimeStepBlock, scan.skipBlockRows,
                                scan.lengthBlockRows, overlap,
                                options.cacheBytes, integerRowMaxima,
                                int8Kernels)
                      .str());
  if (!options.bf16Dot)
    addPipeline(pm, kWidenBF16Rows);
  addPipeline(pm, "canonicalize,cse");
  if (options.path == CodegenPath::LLVM && !options.scalarMatmuls) {
    // Dynamic int8 activations' i8 matmuls, first: vpdpbusd or vpmaddwd,
    // not the generic vector lowering.
    if (int8Kernels)
      addPipeline(pm, llvm::formatv("rnn-int8-matmuls{{instruction={0} "
                                    "accumulators={1}}",
                                    options.int8Dot, options.kernelAccumulators)
                          .str());
    addPipeline(pm, llvm::formatv(kVectorizeMatmuls.data(), options.blockRows,
                                  options.blockColumns,
                                  options.alternateSweeps ? "true" : "false",
                                  options.bf16PairLanes,
                                  options.bf16Dot ? "true" : "false",
                                  options.vectorLanes, options.minVectorColumns)
                        .str());
  }
  if (options.scalarMatmuls)
    addPipeline(pm, llvm::formatv(kBlockMatmuls.data(), options.blockRows,
                                  options.blockRows * options.blockColumns,
                                  options.blockUnrollK)
                        .str());
  else
    addPipeline(pm, kReorderMatmulLoops);
  addPipeline(pm,
              llvm::formatv(kBufferize.data(), options.workspaceAlignment,
                            options.innermostBuffersFirst)
                  .str());
}

void rnnc::buildSplitGateColumnsPipeline(OpPassManager &pm,
                                         StringRef entryPoint,
                                         StringRef from) {
  addPipeline(pm, llvm::formatv("rnn-split-gate-columns{{entry-point={0} "
                                "from={1}}",
                                entryPoint, from)
                      .str());
}

void rnnc::buildBuffersToLLVMPipeline(OpPassManager &pm,
                                      const CodegenOptions &options) {
  std::string width = options.indexBitwidth
                          ? llvm::formatv("index-bitwidth={0}",
                                          options.indexBitwidth)
                                .str()
                          : std::string();
  addPipeline(pm, llvm::formatv(kBuffersToLLVM.data(), width,
                                options.rationalGates, !options.bf16Convert,
                                options.bf16Convert ? options.vectorLanes : 0)
                      .str());
}

void rnnc::buildBuffersToEmitCPipeline(OpPassManager &pm,
                                       const CodegenOptions &options) {
  if (options.rationalGates)
    addPipeline(pm, kRationalGatesForC);
  addPipeline(pm, kBuffersToEmitC);
}

llvm::Expected<rnnc::CodegenOptions>
rnnc::selectCodegenOptions(const TargetOptions &target, CodegenPath path,
                           Optimize optimize) {
  CodegenOptions options{path};
  if (path == CodegenPath::C && target.empty()) {
    options.scalarMatmuls = true;
    options.blockRows = options.blockColumns = 4;
    options.overlapInputProjection = false;
    options.ramLean = optimize == Optimize::Ram;
    return options;
  }
  llvm::Expected<TargetInfo> info = describeTarget(target);
  if (!info)
    return info.takeError();
  MatmulBlock block =
      path == CodegenPath::LLVM ? info->matmulBlock() : info->cMatmulBlock();
  options.blockRows = block.rows;
  options.blockColumns = block.columns;
  options.scalarMatmuls = !block.vector;
  options.vectorLanes = info->vectorLanes();
  options.minVectorColumns = info->narrowestVectorBlock();
  options.kernelAccumulators = info->kernelAccumulators();
  options.scanBlocking = info->scanBlocking();
  options.overlapInputProjection =
      path == CodegenPath::LLVM && info->overlapsInputProjection();
  options.cacheBytes = info->cacheBytes;
  options.ramLean = optimize == Optimize::Ram ||
                    (optimize == Optimize::Default && info->microcontroller);
  options.rationalGates = info->rationalGates();
  options.innermostBuffersFirst = info->shortLoadOffsets();
  // GCC does not unroll at -O2; LLVM's own unroller does (kws's loop over k
  // by 5).
  if (path == CodegenPath::C && !info->vectorBits)
    options.blockUnrollK = 4;
  // Without a cache or vector unit, a word-aligned (8: double-word, for
  // LDRD/VLDR pairs) buffer is as fast, and padding each to a cache line
  // costs RAM that is scarce; speed mode's code stays as it is.
  if (options.ramLean && info->microcontroller)
    options.workspaceAlignment = 8;
  if (path == CodegenPath::LLVM) {
    options.indexBitwidth = info->indexBitwidth();
    // The 512-bit vpdpbusd: AVX-512 with VNNI (AVX-VNNI alone, 256 bits,
    // has no kernel); else AVX2's vpmaddwd.
    bool x86 = llvm::Triple(info->triple).isX86();
    if (x86 && info->int8Dot && info->vectorBits == 512)
      options.int8Dot = "vpdpbusd";
    else if (x86 && info->int16PairDot)
      options.int8Dot = "vpmaddwd";
  }
  // A 512-bit load of 32 paired bf16 weights widens with a shift and a mask
  // (two 16-lane vectors), instead of two zero-extends and two shifts. x86
  // is little-endian, as the pairing needs.
  if (path == CodegenPath::LLVM && block.vector &&
      llvm::Triple(info->triple).isX86() && info->vectorBits >= 512)
    options.bf16PairLanes = 16;
  // x86vector.avx512.dot is 16 lanes: the AVX-512 block.
  if (path == CodegenPath::LLVM && block.vector && info->bf16Dot &&
      info->vectorBits >= 512)
    options.bf16Dot = true;
  // vcvtneps2bf16 rounds as arith-expand's integer ops do, in 3 vector
  // instructions (with the widening back) instead of 7: LSTM H=256 B=16 in
  // bf16 compute 0.97x the time.
  if (path == CodegenPath::LLVM && block.vector && info->bf16Convert())
    options.bf16Convert = true;
  return options;
}

namespace {

/// rnnc compile's --target, --cpu and --optimize, so that rnn-opt replays
/// what rnnc does.
struct LoweringOptions : PassPipelineOptions<LoweringOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target triple (default: none, a host-independent "
                     "lowering)")};
  Option<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("Target CPU, as rnnc's --cpu (without a target: a CPU "
                     "of the host's triple)")};
  Option<rnnc::Optimize> optimize{
      *this, "optimize", llvm::cl::desc("What the code is lean in"),
      llvm::cl::init(rnnc::Optimize::Default),
      llvm::cl::values(
          clEnumValN(rnnc::Optimize::Default, "default",
                     "ram on microcontrollers, speed elsewhere"),
          clEnumValN(rnnc::Optimize::Speed, "speed",
                     "time: the input projection hoisted for all steps"),
          clEnumValN(rnnc::Optimize::Ram, "ram",
                     "scratch memory independent of T"))};
};

/// The options of `options` for `path`: the target's, or without a target
/// the host-independent defaults (the LLVM path's 4 x 64 vector blocks).
llvm::Expected<rnnc::CodegenOptions>
codegenFor(const LoweringOptions &options, rnnc::CodegenPath path) {
  rnnc::TargetOptions target{options.target, options.cpu};
  if (!target.empty() || path == rnnc::CodegenPath::C)
    return rnnc::selectCodegenOptions(target, path, options.optimize);
  rnnc::CodegenOptions codegen{path};
  codegen.ramLean = options.optimize == rnnc::Optimize::Ram;
  return codegen;
}

enum class Stage { Buffers, LLVM, C };

void registerLowering(StringRef name, StringRef description, Stage stage) {
  registerPassPipeline(
      name, description,
      [stage](OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        LoweringOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        auto path =
            stage == Stage::C ? rnnc::CodegenPath::C : rnnc::CodegenPath::LLVM;
        llvm::Expected<rnnc::CodegenOptions> codegen =
            codegenFor(options, path);
        if (!codegen)
          return errorHandler(llvm::toString(codegen.takeError()));
        rnnc::buildRNNToBuffersPipeline(pm, *codegen);
        if (stage == Stage::LLVM)
          rnnc::buildBuffersToLLVMPipeline(pm, *codegen);
        if (stage == Stage::C)
          rnnc::buildBuffersToEmitCPipeline(pm, *codegen);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(LoweringOptions());
      });
}

} // namespace

void rnnc::registerPipelines() {
  registerLowering("rnn-lower-to-buffers",
                   "Lower a model function in the rnn dialect to loops on "
                   "buffers, as for LLVM",
                   Stage::Buffers);
  registerLowering(
      "rnn-lower-to-llvm",
      "Lower a model function in the rnn dialect to the LLVM dialect",
      Stage::LLVM);
  registerLowering(
      "rnn-lower-to-c",
      "Lower a model function in the rnn dialect to EmitC, ready for C",
      Stage::C);
}
