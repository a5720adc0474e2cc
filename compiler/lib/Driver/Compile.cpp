//===- Compile.cpp - Spec and weights to code -----------------------------===//

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/Driver/Driver.h"
#include "rnn/IR/RNNDialect.h"
#include "rnn/Import/MLIRGen.h"
#include "rnn/InitAll.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Spec/Parser.h"
#include "rnn/Weights/Binding.h"
#include "rnn/Weights/WeightsFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace rnnc;

void rnnc::registerCompilerDialects(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  rnnc::registerAllDialects(registry);
  // The textual pipelines name passes, which must be registered to parse.
  static bool passesRegistered = [] {
    mlir::registerAllPasses();
    rnnc::registerAllPasses();
    return true;
  }();
  (void)passesRegistered;
}

std::optional<LoadedModel>
rnnc::loadModel(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                StringRef weightsPath, MLIRContext &ctx,
                llvm::ArrayRef<std::string> ignoreParams) {
  std::optional<spec::Model> model = spec::parseModel(sourceMgr, bufferId, ctx);
  if (!model)
    return std::nullopt;
  // Reader problems are about the weights file, not a spec line.
  std::vector<std::string> warnings;
  BindOptions options;
  options.ignoreParams.assign(ignoreParams.begin(), ignoreParams.end());
  for (const std::string &glob : ignoreParams) {
    llvm::Expected<llvm::GlobPattern> pattern = llvm::GlobPattern::create(glob);
    if (!pattern) {
      llvm::WithColor::error(llvm::errs(), "rnnc")
          << "invalid --ignore-params glob '" << glob
          << "': " << llvm::toString(pattern.takeError()) << "\n";
      return std::nullopt;
    }
  }
  // The headers first: a file whose keys or shapes do not fit the model is
  // rejected before any array is read or inflated, so a decompression bomb
  // that does not fit costs neither time nor memory.
  llvm::Expected<ParamShapes> shapes =
      readWeightShapes(weightsPath, &options.nonFloatKeys);
  if (!shapes) {
    llvm::WithColor::error(llvm::errs(), "rnnc")
        << llvm::toString(shapes.takeError()) << "\n";
    return std::nullopt;
  }
  if (failed(checkParamShapes(*model, *shapes, weightsPath, sourceMgr, ctx,
                              options)))
    return std::nullopt;
  options.nonFloatKeys.clear();
  llvm::Expected<ParamTree> tree =
      readWeights(weightsPath, warnings, &options.nonFloatKeys);
  for (const std::string &warning : warnings)
    llvm::WithColor::warning(llvm::errs(), "rnnc") << warning << "\n";
  if (!tree) {
    llvm::WithColor::error(llvm::errs(), "rnnc")
        << llvm::toString(tree.takeError()) << "\n";
    return std::nullopt;
  }
  std::optional<std::vector<LayerParams>> params =
      bindParams(*model, *tree, weightsPath, sourceMgr, ctx, options);
  if (!params)
    return std::nullopt;
  resolveParamsPaths(*model, *tree);
  return LoadedModel{std::move(*model), std::move(*params), weightsPath.str()};
}

/// Records the entry point's parameters and workspace in `compiled`.
static LogicalResult describeEntryPoint(ModuleOp module,
                                        const spec::Model &model,
                                        Compiled &compiled) {
  FailureOr<rnn::abi::EntryPointABI> entry =
      rnn::abi::describeEntryPoint(module, model.name);
  if (failed(entry))
    return failure();
  if (!entry->workspace.size)
    return emitError(module.getLoc(), "no workspace size on '")
           << entry->name << "' after lowering";
  compiled.workspaceSize = *entry->workspace.size;
  compiled.workspaceAlignment = entry->workspace.alignment;
  using rnn::abi::Role;
  for (const rnn::abi::Parameter &abiParam : entry->parameters) {
    if (abiParam.isWorkspace())
      continue;
    EntryParameter param;
    param.name = abiParam.key;
    param.shape.assign(abiParam.shape.begin(), abiParam.shape.end());
    param.isTokens = abiParam.role == Role::Tokens;
    param.isSteps = abiParam.role == Role::Steps;
    param.batchSizeOf = abiParam.batchSizeOf;
    param.isLengths = abiParam.role == Role::SeqLengths;
    param.timeAxis = abiParam.timeAxis;
    param.batchAxis = abiParam.batchAxis;
    param.isOutput = abiParam.isOutput();
    compiled.parameters.push_back(std::move(param));
  }
  return success();
}

/// Hashes the spec and weights files for <name>_info() (EmitInfo.cpp).
static LogicalResult recordFileHashes(ModuleOp module,
                                      const LoadedModel &loaded,
                                      const llvm::SourceMgr &sourceMgr) {
  std::string specHash = sha256Hex(
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer());
  std::string weightsHash;
  if (!loaded.weightsPath.empty()) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> weights =
        llvm::MemoryBuffer::getFile(loaded.weightsPath, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!weights)
      return emitError(module.getLoc())
             << "cannot read '" << loaded.weightsPath
             << "': " << weights.getError().message();
    weightsHash = sha256Hex((*weights)->getBuffer());
  }
  setInfoHashes(module, specHash, weightsHash);
  return success();
}

/// Bytes of the constant globals (the weights, packed as the kernels read
/// them) of a module on buffers.
static int64_t constantBytes(ModuleOp module) {
  int64_t bytes = 0;
  module.walk([&](memref::GlobalOp global) {
    if (!global.getConstant())
      return;
    MemRefType type = global.getType();
    bytes += type.getNumElements() *
             int64_t(llvm::divideCeil(type.getElementTypeBitWidth(), 8));
  });
  return bytes;
}

/// Bytes of the executable sections of an object file, or -1 if it cannot
/// be read.
static int64_t textBytes(llvm::StringRef object) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(object, "object"));
  if (!file) {
    llvm::consumeError(file.takeError());
    return -1;
  }
  int64_t bytes = 0;
  for (const llvm::object::SectionRef &section : (*file)->sections())
    if (section.isText())
      bytes += section.getSize();
  return bytes;
}

/// Adds the model functions of `part` (built from the same weights, so its
/// constants are the same attributes and the parts share the whole's
/// weights) to `module`, each marked `attrName = value`.
static void addPartModel(ModuleOp module, const spec::Model &part,
                         const LoadedModel &loaded,
                         const llvm::SourceMgr &sourceMgr,
                         llvm::StringRef attrName, int64_t value) {
  MLIRContext &ctx = *module.getContext();
  OwningOpRef<ModuleOp> partModule =
      buildModelModule(ctx, part, loaded.params, sourceMgr);
  for (func::FuncOp func :
       llvm::make_early_inc_range(partModule->getOps<func::FuncOp>())) {
    func->setAttr(attrName,
                  IntegerAttr::get(IntegerType::get(&ctx, 64), value));
    func->remove();
    module.push_back(func);
  }
}

std::string rnnc::artifactName(const spec::Model &model, Emit emit) {
  switch (emit) {
  case Emit::MLIR:
    return model.name + ".mlir";
  case Emit::LLVMIR:
    return model.name + ".ll";
  case Emit::Assembly:
    return model.name + ".s";
  case Emit::Object:
    return model.name + ".o";
  case Emit::C:
    return model.name + ".c";
  }
  llvm_unreachable("unknown emit kind");
}

FailureOr<Compiled> rnnc::compileModel(const LoadedModel &loaded,
                                       const llvm::SourceMgr &sourceMgr,
                                       const CompileOptions &options,
                                       MLIRContext &ctx) {
  OwningOpRef<ModuleOp> module =
      buildModelModule(ctx, loaded.model, loaded.params, sourceMgr);
  if (failed(verify(*module)))
    return failure();
  Compiled compiled;
  if (options.emit == Emit::MLIR) {
    // With locations: every op points at the spec line it came from.
    llvm::raw_string_ostream os(compiled.code);
    module->print(os, OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                        /*prettyForm=*/false));
    return compiled;
  }

  // The target's choices (a --target or --cpu that names nothing is an
  // error on both paths), then the stream's and the tests' overrides.
  llvm::Expected<CodegenOptions> selected = selectCodegenOptions(
      options.target,
      options.emit == Emit::C ? CodegenPath::C : CodegenPath::LLVM,
      options.optimize);
  if (!selected) {
    // About --target and --cpu, not a line of the spec.
    llvm::WithColor::error(llvm::errs(), "rnnc")
        << llvm::toString(selected.takeError()) << "\n";
    return failure();
  }
  CodegenOptions codegen = *selected;
  // activations: dynamic on the LLVM path runs on x86's vpdpbusd or
  // vpmaddwd only: on a target without them an error at the spec's value
  // (or the model's, when `rnnc check --quantize int8-dynamic` applied it),
  // never a lowering failure. The C path's int32 loops run anywhere.
  if (loaded.model.int8Activations && codegen.path == CodegenPath::LLVM &&
      codegen.int8Dot.empty()) {
    std::string message =
        "'activations: dynamic' needs an x86 int8 dot product (AVX-512 "
        "VNNI's vpdpbusd or AVX2's vpmaddwd) on the LLVM path's target; use "
        "--emit=c (portable int32 loops) or 'activations: float32' (int8 "
        "weights, float32 maths)";
    if (loaded.model.int8ActivationsLoc.isValid())
      sourceMgr.PrintMessage(loaded.model.int8ActivationsLoc,
                             llvm::SourceMgr::DK_Error, message);
    else
      emitError(module->getLoc()) << message;
    return failure();
  }
  codegen.timeBlockBytes = options.timeBlockBytes;
  codegen.timeBlockRows = options.timeBlockRows;
  // A chunk of a stream starts at any step, and a task of
  // <name>_run_parallel runs any part of the rows: a step's and a row's
  // order of summation must not depend on where in a call it runs.
  codegen.alternateSweeps =
      !loaded.model.stream && !splitsParallelRows(loaded.model);
  // CompileOptions' override of the vector block (the equivalence suite's
  // AVX-512 block on any host). It brings the rest of AVX-512's kernel
  // along, CodegenOptions' defaults: 16-lane pieces and shared loops, and
  // the batch-1 overlap.
  if (codegen.path == CodegenPath::LLVM && !codegen.scalarMatmuls &&
      (options.blockRows || options.blockColumns)) {
    CodegenOptions avx512;
    if (options.blockRows)
      codegen.blockRows = options.blockRows;
    if (options.blockColumns)
      codegen.blockColumns = options.blockColumns;
    codegen.vectorLanes = avx512.vectorLanes;
    codegen.overlapInputProjection = avx512.overlapInputProjection;
    codegen.cacheBytes = avx512.cacheBytes;
  }
  // <name>_run_parallel's tasks on a static batch: an entry point per
  // part's rows, built from the same spec and weights. Not on
  // microcontrollers: no threads there, and the parts double the code.
  SmallVector<int64_t, 2> parts;
  if (!isMicrocontroller(options.target))
    parts = staticParallelParts(loaded.model, codegen.blockRows);
  for (int64_t rows : parts) {
    spec::Model part = loaded.model;
    part.name = partModelName(loaded.model, rows);
    part.batch = {rows};
    addPartModel(*module, part, loaded, sourceMgr,
                 rnn::kTimeBlockBatchAttrName, loaded.model.batch[0]);
  }
  // <name>_run_parallel's tasks at batch 1: one step on half the gate
  // columns, beside <name>_run (which stays as it is). Not on
  // microcontrollers: no threads there. Where <name>_run may compute its
  // input projection beside the recurrence (AVX-512), in pieces whose
  // columns cross the tasks' halves, the step comes from a function built
  // for the split instead (rnn.column_split: no overlap, blocks within a
  // half), with the same sums in the same order.
  bool columnTasks =
      !isMicrocontroller(options.target) && splitsGateColumns(loaded.model);
  std::string columnSource;
  int64_t units = columnTasks ? loaded.model.layers.front().rnn.cell.features
                              : 0;
  if (columnTasks && codegen.overlapsBatchOne() &&
      units % (2 * codegen.vectorLanes) == 0) {
    spec::Model part = loaded.model;
    part.name = loaded.model.name + "_cols";
    addPartModel(*module, part, loaded, sourceMgr, rnn::kColumnSplitAttrName,
                 units / 2);
    columnSource = rnn::abi::entryPointName(part.name);
  }
  PassManager toBuffers(&ctx);
  buildRNNToBuffersPipeline(toBuffers, codegen);
  if (failed(toBuffers.run(*module)))
    return failure();
  if (columnTasks) {
    PassManager split(&ctx);
    buildSplitGateColumnsPipeline(
        split, rnn::abi::entryPointName(loaded.model.name), columnSource);
    if (failed(split.run(*module)))
      return failure();
  }
  if (failed(describeEntryPoint(*module, loaded.model, compiled)) ||
      failed(recordFileHashes(*module, loaded, sourceMgr)))
    return failure();
  compiled.weightsBytes = constantBytes(*module);
  {
    llvm::raw_string_ostream os(compiled.header);
    if (llvm::Error error =
            emitHeader(*module, loaded.model, os, codegen.blockRows)) {
      emitError(module->getLoc()) << llvm::toString(std::move(error));
      return failure();
    }
  }
  if (options.emit == Emit::C) {
    // The C path keeps the rnn.* argument attributes: they say which
    // parameters are `const` and which is the workspace.
    PassManager toC(&ctx);
    buildBuffersToEmitCPipeline(toC, codegen);
    if (failed(toC.run(*module)) ||
        failed(addInfoToEmitCModule(*module, loaded.model)))
      return failure();
    llvm::raw_string_ostream os(compiled.code);
    if (llvm::Error error = emitC(*module, os)) {
      emitError(module->getLoc()) << llvm::toString(std::move(error));
      return failure();
    }
    addFootprintToHeader(compiled.header, loaded.model,
                         Footprint{-1, -1, compiled.weightsBytes});
    return compiled;
  }
  // rnn.* attributes named the parameters for the header; LLVM has no use
  // for them.
  module->walk([](func::FuncOp func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      func.removeArgAttr(i, rnn::kNameAttrName);
      func.removeArgAttr(i, rnn::kWorkspaceAttrName);
      func.removeArgAttr(i, rnn::kOutputAttrName);
      func.removeArgAttr(i, rnn::kTimeAxisAttrName);
      func.removeArgAttr(i, rnn::kBatchAxisAttrName);
    }
    func->removeAttr(rnn::kTimeBlockBatchAttrName);
    func->removeAttr(rnn::kColumnSplitAttrName);
  });
  PassManager toLLVM(&ctx);
  buildBuffersToLLVMPipeline(toLLVM, codegen);
  if (failed(toLLVM.run(*module)) ||
      failed(addInfoToLLVMModule(*module, loaded.model)))
    return failure();
  NativeFile kind = options.emit == Emit::Object     ? NativeFile::Object
                    : options.emit == Emit::Assembly ? NativeFile::Assembly
                                                     : NativeFile::LLVMIR;
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  if (llvm::Error error = emitNative(*module, options.target, kind, os,
                                     &compiled.stackBytes)) {
    llvm::WithColor::error(llvm::errs(), "rnnc")
        << llvm::toString(std::move(error)) << "\n";
    return failure();
  }
  compiled.code = std::string(buffer.str());
  if (kind == NativeFile::Object)
    compiled.codeBytes = textBytes(compiled.code);
  addFootprintToHeader(
      compiled.header, loaded.model,
      Footprint{compiled.stackBytes, compiled.codeBytes, compiled.weightsBytes});
  return compiled;
}
