//===- OverlapInputProjection.cpp - Projection computed step by step ------===//
//
// At batch 1 a step's recurrent matmul is a matrix-vector product: it is
// bound by streaming the recurrent weights, while the hoisted projection of
// the input runs at the FMA peak before the loop. One after the other, the
// two leave each other's unit idle. This pass moves the projection into the
// loop, a piece per step, paired with the recurrent matmul in one
// `rnn.shared_k_matmuls`, which `--rnn-vectorize-matmuls` runs as one loop
// over k.
//
//===----------------------------------------------------------------------===//

#include "rnn/Codegen/Passes.h"

#include "MatmulMatchers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "rnn/IR/RNNOps.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNOVERLAPINPUTPROJECTIONPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// A hoisted projection read one row per step by a loop of steps.
struct Candidate {
  linalg::MatmulOp projection;    ///< [T, K] x [K, N], from zeros
  tensor::ExpandShapeOp sequence; ///< the projection as a sequence
  tensor::ExtractSliceOp slice;   ///< row `iv` of it, in the loop
  linalg::MatmulOp recurrent;     ///< [1, K] x [K, N], in the loop
  scf::ForOp loop;                ///< 0 to T step 1
  int64_t rows;                   ///< projected together
};

/// Whether `slice` takes exactly the row `iv` of a sequence of rows shaped
/// [1, ..., T, ..., 1, N].
bool takesRow(tensor::ExtractSliceOp slice, Value iv, int64_t steps,
              int64_t columns) {
  ArrayRef<int64_t> shape = slice.getSourceType().getShape();
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  if (!slice.hasUnitStride() || slice.getType().getNumElements() != columns ||
      shape.back() != columns)
    return false;
  int64_t timeDims = 0;
  for (auto [dim, size] : llvm::enumerate(shape.drop_back())) {
    if (size == 1) {
      if (getConstantIntValue(offsets[dim]) != 0)
        return false;
      continue;
    }
    if (size != steps || dyn_cast<Value>(offsets[dim]) != iv)
      return false;
    ++timeDims;
  }
  return timeDims == 1;
}

std::optional<Candidate> match(linalg::MatmulOp projection, int64_t rows,
                               int64_t minRows, int64_t pieceLanes,
                               int64_t maxKernelBytes) {
  auto lhs = dyn_cast<RankedTensorType>(projection.getInputs()[0].getType());
  auto kernel = dyn_cast<RankedTensorType>(projection.getInputs()[1].getType());
  if (!lhs || !kernel || !lhs.hasStaticShape() || !kernel.hasStaticShape() ||
      !rnn::isPlainMatmulFromZero(projection))
    return std::nullopt;
  int64_t steps = lhs.getDimSize(0), depth = lhs.getDimSize(1);
  int64_t columns = kernel.getDimSize(1);
  if (kernel.getNumElements() * kernel.getElementTypeBitWidth() / 8 >
      maxKernelBytes)
    return std::nullopt;
  // The kernel is read by this projection only: pieces read it in slices
  // of their own width, which other readers (the projections of the phases
  // of zero-padded rows) would then have to share.
  if (!projection.getInputs()[1].hasOneUse())
    return std::nullopt;
  // As many rows as fit, each piece at least a vector per row, and the
  // first group, projected before the loop, at most a quarter of it.
  while (rows > 1 && (columns % (rows * pieceLanes) != 0 ||
                      steps % rows != 0 || steps < 4 * rows))
    rows /= 2;
  if (rows < std::max<int64_t>(minRows, 2))
    return std::nullopt;
  Value result = projection.getResult(0);
  if (!result.hasOneUse())
    return std::nullopt;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
  if (!expand || !expand.getResult().hasOneUse())
    return std::nullopt;
  auto slice =
      dyn_cast<tensor::ExtractSliceOp>(*expand.getResult().getUsers().begin());
  if (!slice)
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(slice->getParentOp());
  if (!loop || getConstantIntValue(loop.getLowerBound()) != 0 ||
      getConstantIntValue(loop.getStep()) != 1 ||
      getConstantIntValue(loop.getUpperBound()) != steps ||
      !takesRow(slice, loop.getInductionVar(), steps, columns))
    return std::nullopt;
  // The recurrent matmul that will share its loop over k with the piece of
  // projection: one row, the same depth and columns.
  for (auto recurrent : loop.getBody()->getOps<linalg::MatmulOp>()) {
    auto type = dyn_cast<RankedTensorType>(recurrent.getResultTypes()[0]);
    auto weights =
        dyn_cast<RankedTensorType>(recurrent.getInputs()[1].getType());
    if (type && weights && type.hasStaticShape() && weights.hasStaticShape() &&
        type.getDimSize(0) == 1 && type.getDimSize(1) == columns &&
        weights.getDimSize(0) == depth && rnn::isPlainMatmul(recurrent))
      return Candidate{projection, expand, slice, recurrent, loop, rows};
  }
  return std::nullopt;
}

/// Builds the pieces of projection: `rows` rows of the input times a
/// column slice of the kernel, written into a ring of projected rows.
struct PieceBuilder {
  OpBuilder &b;
  Location loc;
  Value input;  ///< [T, K], the projection's left operand
  Value kernel; ///< [K, N]
  int64_t rows;

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// The operands of input rows [first, first + rows) times kernel columns
  /// [column, column + width) written at [ringRow, column] of `ring`: the
  /// rows, the kernel's columns, and the zero-filled block of the ring.
  std::array<Value, 3> piece(Value ring, OpFoldResult first,
                             OpFoldResult ringRow, OpFoldResult column,
                             int64_t width) {
    auto inputType = cast<RankedTensorType>(input.getType());
    auto kernelType = cast<RankedTensorType>(kernel.getType());
    Type element = inputType.getElementType();
    int64_t depth = inputType.getDimSize(1);
    SmallVector<OpFoldResult> unit(2, b.getIndexAttr(1));
    Value block = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({rows, depth}, element), input,
        ArrayRef<OpFoldResult>{first, b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(depth)},
        unit);
    Value weights = kernel;
    if (width != kernelType.getDimSize(1))
      weights = tensor::ExtractSliceOp::create(
          b, loc,
          RankedTensorType::get({depth, width}, kernelType.getElementType()),
          kernel,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0), column},
          ArrayRef<OpFoldResult>{b.getIndexAttr(depth), b.getIndexAttr(width)},
          unit);
    auto tileType = RankedTensorType::get({rows, width}, element);
    Value target = tensor::ExtractSliceOp::create(
        b, loc, tileType, ring, ArrayRef<OpFoldResult>{ringRow, column},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(width)},
        unit);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    Value init = linalg::FillOp::create(b, loc, zero, target).getResult(0);
    return {block, weights, init};
  }

  /// `ring` with the piece `product` written at [ringRow, column].
  Value insert(Value ring, Value product, OpFoldResult ringRow,
               OpFoldResult column) {
    int64_t width = cast<RankedTensorType>(product.getType()).getDimSize(1);
    SmallVector<OpFoldResult> unit(2, b.getIndexAttr(1));
    return tensor::InsertSliceOp::create(
        b, loc, product, ring, ArrayRef<OpFoldResult>{ringRow, column},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(width)},
        unit);
  }

  /// Input rows [first, first + rows) times kernel columns [column, column
  /// + width), as a matmul of its own, written into `ring`.
  Value project(Value ring, OpFoldResult first, OpFoldResult ringRow,
                OpFoldResult column, int64_t width) {
    auto [block, weights, init] = piece(ring, first, ringRow, column, width);
    Value product =
        linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                 ValueRange{block, weights}, ValueRange{init})
            .getResult(0);
    return insert(ring, product, ringRow, column);
  }

  /// Row `step` of the projection: row step % (2 rows) of the ring.
  Value row(Value ring, Value step, RankedTensorType type) {
    int64_t columns = cast<RankedTensorType>(ring.getType()).getDimSize(1);
    Value ringRow = arith::RemUIOp::create(b, loc, step, index(2 * rows));
    SmallVector<OpFoldResult> unit(2, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(
        b, loc, type, ring, ArrayRef<OpFoldResult>{ringRow, b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(columns)},
        unit);
  }
};

/// Clones the body of `candidate`'s loop at `b`'s position, all but the
/// projection's row (which `mapping` must map), and returns what it yields.
/// `pairRecurrent`, if given, replaces the clone of the recurrent matmul:
/// it must map the matmul's result in `mapping`.
SmallVector<Value>
cloneStep(OpBuilder &b, Candidate candidate, IRMapping &mapping,
          function_ref<void(linalg::MatmulOp)> pairRecurrent = nullptr) {
  Block *body = candidate.loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (&op == candidate.slice.getOperation())
      continue;
    if (pairRecurrent && &op == candidate.recurrent.getOperation()) {
      pairRecurrent(candidate.recurrent);
      continue;
    }
    b.clone(op, mapping);
  }
  return llvm::map_to_vector(
      body->getTerminator()->getOperands(),
      [&](Value v) { return mapping.lookupOrDefault(v); });
}

struct RNNOverlapInputProjectionPass
    : rnn::impl::RNNOverlapInputProjectionPassBase<
          RNNOverlapInputProjectionPass> {
  using RNNOverlapInputProjectionPassBase::RNNOverlapInputProjectionPassBase;

  void runOnOperation() override {
    if (rows < 2)
      return;
    SmallVector<Candidate> candidates;
    getOperation()->walk([&](linalg::MatmulOp op) {
      if (std::optional<Candidate> found =
              match(op, rows, minRows, pieceLanes, maxKernelBytes))
        candidates.push_back(*found);
    });
    for (Candidate &candidate : candidates)
      rewrite(candidate);
  }

  /// Projected rows live in a ring of 2 x `rows` rows: group g (steps
  /// [g rows, (g + 1) rows)) in half g % 2. The first group is projected
  /// before the loop; step t of the first T - rows steps reads row t of the
  /// ring and computes piece t % rows of group t / rows + 1 into the other
  /// half. The last group's steps, with nothing left to project, run in a
  /// loop of their own.
  void rewrite(Candidate &candidate) {
    scf::ForOp loop = candidate.loop;
    int64_t rows = candidate.rows;
    Location loc = candidate.projection.getLoc();
    OpBuilder b(loop);
    auto product =
        cast<RankedTensorType>(candidate.projection.getResultTypes()[0]);
    int64_t steps = product.getDimSize(0), columns = product.getDimSize(1);
    int64_t width = columns / rows;
    PieceBuilder pieces{b, loc, candidate.projection.getInputs()[0],
                        candidate.projection.getInputs()[1], rows};
    Value ring = tensor::EmptyOp::create(b, loc, {2 * rows, columns},
                                         product.getElementType());
    ring = pieces.project(ring, b.getIndexAttr(0), b.getIndexAttr(0),
                          b.getIndexAttr(0), columns);
    auto rowType = candidate.slice.getType();

    // Steps [0, T - rows), each with a piece of the next group.
    SmallVector<Value> inits(loop.getInitArgs());
    inits.push_back(ring);
    auto overlapped =
        scf::ForOp::create(b, loc, loop.getLowerBound(),
                           pieces.index(steps - rows), loop.getStep(), inits);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(overlapped.getBody());
      Value step = overlapped.getInductionVar();
      Value ringArg = overlapped.getRegionIterArgs().back();
      // This step's row is copied out before the piece is written into the
      // ring, so that the ring is updated in place.
      Value row = pieces.row(ringArg, step, rowType);
      Value copy = linalg::CopyOp::create(
                       b, loc, row,
                       tensor::EmptyOp::create(b, loc, rowType.getShape(),
                                               rowType.getElementType())
                           .getResult())
                       .getResult(0);
      Value group = arith::AddIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, step, pieces.index(rows)),
          pieces.index(1));
      Value first = arith::MulIOp::create(b, loc, group, pieces.index(rows));
      Value half = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, group, pieces.index(2)),
          pieces.index(rows));
      Value column = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, step, pieces.index(rows)),
          pieces.index(width));
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), step);
      mapping.map(loop.getRegionIterArgs(),
                  overlapped.getRegionIterArgs().drop_back());
      mapping.map(candidate.slice.getResult(), copy);
      // The piece and the recurrent matmul, of one depth, in one loop
      // over k.
      SmallVector<Value> yielded =
          cloneStep(b, candidate, mapping, [&](linalg::MatmulOp recurrent) {
            auto [block, weights, init] =
                pieces.piece(ringArg, first, half, column, width);
            auto pair = rnn::SharedKMatmulsOp::create(
                b, recurrent.getLoc(), block, weights, init,
                mapping.lookupOrDefault(recurrent.getInputs()[0]),
                mapping.lookupOrDefault(recurrent.getInputs()[1]),
                mapping.lookupOrDefault(recurrent.getOutputs()[0]));
            ringArg = pieces.insert(ringArg, pair.getFirst(), half, column);
            mapping.map(recurrent.getResult(0), pair.getSecond());
          });
      yielded.push_back(ringArg);
      scf::YieldOp::create(b, loc, yielded);
    }

    // The last group's steps read the ring only.
    Value projected = overlapped.getResults().back();
    auto last = scf::ForOp::create(b, loc, pieces.index(steps - rows),
                                   loop.getUpperBound(), loop.getStep(),
                                   overlapped.getResults().drop_back());
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(last.getBody());
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), last.getInductionVar());
      mapping.map(loop.getRegionIterArgs(), last.getRegionIterArgs());
      mapping.map(candidate.slice.getResult(),
                  pieces.row(projected, last.getInductionVar(), rowType));
      scf::YieldOp::create(b, loc, cloneStep(b, candidate, mapping));
    }

    loop.replaceAllUsesWith(last.getResults());
    loop.erase();
    candidate.sequence.erase();
    Operation *fill = candidate.projection.getOutputs()[0].getDefiningOp();
    candidate.projection.erase();
    if (fill->use_empty())
      fill->erase();
  }
};

} // namespace
