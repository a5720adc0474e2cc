//===- rnn-opt.cpp - The rnn dialect's opt tool ---------------------------===//
//
// mlir-opt with the rnn dialect, its passes and conversions, and the upstream
// dialects and passes rnnc's pipelines use.
//
//===----------------------------------------------------------------------===//

#include "rnn/InitAll.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  rnnc::registerAllDialects(registry);
  rnnc::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "rnn optimizer driver\n", registry));
}
