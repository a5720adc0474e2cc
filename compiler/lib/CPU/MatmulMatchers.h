//===- MatmulMatchers.h - Matmuls the codegen passes handle ----*- C++ -*-===//

#ifndef RNN_CPU_MATMULMATCHERS_H
#define RNN_CPU_MATMULMATCHERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::rnn {

/// Whether `op` is `lhs @ rhs` as written: default indexing maps, no
/// transpose or broadcast.
bool isPlainMatmul(linalg::MatmulOp op);

/// Whether `op` is a plain matmul on tensors into a zero-filled
/// accumulator: `lhs @ rhs` and nothing added.
bool isPlainMatmulFromZero(linalg::MatmulOp op);

/// Builds `lhs @ rhs` as isPlainMatmulFromZero recognizes it: a plain
/// matmul into `dest` filled with zeros (`dest` gives the result's type and
/// the tensor it is computed in).
linalg::MatmulOp createMatmulFromZero(OpBuilder &b, Location loc, Value lhs,
                                      Value rhs, Value dest);

/// `source` mapped element-wise through `body` (one value in, one out) into
/// a tensor of its shape with elements of type `element`: a matmul operand
/// widened, rounded or narrowed once, before the loops that read it.
Value mapElementwise(OpBuilder &b, Location loc, Value source, Type element,
                     function_ref<Value(OpBuilder &, Location, Value)> body);

/// The largest divisor of `size` that is at most `limit` (at least 1): the
/// register block along a matmul dim that tiles it exactly.
int64_t largestDivisorAtMost(int64_t size, int64_t limit);

/// The widest column block of `op`'s `columns` that stays within a column
/// task's share: in a function built for a column split (rnn.column_split),
/// where shares start at multiples of the split, their gcd; else `columns`.
int64_t columnsWithinTasks(linalg::MatmulOp op, int64_t columns);

/// True if `offset` is always a multiple of `width`: a constant multiple,
/// the induction variable of a loop whose start and step are multiples, a
/// product with a multiple, or a sum, difference or choice of such (a loop
/// visited backwards).
bool isMultipleOf(OpFoldResult offset, int64_t width);

} // namespace mlir::rnn

#endif // RNN_CPU_MATMULMATCHERS_H
