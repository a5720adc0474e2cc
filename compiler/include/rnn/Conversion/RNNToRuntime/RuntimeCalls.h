//===- RuntimeCalls.h - Calling librnnrt from generated code ----*- C++ -*-===//

#ifndef RNN_CONVERSION_RNNTORUNTIME_RUNTIMECALLS_H
#define RNN_CONVERSION_RNNTORUNTIME_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::rnn {

/// `buffer` (static shape, identity layout) as the argument of a runtime
/// call: a `memref<1xT>` at the same address. librnnrt takes pointers to
/// flat row-major arrays; a one-element static type lowers to exactly such
/// a pointer under the bare-pointer calling convention (and to a decaying
/// C array in EmitC), and lets one declaration serve every shape.
Value pointerBuffer(OpBuilder &b, Location loc, Value buffer);

/// The runtime function `name` returning an i32 status, declared (private)
/// at the start of `module` unless it already is.
func::FuncOp lookupOrDeclareRuntimeFunction(OpBuilder &b, ModuleOp module,
                                            StringRef name, TypeRange inputs);

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNTORUNTIME_RUNTIMECALLS_H
