//===- InitAll.cpp - Register everything rnnc defines ---------------------===//

#include "rnn/InitAll.h"
#include "rnn/ABI/Passes.h"
#include "rnn/Bufferization/Passes.h"
#include "rnn/CPU/Passes.h"
#include "rnn/Conversion/Passes.h"
#include "rnn/Conversion/RNNToRuntime/RNNToRuntime.h"
#include "rnn/IR/RNNDialect.h"
#include "rnn/Pipelines/Pipelines.h"
#include "rnn/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/Quant.h"

void rnnc::registerAllDialects(mlir::DialectRegistry &registry) {
  // quant: int8 kernels are tensors of its per-axis type.
  registry.insert<mlir::rnn::RNNDialect, mlir::quant::QuantDialect>();
  // The sequence ops become librnnrt calls while they are bufferized.
  mlir::rnn::registerRuntimeBufferizationModels(registry);
}

void rnnc::registerAllPasses() {
  mlir::rnn::registerRNNPasses();
  mlir::rnn::registerRNNConversionPasses();
  mlir::rnn::registerRNNABIPasses();
  mlir::rnn::registerRNNBufferizationPasses();
  mlir::rnn::registerRNNCPUPasses();
  rnnc::registerPipelines();
}
