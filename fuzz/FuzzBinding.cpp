//===- FuzzBinding.cpp - libFuzzer target: parameter binding --------------===//
//
// Binds fuzzed weights to fixed specs: the first input byte picks one of the
// specs below (every cell kind, both layouts, a Bidirectional layer, custom
// params paths), the rest is read as a weights file the way the driver reads
// one: its headers checked against the spec (parseWeightShapes,
// checkParamShapes), then, when they fit, the arrays read (parseWeights) and
// bound (bindParams). Every missing, misshapen or unexpected key must be a
// diagnostic, never a crash, and a file whose headers fit and whose arrays
// read must bind: the two passes agree.
//
//===----------------------------------------------------------------------===//

#include "rnn/Spec/Parser.h"
#include "rnn/Weights/Binding.h"
#include "rnn/Weights/WeightsFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <iterator>

static const char *const kSpecs[] = {
    R"(rnnc: 1
name: m
input: {batch: [2], time: 3, features: 3}
layers:
  - {type: RNN, name: enc, cell: {type: LSTMCell, features: 2}}
)",
    R"(rnnc: 1
name: m
input: {batch: [2], time: 3, features: 3, seq_lengths: true}
layers:
  - type: Bidirectional
    name: enc
    forward_rnn: {cell: {type: GRUCell, features: 2}}
    backward_rnn: {cell: {type: OptimizedLSTMCell, features: 2}}
    merge_fn: concat
)",
    R"(rnnc: 1
name: m
input: {batch: [1], time: 2, features: 2}
layers:
  - {type: RNN, name: a, cell: {type: MGUCell, features: 3}}
  - {type: RNN, name: b, cell: {type: SimpleCell, features: 2, params: x/y}}
)",
    R"(rnnc: 1
name: m
params_layout: nnx
input: {batch: [1], time: 2, features: 2}
layers:
  - {type: RNN, name: a, cell: {type: LSTMCell, features: 2}}
  - {type: RNN, name: b, cell: {type: GRUCell, features: 2}}
)",
};

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  rnnc::weights::setMaxWeightsBytes(64 << 20);
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  llvm::raw_string_ostream diagOs(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(kSpecs[data[0] % std::size(kSpecs)],
                                       "spec.yaml"),
      llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diagOs);
  std::optional<rnnc::spec::Model> model =
      rnnc::spec::parseModel(sourceMgr, 1, ctx);
  if (!model)
    __builtin_trap(); // the fixed specs are valid
  llvm::StringRef bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
  rnnc::BindOptions options;
  llvm::Expected<rnnc::ParamShapes> shapes =
      rnnc::parseWeightShapes(bytes, "fuzz.bin", &options.nonFloatKeys);
  if (!shapes) {
    llvm::consumeError(shapes.takeError());
    return 0;
  }
  if (mlir::failed(rnnc::checkParamShapes(*model, *shapes, "fuzz.bin",
                                          sourceMgr, ctx, options)))
    return 0;
  options.nonFloatKeys.clear();
  std::vector<std::string> warnings;
  llvm::Expected<rnnc::ParamTree> tree =
      rnnc::parseWeights(bytes, "fuzz.bin", warnings, &options.nonFloatKeys);
  if (!tree) {
    llvm::consumeError(tree.takeError());
    return 0;
  }
  if (!rnnc::bindParams(*model, *tree, "fuzz.bin", sourceMgr, ctx, options))
    __builtin_trap(); // the headers fit, so the arrays must
  return 0;
}
