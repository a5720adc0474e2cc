//===- CreateEntryPoint.cpp - The model's C entry point -------------------===//

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/ABI/Passes.h"
#include "rnn/Conversion/RNNToRuntime/RuntimeCalls.h"
#include "rnn/IR/RNNDialect.h"
#include "rnn/IR/RNNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNCREATEENTRYPOINTPASS
#include "rnn/ABI/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

MemRefType bufferType(Type tensorType) {
  auto type = cast<RankedTensorType>(tensorType);
  return MemRefType::get(type.getShape(), type.getElementType());
}

/// Index of the argument named `name`, if any.
std::optional<unsigned> findArgument(func::FuncOp func, StringRef name) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto attr = func.getArgAttrOfType<StringAttr>(i, kNameAttrName))
      if (attr.getValue() == name)
        return i;
  return std::nullopt;
}

/// Checks the token ids of every rnn.embed that reads a model argument:
/// returns `status` when it is already an error, else the check's status.
Value checkTokenIds(OpBuilder &b, Location loc, func::FuncOp model,
                    Block *entryBlock, Value status) {
  model.walk([&](EmbedOp embed) {
    auto arg = dyn_cast<BlockArgument>(embed.getIds());
    if (!arg || arg.getOwner() != &model.getBody().front())
      return;
    Value ids = entryBlock->getArgument(arg.getArgNumber());
    int64_t count = cast<MemRefType>(ids.getType()).getNumElements();
    int64_t rows = embed.getEmbedding().getType().getDimSize(0);
    SmallVector<Value> args{
        pointerBuffer(b, loc, ids),
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(count)),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(rows))};
    func::FuncOp check = lookupOrDeclareRuntimeFunction(
        b, model->getParentOfType<ModuleOp>(), abi::kCheckTokenIds,
        ValueRange(args).getTypes());
    Value tokens = func::CallOp::create(b, loc, check, args).getResult(0);
    Value failed = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, status,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(abi::kStatusOK)));
    status = arith::SelectOp::create(b, loc, failed, status, tokens);
  });
  return status;
}

/// kStatusArgument (an i32) when a buffer argument of `entry` with elements
/// is NULL or the workspace is NULL or not aligned to
/// kMinWorkspaceAlignment, else kStatusOK. A buffer without elements is never
/// accessed and may be NULL (as in librnnrt); so may a workspace of 0 bytes,
/// which --rnn-assign-workspace resolves once the size is known. (A chain of
/// selects, not `|` of comparisons, which C compilers warn about.)
Value argumentStatus(OpBuilder &b, Location loc, func::FuncOp entry,
                     const abi::EntryPointABI &abi) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value error = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(abi::kStatusArgument));
  Value status =
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(abi::kStatusOK));
  auto failIf = [&](Value bad) {
    status = arith::SelectOp::create(b, loc, bad, error, status);
  };
  for (BlockArgument arg : entry.getArguments()) {
    bool workspace = abi.parameters[arg.getArgNumber()].isWorkspace();
    if (!workspace && abi.parameters[arg.getArgNumber()].numElements() == 0)
      continue;
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, arg);
    failIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, address,
                                 zero));
    if (!workspace)
      continue;
    // On i64: EmitC has no bitwise ops on index (size_t).
    Value bits = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
    Value low = arith::AndIOp::create(
        b, loc, bits,
        arith::ConstantOp::create(
            b, loc, b.getI64IntegerAttr(abi::kMinWorkspaceAlignment - 1)));
    failIf(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, low,
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0))));
  }
  return status;
}

/// With a run-time size: kStatusArgument when the caller's int32 in
/// `sizeBuffer` is outside [least, most], else `status`.
Value checkSize(OpBuilder &b, Location loc, Value sizeBuffer, int64_t least,
                int64_t most, Value status) {
  Value size = memref::LoadOp::create(b, loc, sizeBuffer, ValueRange{});
  // Unsigned: a size below `least` wraps above any range.
  Value offset = arith::SubIOp::create(
      b, loc, size,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(least)));
  Value bad = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ugt, offset,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(most - least)));
  Value error = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(abi::kStatusArgument));
  return arith::SelectOp::create(b, loc, bad, error, status);
}

/// Copies the actual part of a buffer between the model's maximum shape
/// (`full`) and the caller's buffer, dense for the actual sizes (librnnrt's
/// rnnrt_copy_box_*): `toCaller` from `full` into `dense`, else back.
/// `actual` holds an i32 size per dim of `full` that is a run-time size,
/// null for the static ones.
/// With `flat` (kFlatBatchAttrName), the `flat` dims from `flatAxis` are
/// one dim: their actual rows a prefix of the product of their maxima.
void copyActual(OpBuilder &b, Location loc, ModuleOp module, Value full,
                Value dense, ArrayRef<Value> actualDims, bool toCaller,
                int64_t flatAxis = 0, int64_t flat = 0) {
  auto type = cast<MemRefType>(full.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<Value> actual(actualDims);
  if (flat > 1) {
    int64_t most = 1;
    Value rows;
    for (int64_t d = flatAxis; d < flatAxis + flat; ++d) {
      most *= shape[d];
      Value size = actual[d] ? actual[d]
                             : arith::ConstantOp::create(
                                   b, loc, b.getI32IntegerAttr(shape[d]));
      rows = rows ? arith::MulIOp::create(b, loc, rows, size) : size;
    }
    shape.erase(shape.begin() + flatAxis + 1, shape.begin() + flatAxis + flat);
    shape[flatAxis] = most;
    actual.erase(actual.begin() + flatAxis + 1,
                 actual.begin() + flatAxis + flat);
    actual[flatAxis] = rows;
  }
  int64_t rank = shape.size();
  auto i64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v))
        .getResult();
  };
  // One level per dim up to the last run-time one; the static dims after
  // it are contiguous in both layouts and join its elements.
  int64_t last = 0;
  for (auto [d, size] : llvm::enumerate(actual))
    if (size)
      last = d;
  int64_t inner = 1;
  for (int64_t d = last + 1; d < rank; ++d)
    inner *= shape[d];
  // (count, dst extent, src extent) per level, in a workspace buffer.
  auto dims = memref::AllocOp::create(
      b, loc, MemRefType::get({3 * (last + 1)}, b.getI64Type()));
  for (int64_t d = 0; d <= last; ++d) {
    int64_t scale = d == last ? inner : 1;
    Value maximum = i64(shape[d] * scale);
    Value count = maximum;
    if (actual[d]) {
      count = arith::ExtSIOp::create(b, loc, b.getI64Type(), actual[d]);
      if (scale != 1)
        count = arith::MulIOp::create(b, loc, count, i64(scale));
    }
    Value values[3] = {count, toCaller ? count : maximum,
                       toCaller ? maximum : count};
    for (int k = 0; k < 3; ++k)
      memref::StoreOp::create(
          b, loc, values[k], dims,
          ValueRange{arith::ConstantIndexOp::create(b, loc, 3 * d + k)});
  }
  SmallVector<Value> args{pointerBuffer(b, loc, toCaller ? dense : full),
                          pointerBuffer(b, loc, toCaller ? full : dense),
                          i64(last + 1), pointerBuffer(b, loc, dims)};
  StringRef name =
      type.getElementType().isF32() ? abi::kCopyBoxF32 : abi::kCopyBoxI32;
  func::FuncOp copy = lookupOrDeclareRuntimeFunction(
      b, module, name, ValueRange(args).getTypes());
  func::CallOp::create(b, loc, copy, args);
}

LogicalResult createEntryPoint(func::FuncOp model) {
  FunctionType type = model.getFunctionType();
  if (!llvm::all_of(type.getInputs(), llvm::IsaPred<RankedTensorType>) ||
      !llvm::all_of(type.getResults(), llvm::IsaPred<RankedTensorType>))
    return model.emitOpError("expects a model function on ranked tensors");
  auto numSteps = model->getAttrOfType<IntegerAttr>(kNumStepsAttrName);
  std::optional<unsigned> lengthsArg = findArgument(model, abi::kSeqLengthsKey);
  std::optional<unsigned> stepsArg = findArgument(model, kStepsArgName);
  if (stepsArg && !numSteps)
    return model.emitOpError("expects '")
           << kNumStepsAttrName << "' on a model with run-time steps";
  if (lengthsArg && !numSteps)
    return model.emitOpError("expects '")
           << kNumStepsAttrName << "' on a model with sequence lengths";

  // The run-time batch sizes: (batch dim, argument), and each dim's maximum
  // (read from an argument's type at its batch axis).
  SmallVector<std::pair<int64_t, unsigned>> batchArgs;
  llvm::SmallDenseMap<int64_t, int64_t> maxBatch;
  for (unsigned i = 0, e = model.getNumArguments(); i < e; ++i) {
    auto name = model.getArgAttrOfType<StringAttr>(i, kNameAttrName);
    int64_t d;
    if (name && name.getValue().starts_with(kBatchArgPrefix) &&
        !name.getValue().drop_front(kBatchArgPrefix.size()).getAsInteger(10, d))
      batchArgs.push_back({d, i});
  }
  if (!batchArgs.empty()) {
    auto axis = model.getArgAttrOfType<IntegerAttr>(0, kBatchAxisAttrName);
    if (!axis)
      return model.emitOpError("expects '")
             << kBatchAxisAttrName << "' on a model with run-time batch sizes";
    auto x = cast<RankedTensorType>(type.getInput(0));
    for (auto [d, arg] : batchArgs)
      maxBatch[d] = x.getDimSize(axis.getInt() + d);
  }

  OpBuilder b(model);
  Location loc = model.getLoc();
  SmallVector<Type> argTypes;
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    argTypes.push_back(bufferType(t));
  argTypes.push_back(MemRefType::get({ShapedType::kDynamic}, b.getI8Type()));
  auto entry =
      func::FuncOp::create(b, loc, abi::entryPointName(model.getName()),
                           b.getFunctionType(argTypes, b.getI32Type()));
  // The scans of a part of a static batch plan their steps for the whole.
  if (Attribute whole = model->getAttr(kTimeBlockBatchAttrName))
    entry->setAttr(kTimeBlockBatchAttrName, whole);
  // A function lowered to be split into column tasks stays one.
  if (Attribute split = model->getAttr(kColumnSplitAttrName))
    entry->setAttr(kColumnSplitAttrName, split);
  unsigned numInputs = type.getNumInputs();
  for (unsigned i = 0; i < numInputs; ++i)
    entry.setArgAttrs(i, model.getArgAttrDict(i));
  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i) {
    entry.setArgAttrs(numInputs + i, model.getResultAttrDict(i));
    entry.setArgAttr(numInputs + i, kOutputAttrName, b.getUnitAttr());
  }
  entry.setArgAttr(argTypes.size() - 1, kWorkspaceAttrName, b.getUnitAttr());
  FailureOr<abi::EntryPointABI> entryABI = abi::describeEntryPoint(entry);
  if (failed(entryABI))
    return failure();
  // The caller's buffers never overlap (the header says so): without this,
  // LLVM must assume a store to an output may change an input or the
  // workspace, and copies between them stay scalar. The one exception:
  // an initial carry and its final carry may be the same buffer (an
  // in-place state update), so neither of such a pair is noalias.
  for (auto [i, param] : llvm::enumerate(entryABI->parameters))
    if (!param.mayAlias)
      entry.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                       b.getUnitAttr());

  Block *block = entry.addEntryBlock();
  b.setInsertionPointToStart(block);
  // Pointers first (kStatusArgument), then the lengths: a NULL seq_lengths
  // must not reach rnnrt_check_seq_lengths, for which NULL means "all T".
  Type i32 = b.getI32Type();
  Value argStatus = argumentStatus(b, loc, entry, *entryABI);
  Value bad = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, argStatus,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(abi::kStatusOK)));
  auto ifBad = scf::IfOp::create(b, loc, TypeRange{i32}, bad,
                                 /*withElseRegion=*/true);
  b.setInsertionPointToStart(ifBad.thenBlock());
  scf::YieldOp::create(b, loc, ValueRange{argStatus});
  b.setInsertionPointToStart(ifBad.elseBlock());
  Value status =
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(abi::kStatusOK));
  if (lengthsArg) {
    Value lengths = block->getArgument(*lengthsArg);
    int64_t batch = cast<MemRefType>(lengths.getType()).getNumElements();
    SmallVector<Value> args{
        pointerBuffer(b, loc, lengths),
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(batch)),
        arith::ConstantOp::create(b, loc,
                                  b.getI64IntegerAttr(numSteps.getInt()))};
    func::FuncOp check = lookupOrDeclareRuntimeFunction(
        b, model->getParentOfType<ModuleOp>(), abi::kCheckSeqLengths,
        ValueRange(args).getTypes());
    status = func::CallOp::create(b, loc, check, args).getResult(0);
  }
  if (stepsArg)
    status = checkSize(b, loc, block->getArgument(*stepsArg), 0,
                       numSteps.getInt(), status);
  for (auto [d, arg] : batchArgs)
    status = checkSize(b, loc, block->getArgument(arg), 1, maxBatch[d],
                       status);
  // Token ids are read only once every pointer is known to be valid.
  status = checkTokenIds(b, loc, model, block, status);
  scf::YieldOp::create(b, loc, ValueRange{status});
  b.setInsertionPointAfter(ifBad);
  status = ifBad.getResult(0);
  Value ok = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, status,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(abi::kStatusOK)));
  auto ifOk = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/false);

  // The model's body, on the caller's buffers.
  b.setInsertionPointToStart(ifOk.thenBlock());
  // With run-time sizes, the caller's buffers are dense for the actual
  // sizes: the model works on buffers of the maximum shape (in the
  // workspace) that the actual part is copied into and out of.
  ModuleOp module = model->getParentOfType<ModuleOp>();
  Value steps;
  if (stepsArg)
    steps = memref::LoadOp::create(b, loc, block->getArgument(*stepsArg),
                                   ValueRange{});
  SmallVector<std::pair<int64_t, Value>> batchSizes;
  for (auto [d, arg] : batchArgs)
    batchSizes.push_back(
        {d, memref::LoadOp::create(b, loc, block->getArgument(arg),
                                   ValueRange{})});
  // The actual size of each dim of a buffer with `attrs` (null: static);
  // empty when every dim is static.
  auto actualSizes = [&](DictionaryAttr attrs, int64_t rank) {
    SmallVector<Value> sizes(rank);
    bool any = false;
    if (!attrs)
      return SmallVector<Value>();
    if (auto axis = attrs.getAs<IntegerAttr>(kTimeAxisAttrName); axis && steps) {
      sizes[axis.getInt()] = steps;
      any = true;
    }
    if (auto axis = attrs.getAs<IntegerAttr>(kBatchAxisAttrName))
      for (auto [d, size] : batchSizes) {
        sizes[axis.getInt() + d] = size;
        any = true;
      }
    return any ? sizes : SmallVector<Value>();
  };
  int64_t flatBatch = 0;
  if (auto flat = model->getAttrOfType<IntegerAttr>(kFlatBatchAttrName))
    flatBatch = flat.getInt();
  auto batchAxis = [](DictionaryAttr attrs) -> int64_t {
    auto axis = attrs ? attrs.getAs<IntegerAttr>(kBatchAxisAttrName)
                      : IntegerAttr();
    return axis ? axis.getInt() : 0;
  };
  IRMapping mapping;
  for (unsigned i = 0; i < numInputs; ++i) {
    Value buffer = block->getArgument(i);
    auto bufType = cast<MemRefType>(bufferType(type.getInput(i)));
    SmallVector<Value> actual =
        actualSizes(model.getArgAttrDict(i), bufType.getRank());
    if (!actual.empty()) {
      Value full = memref::AllocOp::create(b, loc, bufType);
      copyActual(b, loc, module, full, buffer, actual, /*toCaller=*/false,
                 batchAxis(model.getArgAttrDict(i)), flatBatch);
      buffer = full;
    }
    mapping.map(model.getArgument(i),
                bufferization::ToTensorOp::create(
                    b, loc, type.getInput(i), buffer,
                    /*restrict=*/true, /*writable=*/false));
  }
  Block &body = model.getBody().front();
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  SmallVector<std::tuple<Value, Value, SmallVector<Value>, int64_t>> copiesOut;
  for (auto [i, result] :
       llvm::enumerate(body.getTerminator()->getOperands())) {
    Value buffer = block->getArgument(numInputs + i);
    auto bufType = cast<MemRefType>(bufferType(type.getResult(i)));
    SmallVector<Value> actual =
        actualSizes(model.getResultAttrDict(i), bufType.getRank());
    if (!actual.empty()) {
      Value full = memref::AllocOp::create(b, loc, bufType);
      copiesOut.push_back(
          {full, buffer, actual, batchAxis(model.getResultAttrDict(i))});
      buffer = full;
    }
    // A flattened batch (kFlatBatchAttrName) is written through a view of
    // the buffer in the model's layout: materializing the expanded tensor
    // instead would copy the whole maximum shape.
    Value value = mapping.lookupOrDefault(result);
    if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>();
        expand && flatBatch) {
      buffer = memref::CollapseShapeOp::create(
          b, loc, buffer, expand.getReassociationIndices());
      value = expand.getSrc();
    }
    bufferization::MaterializeInDestinationOp::create(
        b, loc, Type(), value, buffer, /*restrict=*/true, /*writable=*/true);
  }
  for (auto &[full, dense, actual, axis] : copiesOut)
    copyActual(b, loc, module, full, dense, actual, /*toCaller=*/true, axis,
               flatBatch);

  b.setInsertionPointToEnd(block);
  func::ReturnOp::create(b, loc, status);
  model.erase();
  return success();
}

struct RNNCreateEntryPointPass
    : rnn::impl::RNNCreateEntryPointPassBase<RNNCreateEntryPointPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> models;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() &&
          (func->hasAttr(kNumStepsAttrName) ||
           findArgument(func, abi::kInputKey).has_value()))
        models.push_back(func);
    for (func::FuncOp model : models)
      if (failed(createEntryPoint(model)))
        return signalPassFailure();
  }
};

} // namespace
