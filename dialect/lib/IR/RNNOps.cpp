//===- RNNOps.cpp - Verifiers of layers and sequence ops ------------------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/IR/RNNShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rnn;

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The batch dims of a sequence tensor laid out as the layer says.
static ArrayRef<int64_t> batchDims(RankedTensorType type, int64_t numBatchDims,
                                   bool timeMajor) {
  return type.getShape().slice(timeMajor ? 1 : 0, numBatchDims);
}

/// Attributes and operands common to rnn.scan and rnn.bidirectional.
static LogicalResult verifyLayer(Operation *op, RankedTensorType inputType,
                                 int64_t numBatchDims, bool timeMajor,
                                 Value seqLengths, bool zeroPaddedOutputs) {
  if (numBatchDims < 0)
    return op->emitOpError("expects 'num_batch_dims' to be non-negative, got ")
           << numBatchDims;
  if (inputType.getRank() < numBatchDims + 2)
    return op->emitOpError("expects an input of rank >= ")
           << numBatchDims + 2 << " (" << numBatchDims
           << " batch dims, time, features), got rank " << inputType.getRank();
  ArrayRef<int64_t> batch = batchDims(inputType, numBatchDims, timeMajor);
  if (seqLengths && tensorType(seqLengths).getShape() != batch)
    return op->emitOpError("expects 'seq_lengths' of shape ")
           << formatShape(batch) << " (the batch dims), got "
           << formatShape(tensorType(seqLengths).getShape());
  if (zeroPaddedOutputs && !seqLengths)
    return op->emitOpError("expects 'seq_lengths' with "
                           "'zero_padded_outputs'");
  return success();
}

static LogicalResult verifyUnroll(Operation *op, StringRef name,
                                  int64_t unroll) {
  if (unroll >= 1)
    return success();
  return op->emitOpError("expects '") << name << "' to be positive, got "
                                      << unroll;
}

/// Checks a list of carry values or result types against the body's carry.
static LogicalResult verifyCarryList(Operation *op, StringRef what,
                                     TypeRange found, TypeRange expected) {
  if (found.empty())
    return success();
  if (found.size() != expected.size())
    return op->emitOpError("expects 0 or ")
           << expected.size() << " " << what << " (one per carry), got "
           << found.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(found, expected)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError("expects ")
             << what << " #" << i << " of type " << std::get<1>(pair)
             << ", got " << std::get<0>(pair);
  return success();
}

/// Checks a scan body: block arguments (carry..., step input), the carry's
/// leading batch dims, and the yielded carry. Returns the terminator.
static FailureOr<YieldOp> verifyBody(Operation *op, Region &body,
                                     StringRef name, RankedTensorType inputType,
                                     int64_t timeAxis, int64_t numBatchDims,
                                     bool timeMajor, TypeRange init,
                                     TypeRange finalCarry) {
  Block &block = body.front();
  if (block.getNumArguments() < 2)
    return op->emitOpError("expects the ")
           << name << " region to take the carry and the step input, got "
           << block.getNumArguments() << " argument(s)";
  auto stepType = RankedTensorType::get(
      dropAxis(inputType.getShape(), timeAxis), inputType.getElementType());
  if (block.getArguments().back().getType() != stepType)
    return op->emitOpError("expects the last argument of the ")
           << name << " region to be the input at one step, " << stepType
           << ", got " << block.getArguments().back().getType();
  ArrayRef<int64_t> batch = batchDims(inputType, numBatchDims, timeMajor);
  TypeRange carryTypes = TypeRange(block.getArgumentTypes()).drop_back();
  for (auto [i, type] : llvm::enumerate(carryTypes)) {
    auto carryType = dyn_cast<RankedTensorType>(type);
    if (!carryType || carryType.getRank() <= numBatchDims ||
        carryType.getShape().take_front(numBatchDims) != batch)
      return op->emitOpError("expects carry #")
             << i << " of the " << name
             << " region to be a tensor with the batch dims "
             << formatShape(batch) << " and features, got " << type;
  }
  if (failed(verifyCarryList(op, "initial carries", init, carryTypes)) ||
      failed(verifyCarryList(op, "final carries", finalCarry, carryTypes)))
    return failure();
  auto yield = dyn_cast<YieldOp>(block.back());
  if (!yield)
    return op->emitOpError("expects the ")
           << name << " region to end with 'rnn.yield'";
  if (failed(verifyCarryList(yield, "yielded carries",
                             yield.getCarry().getTypes(), carryTypes)))
    return failure();
  if (yield.getCarry().empty())
    return yield.emitOpError("expects ")
           << carryTypes.size() << " yielded carries, got 0";
  return yield;
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

Block::BlockArgListType ScanOp::getCarryArgs() {
  return getBody().front().getArguments().drop_back();
}

BlockArgument ScanOp::getStepInputArg() {
  return getBody().front().getArguments().back();
}

int64_t ScanOp::getNumSteps() {
  return getInput().getType().getShape()[getTimeAxis()];
}

LogicalResult ScanOp::verify() {
  if (failed(verifyLayer(*this, getInput().getType(), getNumBatchDims(),
                         getTimeMajor(), getSeqLengths(),
                         getZeroPaddedOutputs())) ||
      failed(verifyUnroll(*this, "unroll", getUnroll())))
    return failure();
  if (getKeepOrder() && !getReverse())
    return emitOpError("expects 'keep_order' only together with 'reverse'");
  if (getSteps() && (getReverse() || getSeqLengths()))
    return emitOpError("expects no 'reverse' or 'lengths' with 'steps' (they "
                       "need the whole sequence)");
  if (getRows() && (getNumBatchDims() == 0 || getSeqLengths()))
    return emitOpError("expects 'rows' only with a batch dim and without "
                       "'lengths'");
  return success();
}

CellOpInterface ScanOp::getCell() {
  auto cells = getBody().front().getOps<CellOpInterface>();
  return cells.empty() ? CellOpInterface() : *cells.begin();
}

/// What the lowering of `overlap_rows` relies on (RNNOps.td): steps that
/// each compute a piece of R later rows of their input projection, in the
/// loop over k of a recurrent product of the same depth.
std::optional<std::string> ScanOp::whyNotOverlapRows(int64_t rows) {
  auto projection = getInput().getDefiningOp<ProjectOp>();
  auto depthOf = [](Value kernel) { return tensorType(kernel).getDimSize(0); };
  CellOpInterface cell = getCell();
  int64_t steps = getNumSteps();
  std::string why;
  llvm::raw_string_ostream os(why);
  os << "expects 'overlap_rows' ";
  if (rows < 2 || !llvm::isPowerOf2_64(rows))
    os << "to be a power of two of at least 2, got " << rows;
  else if (getNumBatchDims() != 1 || getRows() ||
           batchDims(getInput().getType(), 1, getTimeMajor())[0] != 1)
    os << "only on one batch dim of one row";
  else if (getSteps() || getUnroll() != 1)
    os << "only with static steps and 'unroll' 1, got unroll " << getUnroll();
  else if (getReverse() && !getSeqLengths())
    os << "with steps in order, not 'reverse' without 'lengths'";
  else if (!projection || projection.getDynamicInt8())
    os << "only on the steps of an 'rnn.project' without 'dynamic_int8'";
  else if (projection.getComputeType())
    os << "only on the steps of an 'rnn.project' without 'compute_type' (a "
          "bf16 ring would round, and shared loops over k have no bf16 dot)";
  else if (steps % rows != 0 || steps < 4 * rows)
    os << "to divide the " << steps << " steps into at least 4 groups, got "
       << rows;
  else if (int64_t columns = tensorType(projection.getKernel()).getDimSize(1);
           columns % rows != 0)
    os << "to divide the projection's " << columns << " columns, got " << rows;
  else if (!cell || !cell.hasProjectedInput() ||
           depthOf(cell.getHiddenKernel()) != depthOf(projection.getKernel()))
    os << "with a cell whose input is projected and whose recurrent product "
          "has the projection's depth "
       << depthOf(projection.getKernel());
  else
    return std::nullopt;
  return why;
}

LogicalResult ScanOp::verifyRegions() {
  FailureOr<YieldOp> yield =
      verifyBody(*this, getBody(), "body", getInput().getType(), getTimeAxis(),
                 getNumBatchDims(), getTimeMajor(), getInit().getTypes(),
                 getFinalCarry().getTypes());
  if (failed(yield))
    return failure();
  RankedTensorType expected = stackSteps(yield->getOutput().getType(),
                                          getTimeAxis(), getNumSteps());
  if (getOutputs().getType() != expected)
    return emitOpError("expects outputs of type ")
           << expected << " (the yielded output stacked on axis "
           << getTimeAxis() << "), got " << getOutputs().getType();
  // A projected bf16-compute cell reads the rounded Dense output, which
  // only a bf16 projection gives (and an f32 cell reads unrounded sums).
  auto projection = getInput().getDefiningOp<ProjectOp>();
  CellOpInterface cell = getCell();
  if (projection && cell && cell.hasProjectedInput() &&
      cell.getPrecision().bf16Compute != bool(projection.getComputeType()))
    return emitOpError("expects the input's 'rnn.project' to have a "
                       "'compute_type' exactly when its projected cell has");
  if (std::optional<int64_t> rows = getOverlapRows())
    if (std::optional<std::string> why = whyNotOverlapRows(*rows))
      return emitOpError(*why);
  return success();
}

//===----------------------------------------------------------------------===//
// BidirectionalOp
//===----------------------------------------------------------------------===//

LogicalResult BidirectionalOp::verify() {
  if (failed(verifyLayer(*this, getInput().getType(), getNumBatchDims(),
                         getTimeMajor(), getSeqLengths(),
                         getZeroPaddedOutputs())) ||
      failed(verifyUnroll(*this, "forward_unroll", getForwardUnroll())) ||
      failed(verifyUnroll(*this, "backward_unroll", getBackwardUnroll())))
    return failure();
  if (getRows() && (getNumBatchDims() == 0 || getSeqLengths()))
    return emitOpError("expects 'rows' only with a batch dim and without "
                       "'lengths'");
  if (getForwardCarry().empty() != getBackwardCarry().empty())
    return emitOpError("expects final carries for both directions or for "
                       "neither, got ")
           << getForwardCarry().size() << " forward and "
           << getBackwardCarry().size() << " backward";
  return success();
}

LogicalResult BidirectionalOp::verifyRegions() {
  RankedTensorType inputType = getInput().getType();
  int64_t timeAxis = getTimeAxis();
  FailureOr<YieldOp> forward = verifyBody(
      *this, getForward(), "forward", inputType, timeAxis, getNumBatchDims(),
      getTimeMajor(), getForwardInit().getTypes(), getForwardCarry().getTypes());
  if (failed(forward))
    return failure();
  FailureOr<YieldOp> backward =
      verifyBody(*this, getBackward(), "backward", inputType, timeAxis,
                 getNumBatchDims(), getTimeMajor(),
                 getBackwardInit().getTypes(), getBackwardCarry().getTypes());
  if (failed(backward))
    return failure();
  int64_t steps = inputType.getShape()[timeAxis];
  RankedTensorType fwd =
      stackSteps(forward->getOutput().getType(), timeAxis, steps);
  RankedTensorType bwd =
      stackSteps(backward->getOutput().getType(), timeAxis, steps);
  if (getMerge() == Merge::concat) {
    if (fwd.getShape().drop_back() != bwd.getShape().drop_back())
      return emitOpError("expects both directions to yield outputs that "
                         "differ at most in the last dim, got ")
             << fwd << " and " << bwd;
    SmallVector<int64_t> shape(fwd.getShape());
    shape.back() += bwd.getShape().back();
    fwd = RankedTensorType::get(shape, fwd.getElementType());
  } else if (fwd != bwd) {
    return emitOpError("expects both directions to yield outputs of the same "
                       "type with merge '")
           << stringifyMerge(getMerge()) << "', got " << fwd << " and " << bwd;
  }
  if (getOutputs().getType() != fwd)
    return emitOpError("expects outputs of type ")
           << fwd << " (both directions merged with '"
           << stringifyMerge(getMerge()) << "'), got "
           << getOutputs().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// MergeOp
//===----------------------------------------------------------------------===//

LogicalResult MergeOp::verify() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType();
  RankedTensorType expected = lhs;
  if (getKind() == Merge::concat) {
    if (lhs.getRank() == 0 || lhs.getRank() != rhs.getRank() ||
        lhs.getShape().drop_back() != rhs.getShape().drop_back() ||
        lhs.getElementType() != rhs.getElementType())
      return emitOpError("expects operands that differ at most in the last "
                         "dim for 'concat', got ")
             << lhs << " and " << rhs;
    SmallVector<int64_t> shape(lhs.getShape());
    shape.back() += rhs.getShape().back();
    expected = RankedTensorType::get(shape, lhs.getElementType());
  } else if (lhs != rhs) {
    return emitOpError("expects operands of the same type for '")
           << stringifyMerge(getKind()) << "', got " << lhs << " and " << rhs;
  }
  if (getResult().getType() != expected)
    return emitOpError("expects a result of type ")
           << expected << ", got " << getResult().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// FlipSequencesOp
//===----------------------------------------------------------------------===//

LogicalResult FlipSequencesOp::verify() {
  int64_t numBatchDims = getNumBatchDims();
  RankedTensorType type = getInput().getType();
  if (numBatchDims < 0)
    return emitOpError("expects 'num_batch_dims' to be non-negative, got ")
           << numBatchDims;
  if (type.getRank() < numBatchDims + 1)
    return emitOpError("expects an input of rank >= ")
           << numBatchDims + 1 << " (" << numBatchDims
           << " batch dims and time), got rank " << type.getRank();
  ArrayRef<int64_t> batch = batchDims(type, numBatchDims, getTimeMajor());
  if (getSeqLengths() && getSeqLengths().getType().getShape() != batch)
    return emitOpError("expects 'seq_lengths' of shape ")
           << formatShape(batch) << " (the batch dims), got "
           << formatShape(getSeqLengths().getType().getShape());
  return success();
}

OpFoldResult FlipSequencesOp::fold(FoldAdaptor) {
  // One step: every row is its own reversal.
  if (getInput().getType().getShape()[getTimeAxis()] == 1)
    return getInput();
  // An involution: flipping twice with the same lengths is the identity.
  auto inner = getInput().getDefiningOp<FlipSequencesOp>();
  if (inner && inner.getSeqLengths() == getSeqLengths() &&
      inner.getNumBatchDims() == getNumBatchDims() &&
      inner.getTimeMajor() == getTimeMajor())
    return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// SelectLastCarryOp
//===----------------------------------------------------------------------===//

LogicalResult SelectLastCarryOp::verify() {
  ArrayRef<int64_t> carries = getCarries().getType().getShape();
  ArrayRef<int64_t> initial = getInitial().getType().getShape();
  ArrayRef<int64_t> lengths = getSeqLengths().getType().getShape();
  if (carries.empty() || carries.drop_front() != initial ||
      getCarries().getType().getElementType() !=
          getInitial().getType().getElementType())
    return emitOpError("expects 'carries' to stack carries of type ")
           << getInitial().getType() << " on axis 0, got "
           << getCarries().getType();
  if (initial.size() <= lengths.size() ||
      initial.take_front(lengths.size()) != lengths)
    return emitOpError("expects the carry to start with the batch dims of "
                       "'seq_lengths' (")
           << formatShape(lengths) << ") and have features, got "
           << getInitial().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// ProjectOp
//===----------------------------------------------------------------------===//

/// The kernel of an input projection for inputs of `element`: `element`
/// itself, or with f32 inputs bf16 or int8 per column (the sums before the
/// columns' scales).
static LogicalResult verifyProjectionKernel(Operation *op, Type element,
                                            RankedTensorType kernel) {
  Type weights = kernel.getElementType();
  int64_t columns = kernel.getDimSize(1);
  bool int8 = isInt8PerChannelType(weights);
  if (int8) {
    auto quant = cast<quant::UniformQuantizedPerAxisType>(weights);
    if (quant.getQuantizedDimension() != 1 ||
        int64_t(quant.getScales().size()) != columns)
      return op->emitOpError("expects an int8 kernel quantized along its last "
                             "dim with one scale per column (")
             << columns << "), got axis " << quant.getQuantizedDimension()
             << " with " << quant.getScales().size() << " scales";
  }
  if (weights != element && !((int8 || weights.isBF16()) && element.isF32()))
    return op->emitOpError("expects a kernel of the input's element type ")
           << element << " (or, with f32 input, bf16 or int8), got " << weights;
  return success();
}

LogicalResult ProjectOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   kernel = tensorType(getKernel()),
                   result = tensorType(getResult());
  if (input.getRank() == 0)
    return emitOpError("expects an input of rank >= 1, got a scalar");
  if (kernel.getRank() != 2)
    return emitOpError("expects a kernel of rank 2 (input features by "
                       "columns), got rank ")
           << kernel.getRank();
  int64_t features = input.getShape().back(), columns = kernel.getDimSize(1);
  if (kernel.getDimSize(0) != features)
    return emitOpError("expects a kernel of ")
           << features << " rows (the input's features), got "
           << kernel.getDimSize(0);
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = columns;
  if (result.getShape() != ArrayRef<int64_t>(shape))
    return emitOpError("expects a result of shape ")
           << formatShape(shape) << " (the input's rows by the kernel's "
           << "columns), got " << formatShape(result.getShape());
  Type element = input.getElementType();
  if (result.getElementType() != element)
    return emitOpError("expects a result of the input's element type ")
           << element << ", got " << result.getElementType();
  if (getDynamicInt8() && !isInt8PerChannelType(kernel.getElementType()))
    return emitOpError("expects an int8 kernel with 'dynamic_int8', got ")
           << kernel.getElementType();
  if (std::optional<Type> compute = getComputeType()) {
    // bf16 compute: exact products of bf16 values, summed in f32.
    if (!compute->isBF16())
      return emitOpError("expects 'compute_type' bf16, got ") << *compute;
    if (!element.isF32() || !kernel.getElementType().isBF16() ||
        getDynamicInt8())
      return emitOpError("expects an f32 input and a bf16 kernel with "
                         "'compute_type' bf16 (and no 'dynamic_int8'), got ")
             << element << " and " << kernel.getElementType();
  }
  return verifyProjectionKernel(*this, element, kernel);
}

//===----------------------------------------------------------------------===//
// ProjectPieceOp
//===----------------------------------------------------------------------===//

OpFoldResult mlir::rnn::buildBlockColumn(OpBuilder &b, Location loc,
                                         Value block, int64_t width) {
  APInt index;
  if (matchPattern(block, m_ConstantInt(&index)))
    return b.getIndexAttr(index.getSExtValue() * width);
  return arith::MulIOp::create(b, loc, block,
                               arith::ConstantIndexOp::create(b, loc, width))
      .getResult();
}

Value mlir::rnn::sliceColumns(OpBuilder &b, Location loc, Value kernel,
                              OpFoldResult column, int64_t width) {
  auto type = cast<RankedTensorType>(kernel.getType());
  int64_t depth = type.getDimSize(0);
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({depth, width}, type.getElementType()),
      kernel, ArrayRef<OpFoldResult>{b.getIndexAttr(0), column},
      ArrayRef<OpFoldResult>{b.getIndexAttr(depth), b.getIndexAttr(width)},
      SmallVector<OpFoldResult>(2, b.getIndexAttr(1)));
}

LogicalResult ProjectPieceOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   kernel = tensorType(getKernel()),
                   ring = tensorType(getRing());
  if (input.getRank() != 2 || kernel.getRank() != 2 || ring.getRank() != 2)
    return emitOpError("expects a matrix input, kernel and ring, got ranks ")
           << input.getRank() << ", " << kernel.getRank() << " and "
           << ring.getRank();
  int64_t depth = input.getDimSize(1), columns = kernel.getDimSize(1);
  if (kernel.getDimSize(0) != depth)
    return emitOpError("expects a kernel of ")
           << depth << " rows (the input's features), got "
           << kernel.getDimSize(0);
  Type element = input.getElementType();
  if (ring.getDimSize(1) != columns || ring.getElementType() != element)
    return emitOpError("expects a ring of the kernel's ")
           << columns << " columns of the input's element type " << element
           << ", got " << ring;
  int64_t rows = getRows(), width = getWidth();
  if (rows < 1 || rows > input.getDimSize(0) || rows > ring.getDimSize(0) ||
      width < 1 || columns % width != 0)
    return emitOpError("expects a block of at most the input's and the "
                       "ring's rows and of a width dividing the ")
           << columns << " columns, got " << rows << " x " << width;
  if (failed(verifyProjectionKernel(*this, element, kernel)))
    return failure();
  Value beside = getBeside();
  if (!beside)
    return success();
  auto cell = beside.getDefiningOp<CellOpInterface>();
  if (!cell || !cell.hasProjectedInput() || cell.getPrecision().dynamicInt8)
    return emitOpError("expects 'beside' to be a result of a cell with a "
                       "projected input and without 'dynamic_int8'");
  int64_t recurrentDepth = tensorType(cell.getHiddenKernel()).getDimSize(0);
  if (recurrentDepth != depth)
    return emitOpError("expects 'beside' of a cell whose recurrent product "
                       "has the piece's depth ")
           << depth << ", got " << recurrentDepth;
  return success();
}

//===----------------------------------------------------------------------===//
// SharedKMatmulsOp
//===----------------------------------------------------------------------===//

/// `lhs` [m, k] x `rhs` [k, n] into `acc` [m, n] (with `columnBlock`, a
/// block of n columns of `rhs` [k, N]); returns k, or fails.
static FailureOr<int64_t> verifyProduct(Operation *op, StringRef which,
                                        Value lhs, Value rhs, Value acc,
                                        bool columnBlock = false) {
  RankedTensorType lhsType = tensorType(lhs), rhsType = tensorType(rhs),
                   accType = tensorType(acc);
  if (lhsType.getRank() != 2 || rhsType.getRank() != 2 ||
      accType.getRank() != 2)
    return op->emitOpError("expects the ")
           << which << " product on matrices, got " << lhsType << " x "
           << rhsType << " into " << accType;
  ArrayRef<int64_t> m = lhsType.getShape(), r = rhsType.getShape(),
                    a = accType.getShape();
  bool columns = columnBlock ? a[1] > 0 && r[1] % a[1] == 0 : a[1] == r[1];
  if (m[1] != r[0] || a[0] != m[0] || !columns)
    return op->emitOpError("expects the ")
           << which << " product [m, k] x "
           << (columnBlock ? "a block of n columns of [k, N] (n dividing N)"
                           : "[k, n]")
           << " into [m, n], got " << formatShape(m) << " x " << formatShape(r)
           << " into " << formatShape(a);
  return m[1];
}

LogicalResult SharedKMatmulsOp::verify() {
  FailureOr<int64_t> first =
      verifyProduct(*this, "first", getFirstLhs(), getFirstRhs(), getFirstAcc(),
                    /*columnBlock=*/true);
  if (failed(first))
    return failure();
  FailureOr<int64_t> second = verifyProduct(*this, "second", getSecondLhs(),
                                            getSecondRhs(), getSecondAcc());
  if (failed(second))
    return failure();
  if (*first != *second)
    return emitOpError("expects both products of one depth k, got ")
           << *first << " and " << *second;
  return success();
}

#define GET_OP_CLASSES
#include "rnn/IR/RNNOps.cpp.inc"
