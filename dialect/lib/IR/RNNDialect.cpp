//===- RNNDialect.cpp - The rnn dialect -----------------------------------===//

#include "rnn/IR/RNNDialect.h"
#include "rnn/IR/RNNOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rnn;

#include "rnn/IR/RNNDialect.cpp.inc"
#include "rnn/IR/RNNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "rnn/IR/RNNAttrs.cpp.inc"

void RNNDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "rnn/IR/RNNAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rnn/IR/RNNOps.cpp.inc"
      >();
}
