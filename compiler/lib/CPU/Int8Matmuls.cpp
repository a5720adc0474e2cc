//===- Int8Matmuls.cpp - int8 x int8 -> int32 matmuls on x86 dot products -===//
//
// Dynamic int8 activations (docs/Semantics.md#dynamic-int8-activations)
// leave `linalg.matmul`s of signed i8 activations by constant signed i8
// weights into i32 zeros. Two x86 instructions add groups of exact integer
// products into i32 lanes:
//
//  - AVX-512 VNNI's vpdpbusd: 64 unsigned bytes by 64 signed bytes, each
//    group of 4 products added into one of 16 lanes of the accumulator.
//    The activations become unsigned by adding 128 (flipping the sign bit
//    of the 4 bytes broadcast to every lane, one xor per row and group),
//    and the extra 128 * sum_k w_kj of each column, a compile-time
//    constant, is subtracted once from the finished sum.
//  - AVX2's vpmaddwd: 16 signed i16 by 16 signed i16, each pair of
//    products summed into one of 8 lanes (then added to the accumulator).
//    Both operands are the int8 values sign-extended (the weights by the
//    load, vpmovsxbw), so there is nothing to compensate; |q w| <= 127^2,
//    so a pair's sum cannot overflow.
//
// Either way the result is exactly sum_k q_ik w_kj, and:
//  - the weights are packed at compile time: blocks of c panels (one
//    vector of lanes each), k in groups interleaved, [N/(lanes c)][K/group]
//    [c][lanes columns x group k] bytes, one load per panel and group, a
//    block's loads one contiguous stream;
//  - a block of m rows x c panels keeps its m*c accumulators in registers
//    through the whole loop over k; column blocks are outermost, so one
//    block of weights stays in cache while the row blocks pass over it;
//  - sums that only a dequantizing generic reads (float(sum) times the
//    row's scale, as convert-rnn-to-linalg's `dequantize-generic` leaves an
//    rnn.project's) are converted by the kernel as it stores them: the f32
//    products are written once, with no i32 copy to read back.
//
//===----------------------------------------------------------------------===//

#include "rnn/CPU/Passes.h"

#include "MatmulMatchers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNINT8MATMULSPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// What a kernel's instruction takes (facts of the instruction, not
/// tunings): i32 lanes, the products added into each lane (a group of k),
/// and whether the activations go in as unsigned bytes (q + 128,
/// compensated) or sign-extended to i16.
struct DotInstruction {
  int64_t lanes, group;
  bool unsignedBytes;
  StringLiteral intrinsic;
};

/// The 512-bit vpdpbusd (the pipeline adds it for 512-bit vectors only).
constexpr DotInstruction kVpdpbusd{16, 4, true, "llvm.x86.avx512.vpdpbusd.512"};
/// AVX2's 256-bit vpmaddwd.
constexpr DotInstruction kVpmaddwd{8, 2, false, "llvm.x86.avx2.pmadd.wd"};

/// The constant weights of `op` if it is an i8 x i8 -> i32 matmul from zero
/// that `dot` can run: static shapes, K a multiple of the group, N of the
/// lanes.
DenseIntElementsAttr dotWeights(linalg::MatmulOp op,
                                const DotInstruction &dot) {
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
      lhs.getDimSize(1) % dot.group != 0 ||
      rhs.getDimSize(1) % dot.lanes != 0)
    return {};
  auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_Zero()))
    return {};
  DenseIntElementsAttr weights;
  if (!matchPattern(op.getInputs()[1], m_Constant(&weights)))
    return {};
  return weights;
}

/// `weights` (K x N) as [N/(lanes c)][K/group][c][lanes][group] bytes: per
/// block of c panels, each group of k's of the block's columns contiguous
/// (one stream per block, not one per panel); and, for unsigned
/// activations, each column's 128 * sum_k w_kj (else null).
std::pair<Value, Value> packWeights(OpBuilder &b, Location loc,
                                    DenseIntElementsAttr weights, int64_t c,
                                    const DotInstruction &dot) {
  const int64_t lanes = dot.lanes, groupSize = dot.group;
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t depth = type.getDimSize(0), columns = type.getDimSize(1);
  SmallVector<int8_t> values;
  values.reserve(depth * columns);
  for (APInt v : weights.getValues<APInt>())
    values.push_back(int8_t(v.getSExtValue()));
  int64_t width = lanes * c, blocks = columns / width, groups = depth / groupSize;
  SmallVector<int8_t> packed(depth * columns);
  SmallVector<int32_t> compensation(columns, 0);
  for (int64_t k = 0; k < depth; ++k)
    for (int64_t j = 0; j < columns; ++j) {
      int8_t w = values[k * columns + j];
      int64_t block = j / width, g = k / groupSize, inBlock = j % width;
      packed[((block * groups + g) * width + inBlock) * groupSize + k % groupSize] =
          w;
      compensation[j] += 128 * int32_t(w);
    }
  auto packedType = RankedTensorType::get(
      {blocks, groups, width * groupSize}, b.getI8Type());
  auto compType = RankedTensorType::get({columns}, b.getI32Type());
  Value packedValue = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(packedType, ArrayRef<int8_t>(packed)));
  if (!dot.unsignedBytes)
    return {packedValue, Value()};
  Value compValue = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(compType, ArrayRef<int32_t>(compensation)));
  return {packedValue, compValue};
}

/// The generic that converts the sums of `op` and nothing else, as
/// convert-rnn-to-linalg's `dequantize-generic` leaves it: float(sum_ij) *
/// scale_i, the scales an f32 vector indexed by the row; else null. Its
/// scales are then the epilogue's.
linalg::GenericOp dequantizingEpilogue(linalg::MatmulOp op) {
  Value sums = op.getResult(0);
  if (!sums.hasOneUse())
    return {};
  auto generic = dyn_cast<linalg::GenericOp>(*sums.user_begin());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 || generic.getInputs()[0] != sums ||
      generic.getNumParallelLoops() != 2 || generic.getNumLoops() != 2)
    return {};
  // The kernel replaces the matmul, so the scales must be there before it.
  Value scales = generic.getInputs()[1];
  if (Operation *def = scales.getDefiningOp())
    if (def->getBlock() != op->getBlock() || !def->isBeforeInBlock(op))
      return {};
  MLIRContext *ctx = op.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0] != identity || maps[2] != identity ||
      maps[1] != AffineMap::get(2, 0, getAffineDimExpr(0, ctx)) ||
      !getElementTypeOrSelf(generic.getResult(0).getType()).isF32() ||
      !getElementTypeOrSelf(generic.getInputs()[1].getType()).isF32())
    return {};
  // The body: %f = sitofp %sum; %p = mulf %f, %scale; yield %p.
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto mul = yield.getOperand(0).getDefiningOp<arith::MulFOp>();
  auto convert = mul ? mul.getLhs().getDefiningOp<arith::SIToFPOp>() : nullptr;
  if (!convert || body.getOperations().size() != 3 ||
      convert.getIn() != body.getArgument(0) ||
      mul.getRhs() != body.getArgument(1))
    return {};
  return generic;
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// `op` as the kernel; with an `epilogue` (dequantizingEpilogue), the
/// kernel converts each finished sum with its row's scale and replaces both.
void rewriteMatmul(IRRewriter &rewriter, linalg::MatmulOp op,
                   DenseIntElementsAttr weights, const DotInstruction &dot,
                   int64_t accumulators, linalg::GenericOp epilogue) {
  const int64_t lanes = dot.lanes, groupSize = dot.group;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value lhs = op.getInputs()[0];
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t rows = lhsType.getDimSize(0), depth = lhsType.getDimSize(1);
  int64_t columns = cast<RankedTensorType>(weights.getType()).getDimSize(1);
  // m rows x c panels, as many accumulators as leave registers for the
  // operands. In a function split into column tasks, blocks divide the
  // tasks' shares, which start at multiples of rnn.column_split.
  int64_t m = rnn::largestDivisorAtMost(rows, 4);
  int64_t blockColumns = rnn::columnsWithinTasks(op, columns);
  if (blockColumns % lanes != 0)
    blockColumns = columns;
  int64_t c =
      rnn::largestDivisorAtMost(blockColumns / lanes, accumulators / m);
  auto [packed, compensation] = packWeights(rewriter, loc, weights, c, dot);
  // vpmaddwd's activations: i16, sign-extended once before the loops, so
  // each k pair of a row is one 32-bit word to broadcast.
  Value activationRows =
      dot.unsignedBytes
          ? lhs
          : rnn::mapElementwise(
                rewriter, loc, lhs, rewriter.getI16Type(),
                [](OpBuilder &nb, Location nloc, Value x) -> Value {
                  return arith::ExtSIOp::create(nb, nloc, nb.getI16Type(), x);
                });

  Type i8 = rewriter.getI8Type(), i16 = rewriter.getI16Type(),
       i32 = rewriter.getI32Type();
  auto accType = VectorType::get({lanes}, i32);
  auto bytesType = VectorType::get({lanes * groupSize}, i8);
  // The instruction's operands: bytes, or the bytes sign-extended to i16.
  auto operandType = dot.unsignedBytes ? bytesType
                                       : VectorType::get({lanes * groupSize}, i16);
  auto groupType = VectorType::get(
      {groupSize}, getElementTypeOrSelf(activationRows.getType()));
  Value zeroAcc = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(accType, rewriter.getI32IntegerAttr(0)));
  // 0x80 in each byte: u8 = q + 128 is q with its sign bit flipped.
  Value signBits =
      dot.unsignedBytes
          ? arith::ConstantOp::create(
                rewriter, loc,
                DenseElementsAttr::get(
                    accType, rewriter.getI32IntegerAttr(int32_t(0x80808080u))))
                .getResult()
          : Value();
  Value i8Pad = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getI8IntegerAttr(0));
  Value i16Pad = dot.unsignedBytes
                     ? Value()
                     : arith::ConstantOp::create(
                           rewriter, loc, rewriter.getI16IntegerAttr(0))
                           .getResult();
  Value i32Pad = dot.unsignedBytes
                     ? arith::ConstantOp::create(rewriter, loc,
                                                 rewriter.getI32IntegerAttr(0))
                           .getResult()
                     : Value();
  Type f32 = rewriter.getF32Type();
  Value init = tensor::EmptyOp::create(rewriter, loc, {rows, columns},
                                       epilogue ? f32 : i32);
  auto intrinsic = rewriter.getStringAttr(dot.intrinsic);

  auto columnLoop = scf::ForOp::create(
      rewriter, loc, index(rewriter, loc, 0), index(rewriter, loc, columns),
      index(rewriter, loc, lanes * c), ValueRange{init});
  rewriter.setInsertionPointToStart(columnLoop.getBody());
  Value col = columnLoop.getInductionVar();
  auto rowLoop = scf::ForOp::create(
      rewriter, loc, index(rewriter, loc, 0), index(rewriter, loc, rows),
      index(rewriter, loc, m), ValueRange{columnLoop.getRegionIterArgs()[0]});
  scf::YieldOp::create(rewriter, loc, rowLoop.getResults());
  rewriter.setInsertionPointToStart(rowLoop.getBody());
  Value row = rowLoop.getInductionVar();
  Value block = arith::DivUIOp::create(rewriter, loc, col,
                                       index(rewriter, loc, lanes * c));
  SmallVector<Value> zeros(m * c, zeroAcc);
  auto kLoop = scf::ForOp::create(
      rewriter, loc, index(rewriter, loc, 0),
      index(rewriter, loc, depth / groupSize), index(rewriter, loc, 1), zeros);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(kLoop.getBody());
    Value g = kLoop.getInductionVar();
    Value k = arith::MulIOp::create(rewriter, loc, g,
                                    index(rewriter, loc, groupSize));
    SmallVector<Value> activations;
    for (int64_t r = 0; r < m; ++r) {
      Value i = arith::AddIOp::create(rewriter, loc, row,
                                      index(rewriter, loc, r));
      // The row's group of bytes (of i16s for vpmaddwd) is one i32,
      // broadcast to every lane.
      Value bytes = vector::TransferReadOp::create(
          rewriter, loc, groupType, activationRows, ValueRange{i, k},
          dot.unsignedBytes ? i8Pad : i16Pad, ArrayRef<bool>{true});
      Value word = vector::ExtractOp::create(
          rewriter, loc,
          vector::BitCastOp::create(rewriter, loc,
                                    VectorType::get({1}, i32), bytes),
          ArrayRef<int64_t>{0});
      Value lanes = vector::BroadcastOp::create(rewriter, loc, accType, word);
      if (dot.unsignedBytes)
        lanes = arith::XOrIOp::create(rewriter, loc, lanes, signBits);
      activations.push_back(
          vector::BitCastOp::create(rewriter, loc, operandType, lanes));
    }
    SmallVector<Value> next(kLoop.getRegionIterArgs());
    for (int64_t q = 0; q < c; ++q) {
      Value w = vector::TransferReadOp::create(
          rewriter, loc, bytesType, packed,
          ValueRange{block, g, index(rewriter, loc, q * lanes * groupSize)},
          i8Pad, ArrayRef<bool>{true});
      if (!dot.unsignedBytes)
        w = arith::ExtSIOp::create(rewriter, loc, operandType, w);
      for (int64_t r = 0; r < m; ++r) {
        Value &acc = next[r * c + q];
        if (dot.unsignedBytes) {
          acc = LLVM::CallIntrinsicOp::create(
                    rewriter, loc, Type(accType), intrinsic,
                    ValueRange{acc, activations[r], w})
                    .getResult(0);
          continue;
        }
        Value pairs = LLVM::CallIntrinsicOp::create(
                          rewriter, loc, Type(accType), intrinsic,
                          ValueRange{activations[r], w})
                          .getResult(0);
        acc = arith::AddIOp::create(rewriter, loc, acc, pairs);
      }
    }
    scf::YieldOp::create(rewriter, loc, next);
  }
  // The block's sums go into its own m x (lanes c) slice of the result, so
  // that a write says which block of columns it is (rnn-split-gate-columns
  // gives each task its blocks).
  Value whole = rowLoop.getRegionIterArgs()[0];
  SmallVector<OpFoldResult> blockOffsets{row, col};
  SmallVector<OpFoldResult> blockSizes{rewriter.getIndexAttr(m),
                                       rewriter.getIndexAttr(lanes * c)};
  SmallVector<OpFoldResult> unitStrides(2, rewriter.getIndexAttr(1));
  Value out = tensor::ExtractSliceOp::create(rewriter, loc, whole,
                                             blockOffsets, blockSizes,
                                             unitStrides);
  auto floatsType = VectorType::get({lanes}, f32);
  // The epilogue's row scales, each broadcast once per row block.
  SmallVector<Value> rowScales;
  if (epilogue)
    for (int64_t r = 0; r < m; ++r) {
      Value i =
          arith::AddIOp::create(rewriter, loc, row, index(rewriter, loc, r));
      Value scale = tensor::ExtractOp::create(
          rewriter, loc, epilogue.getInputs()[1], ValueRange{i});
      rowScales.push_back(
          vector::BroadcastOp::create(rewriter, loc, floatsType, scale));
    }
  for (int64_t q = 0; q < c; ++q) {
    Value j = arith::AddIOp::create(rewriter, loc, col,
                                    index(rewriter, loc, q * lanes));
    Value inBlock = index(rewriter, loc, q * lanes);
    Value extra =
        compensation
            ? vector::TransferReadOp::create(rewriter, loc, accType,
                                             compensation, ValueRange{j},
                                             i32Pad, ArrayRef<bool>{true})
                  .getResult()
            : Value();
    for (int64_t r = 0; r < m; ++r) {
      Value sum = kLoop.getResult(r * c + q);
      if (extra)
        sum = arith::SubIOp::create(rewriter, loc, sum, extra);
      // float(sum) * the row's scale, as the generic computes it.
      if (epilogue)
        sum = arith::MulFOp::create(
            rewriter, loc,
            arith::SIToFPOp::create(rewriter, loc, floatsType, sum),
            rowScales[r]);
      out = vector::TransferWriteOp::create(rewriter, loc, sum, out,
                                            ValueRange{index(rewriter, loc, r),
                                                       inBlock},
                                            ArrayRef<bool>{true})
                .getResult();
    }
  }
  scf::YieldOp::create(
      rewriter, loc,
      Value(tensor::InsertSliceOp::create(rewriter, loc, out, whole,
                                          blockOffsets, blockSizes,
                                          unitStrides)));
  if (!epilogue) {
    rewriter.replaceOp(op, columnLoop.getResults());
    return;
  }
  rewriter.replaceOp(epilogue, columnLoop.getResults());
  rewriter.eraseOp(op);
}

struct RNNInt8MatmulsPass
    : rnn::impl::RNNInt8MatmulsPassBase<RNNInt8MatmulsPass> {
  using Base::Base;

  void runOnOperation() override {
    const DotInstruction *dot = instruction == "vpdpbusd"   ? &kVpdpbusd
                                : instruction == "vpmaddwd" ? &kVpmaddwd
                                                            : nullptr;
    if (!dot) {
      getOperation()->emitError("rnn-int8-matmuls: unknown instruction '")
          << instruction << "' (vpdpbusd or vpmaddwd)";
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::MatmulOp, DenseIntElementsAttr>> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) {
      if (DenseIntElementsAttr weights = dotWeights(op, *dot))
        matmuls.push_back({op, weights});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, weights] : matmuls)
      rewriteMatmul(rewriter, op, weights, *dot, accumulators,
                    dequantizingEpilogue(op));
  }
};

} // namespace
