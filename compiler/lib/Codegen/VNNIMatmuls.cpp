//===- VNNIMatmuls.cpp - int8 x int8 -> int32 matmuls on vpdpbusd ---------===//
//
// Dynamic int8 activations (docs/Semantics.md#dynamic-int8-activations)
// leave `linalg.matmul`s of signed i8 activations by constant signed i8
// weights into i32 zeros. AVX-512 VNNI's vpdpbusd multiplies 64 unsigned
// bytes by 64 signed bytes and adds each group of 4 products into one of 16
// i32 lanes. So:
//
//  - the weights are packed for it at compile time: blocks of c 16-column
//    panels, k in groups of 4 interleaved, [N/16c][K/4][c][16 columns x 4
//    k] bytes, one 64-byte load per panel and group, a block's loads one
//    contiguous stream;
//  - the activations become unsigned by adding 128 (flipping the sign bit
//    of the 4 bytes broadcast to every lane, one xor per row and group),
//    and the extra 128 * sum_k w_kj of each column, a compile-time
//    constant, is subtracted once from the finished sum: the result is
//    exactly sum_k q_ik w_kj;
//  - a block of m rows x c panels keeps its m*c accumulators in registers
//    through the whole loop over k; column blocks are outermost, so one
//    block of weights stays in cache while the row blocks pass over it.
//
//===----------------------------------------------------------------------===//

#include "rnn/Codegen/Passes.h"

#include "MatmulMatchers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNVNNIMATMULSPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// The instruction's shape, not a tuning: the kernel emits the 512-bit
/// vpdpbusd (16 i32 lanes, each summing a group of 4 byte products), and
/// the pipeline runs this pass only on targets with 512-bit vectors.
constexpr int64_t kLanes = 16, kGroup = 4;

/// The constant weights of `op` if it is an i8 x i8 -> i32 matmul from zero
/// that vpdpbusd can run: static shapes, K a multiple of 4, N of 16.
DenseIntElementsAttr vnniWeights(linalg::MatmulOp op) {
  if (!op.hasPureTensorSemantics() || !rnn::isPlainMatmul(op) ||
      op.getCast() != linalg::TypeFn::cast_signed)
    return {};
  auto lhs = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto rhs = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
  auto out = dyn_cast<RankedTensorType>(op.getResultTypes().front());
  if (!lhs || !rhs || !out || !lhs.hasStaticShape() || !rhs.hasStaticShape() ||
      !lhs.getElementType().isSignlessInteger(8) ||
      !rhs.getElementType().isSignlessInteger(8) ||
      !out.getElementType().isSignlessInteger(32) ||
      lhs.getDimSize(1) % kGroup != 0 || rhs.getDimSize(1) % kLanes != 0)
    return {};
  auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_Zero()))
    return {};
  DenseIntElementsAttr weights;
  if (!matchPattern(op.getInputs()[1], m_Constant(&weights)))
    return {};
  return weights;
}

/// `weights` (K x N) as [N/(16c)][K/4][c][16][4] bytes: per block of c
/// panels, each group of 4 k's of the block's columns contiguous (one
/// stream per block, not one per panel); and each column's
/// 128 * sum_k w_kj.
std::pair<Value, Value> packWeights(OpBuilder &b, Location loc,
                                    DenseIntElementsAttr weights, int64_t c) {
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t depth = type.getDimSize(0), columns = type.getDimSize(1);
  SmallVector<int8_t> values;
  values.reserve(depth * columns);
  for (APInt v : weights.getValues<APInt>())
    values.push_back(int8_t(v.getSExtValue()));
  int64_t width = kLanes * c, blocks = columns / width, groups = depth / kGroup;
  SmallVector<int8_t> packed(depth * columns);
  SmallVector<int32_t> compensation(columns, 0);
  for (int64_t k = 0; k < depth; ++k)
    for (int64_t j = 0; j < columns; ++j) {
      int8_t w = values[k * columns + j];
      int64_t block = j / width, g = k / kGroup, inBlock = j % width;
      packed[((block * groups + g) * width + inBlock) * kGroup + k % kGroup] =
          w;
      compensation[j] += 128 * int32_t(w);
    }
  auto packedType = RankedTensorType::get(
      {blocks, groups, width * kGroup}, b.getI8Type());
  auto compType = RankedTensorType::get({columns}, b.getI32Type());
  Value packedValue = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(packedType, ArrayRef<int8_t>(packed)));
  Value compValue = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(compType, ArrayRef<int32_t>(compensation)));
  return {packedValue, compValue};
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

void rewriteMatmul(IRRewriter &rewriter, linalg::MatmulOp op,
                   DenseIntElementsAttr weights, int64_t accumulators) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value lhs = op.getInputs()[0];
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t rows = lhsType.getDimSize(0), depth = lhsType.getDimSize(1);
  int64_t columns = cast<RankedTensorType>(weights.getType()).getDimSize(1);
  // As many accumulators as leave registers for the operands.
  int64_t m = rnn::largestDivisorAtMost(rows, 4);
  int64_t c = rnn::largestDivisorAtMost(columns / kLanes, accumulators / m);
  auto [packed, compensation] = packWeights(rewriter, loc, weights, c);

  Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();
  auto accType = VectorType::get({kLanes}, i32);
  auto bytesType = VectorType::get({kLanes * kGroup}, i8);
  auto groupType = VectorType::get({kGroup}, i8);
  Value zeroAcc = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(accType, rewriter.getI32IntegerAttr(0)));
  // 0x80 in each byte: u8 = q + 128 is q with its sign bit flipped.
  Value signBits = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(accType,
                             rewriter.getI32IntegerAttr(int32_t(0x80808080u))));
  Value i8Pad = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getI8IntegerAttr(0));
  Value i32Pad = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getI32IntegerAttr(0));
  Value init = tensor::EmptyOp::create(rewriter, loc, {rows, columns}, i32);
  auto intrinsic = rewriter.getStringAttr("llvm.x86.avx512.vpdpbusd.512");

  auto columnLoop = scf::ForOp::create(
      rewriter, loc, index(rewriter, loc, 0), index(rewriter, loc, columns),
      index(rewriter, loc, kLanes * c), ValueRange{init});
  rewriter.setInsertionPointToStart(columnLoop.getBody());
  Value col = columnLoop.getInductionVar();
  auto rowLoop = scf::ForOp::create(
      rewriter, loc, index(rewriter, loc, 0), index(rewriter, loc, rows),
      index(rewriter, loc, m), ValueRange{columnLoop.getRegionIterArgs()[0]});
  scf::YieldOp::create(rewriter, loc, rowLoop.getResults());
  rewriter.setInsertionPointToStart(rowLoop.getBody());
  Value row = rowLoop.getInductionVar();
  Value block = arith::DivUIOp::create(rewriter, loc, col,
                                       index(rewriter, loc, kLanes * c));
  SmallVector<Value> zeros(m * c, zeroAcc);
  auto kLoop = scf::ForOp::create(
      rewriter, loc, index(rewriter, loc, 0),
      index(rewriter, loc, depth / kGroup), index(rewriter, loc, 1), zeros);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(kLoop.getBody());
    Value g = kLoop.getInductionVar();
    Value k = arith::MulIOp::create(rewriter, loc, g,
                                    index(rewriter, loc, kGroup));
    SmallVector<Value> activations;
    for (int64_t r = 0; r < m; ++r) {
      Value i = arith::AddIOp::create(rewriter, loc, row,
                                      index(rewriter, loc, r));
      Value four = vector::TransferReadOp::create(
          rewriter, loc, groupType, lhs, ValueRange{i, k}, i8Pad,
          ArrayRef<bool>{true});
      Value word = vector::ExtractOp::create(
          rewriter, loc,
          vector::BitCastOp::create(rewriter, loc,
                                    VectorType::get({1}, i32), four),
          ArrayRef<int64_t>{0});
      Value lanes = vector::BroadcastOp::create(rewriter, loc, accType, word);
      Value unsignedLanes =
          arith::XOrIOp::create(rewriter, loc, lanes, signBits);
      activations.push_back(
          vector::BitCastOp::create(rewriter, loc, bytesType, unsignedLanes));
    }
    SmallVector<Value> next(kLoop.getRegionIterArgs());
    for (int64_t q = 0; q < c; ++q) {
      Value w = vector::TransferReadOp::create(
          rewriter, loc, bytesType, packed,
          ValueRange{block, g, index(rewriter, loc, q * kLanes * kGroup)},
          i8Pad, ArrayRef<bool>{true});
      for (int64_t r = 0; r < m; ++r)
        next[r * c + q] =
            LLVM::CallIntrinsicOp::create(
                rewriter, loc, Type(accType), intrinsic,
                ValueRange{next[r * c + q], activations[r], w})
                .getResult(0);
    }
    scf::YieldOp::create(rewriter, loc, next);
  }
  Value out = rowLoop.getRegionIterArgs()[0];
  for (int64_t q = 0; q < c; ++q) {
    Value j = arith::AddIOp::create(rewriter, loc, col,
                                    index(rewriter, loc, q * kLanes));
    Value extra = vector::TransferReadOp::create(
        rewriter, loc, accType, compensation, ValueRange{j}, i32Pad,
        ArrayRef<bool>{true});
    for (int64_t r = 0; r < m; ++r) {
      Value i = arith::AddIOp::create(rewriter, loc, row,
                                      index(rewriter, loc, r));
      Value sum = arith::SubIOp::create(rewriter, loc,
                                        kLoop.getResult(r * c + q), extra);
      out = vector::TransferWriteOp::create(rewriter, loc, sum, out,
                                            ValueRange{i, j},
                                            ArrayRef<bool>{true})
                .getResult();
    }
  }
  scf::YieldOp::create(rewriter, loc, out);
  rewriter.replaceOp(op, columnLoop.getResults());
}

struct RNNVNNIMatmulsPass
    : rnn::impl::RNNVNNIMatmulsPassBase<RNNVNNIMatmulsPass> {
  using RNNVNNIMatmulsPassBase::RNNVNNIMatmulsPassBase;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::MatmulOp, DenseIntElementsAttr>> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) {
      if (DenseIntElementsAttr weights = vnniWeights(op))
        matmuls.push_back({op, weights});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, weights] : matmuls)
      rewriteMatmul(rewriter, op, weights, accumulators);
  }
};

} // namespace
