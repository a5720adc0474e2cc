//===- WidenBF16Rows.h - bf16 x bf16 matmuls as the f32 emulation -*- C++ -*-===//

#ifndef RNN_CPU_WIDENBF16ROWS_H
#define RNN_CPU_WIDENBF16ROWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::rnn {

/// Whether `op` multiplies bf16 rows into f32: bf16 compute's product, as a
/// bf16 dot-product instruction computes it (with bf16 weights).
bool hasBF16Rows(linalg::MatmulOp op);

/// Replaces `op` (hasBF16Rows) by the same product of f32 rows holding the
/// bf16 values, the form that targets without a bf16 dot compute (the
/// weights keep their type; bf16 ones are widened where they are read).
/// Rows that are a narrowing of f32 rows (truncf) become a round of those
/// rows (truncf, extf) in the narrowing's place, which is erased once
/// unused; other bf16 rows are widened (extf). Returns the new matmul.
linalg::MatmulOp widenBF16Rows(RewriterBase &rewriter, linalg::MatmulOp op);

} // namespace mlir::rnn

#endif // RNN_CPU_WIDENBF16ROWS_H
