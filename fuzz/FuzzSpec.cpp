//===- FuzzSpec.cpp - libFuzzer target: the spec front-end ----------------===//
//
// Any bytes as a spec: parse and check them (spec::parseModel, which
// promises never to assert or crash), and print the summary of every spec
// it accepts, as `rnnc check` does.
//
//===----------------------------------------------------------------------===//

#include "rnn/Spec/ModelShapes.h"
#include "rnn/Spec/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  // Diagnostics are rendered (their locations and text are part of what is
  // tested), then dropped.
  std::string diagnostics;
  llvm::raw_string_ostream diagOs(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.yaml"),
      llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diagOs);
  std::optional<rnnc::spec::Model> model =
      rnnc::spec::parseModel(sourceMgr, 1, ctx);
  if (model) {
    std::string summary;
    llvm::raw_string_ostream os(summary);
    rnnc::spec::printModelSummary(os, *model);
  }
  return 0;
}
