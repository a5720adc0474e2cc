//===- RuntimeCalls.cpp - Calling librnnrt from generated code ------------===//

#include "rnn/Conversion/RNNToRuntime/RuntimeCalls.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

Value mlir::rnn::pointerBuffer(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto pointerType = MemRefType::get({1}, type.getElementType());
  return memref::ReinterpretCastOp::create(b, loc, pointerType, buffer,
                                           /*offset=*/0, /*sizes=*/{1},
                                           /*strides=*/{1});
}

func::FuncOp mlir::rnn::lookupOrDeclareRuntimeFunction(OpBuilder &b,
                                                       ModuleOp module,
                                                       StringRef name,
                                                       TypeRange inputs) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto type = b.getFunctionType(inputs, b.getI32Type());
  auto callee = func::FuncOp::create(b, module.getLoc(), name, type);
  callee.setPrivate();
  return callee;
}
