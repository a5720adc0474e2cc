//===- EmitCPatterns.h - Buffers as C pointers, in EmitC --------*- C++ -*-===//
//
// The pieces of --rnn-convert-buffers-to-emitc. A buffer (a memref with a
// static shape and static strides) becomes `!emitc.ptr<T>`, a pointer to its
// first element; the memref type keeps the strides that index it.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_CONVERSION_BUFFERSTOEMITC_EMITCPATTERNS_H
#define RNN_LIB_CONVERSION_BUFFERSTOEMITC_EMITCPATTERNS_H

#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::rnn {

/// Converts every memref with a static shape, static strides (any offset)
/// and an integer or float element type to `!emitc.ptr<element>`; other
/// memrefs fail to convert.
void populateBufferToPointerTypeConversion(TypeConverter &converter);

/// memref.load/store/view/subview/reinterpret_cast/expand_shape/
/// collapse_shape/cast/copy/get_global and constant memref.global on
/// pointers.
void populateMemRefToEmitCPointerPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns);

/// func.func/call/return to emitc.func/call_opaque/return. Calls to the
/// functions in `externalCallees` (declarations) become `emitc.call_opaque`
/// and the declarations are erased; C gets them from a header.
void populateFuncToEmitCPointerPatterns(
    const TypeConverter &converter, const llvm::StringSet<> &externalCallees,
    RewritePatternSet &patterns);

/// `value` (a pointer or an array) as the pointer `type`, in a form C
/// compilers do not warn about under -Wcast-qual -Wcast-align: through
/// `uintptr_t` when const is dropped (the code never writes through it),
/// through `void *` when the alignment grows (a workspace byte offset the
/// offset assignment aligned).
Value castPointer(OpBuilder &b, Location loc, Type type, Value value,
                  bool dropsConst);

/// Math ops on f32/f64 to calls of libm's C99 functions (`tanhf`, `tanh`),
/// but f32 exp and tanh to librnnrt's inline `rnnrt_expf`, `rnnrt_tanhf`
/// and f32 fma (unless marked rnn.exact_fma) to its `RNNRT_MULADDF`, all in
/// rnnrt/rnnrt_math.h.
void populateMathToLibmEmitCPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns);

} // namespace mlir::rnn

#endif // RNN_LIB_CONVERSION_BUFFERSTOEMITC_EMITCPATTERNS_H
