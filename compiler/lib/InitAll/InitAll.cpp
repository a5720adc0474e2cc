//===- InitAll.cpp - Register everything rnnc defines ---------------------===//

#include "rnn/InitAll.h"
#include "rnn/Codegen/Passes.h"
#include "rnn/Conversion/Passes.h"
#include "rnn/IR/RNNDialect.h"
#include "rnn/Pipelines/Pipelines.h"
#include "rnn/Transforms/Passes.h"

void rnnc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::rnn::RNNDialect>();
}

void rnnc::registerAllPasses() {
  mlir::rnn::registerRNNPasses();
  mlir::rnn::registerRNNConversionPasses();
  mlir::rnn::registerRNNCodegenPasses();
  rnnc::registerPipelines();
}
