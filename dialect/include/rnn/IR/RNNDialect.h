//===- RNNDialect.h - The rnn dialect ---------------------------*- C++ -*-===//

#ifndef RNN_IR_RNNDIALECT_H
#define RNN_IR_RNNDIALECT_H

#include "mlir/IR/Dialect.h"

#include "rnn/IR/RNNDialect.h.inc"

#endif // RNN_IR_RNNDIALECT_H
