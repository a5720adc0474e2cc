//===- MLIRGen.cpp - A checked model as rnn dialect IR --------------------===//

#include "rnn/Import/MLIRGen.h"
#include "rnn/Import/SpecEnums.h"
#include "rnn/IR/RNNOps.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Spec/Parser.h"
#include "rnn/Weights/Array.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace rnnc;
using namespace rnnc::spec;

namespace {

/// The MLIR type of an element type: every type MLIRGen gives a float value
/// (constants, activations, cell attributes) comes from here.
Type toMLIRType(spec::ElementType type, MLIRContext &ctx) {
  switch (type) {
  case spec::ElementType::Float32:
    return Float32Type::get(&ctx);
  case spec::ElementType::BFloat16:
    return BFloat16Type::get(&ctx);
  }
  llvm_unreachable("an element type without an MLIR type");
}

/// `tensor`'s values as elements of `type` (its shape, its element type).
DenseElementsAttr elementsOf(const Tensor &tensor, RankedTensorType type) {
  switch (tensor.elementType) {
  case spec::ElementType::Float32:
    return DenseElementsAttr::get(type, ArrayRef<float>(tensor.data));
  case spec::ElementType::BFloat16: {
    // Exact: binding rounded the values to bf16.
    std::vector<uint16_t> bits(tensor.data.size());
    for (size_t i = 0; i < bits.size(); ++i)
      bits[i] = rnnc::weights::floatToBFloat16(tensor.data[i]);
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(reinterpret_cast<const char *>(bits.data()),
                             bits.size() * sizeof(uint16_t)));
  }
  }
  llvm_unreachable("an element type without elements");
}

/// The rnn.pool kind of a Pool layer (all but final_carry, which reads a
/// carry instead) and whether it reads the sequence lengths.
std::pair<rnn::PoolKind, bool> toPool(const Layer &layer) {
  bool valid = layer.validOnly;
  switch (layer.poolFn) {
  case PoolFn::Last:
    return {rnn::PoolKind::last, valid};
  case PoolFn::First:
    return {rnn::PoolKind::first, valid};
  case PoolFn::Mean:
    return {rnn::PoolKind::mean, valid};
  case PoolFn::Max:
    return {rnn::PoolKind::max, valid};
  case PoolFn::Sum:
    return {rnn::PoolKind::sum, valid};
  case PoolFn::LastValid:
    return {rnn::PoolKind::last, true};
  case PoolFn::FinalCarry:
    break;
  }
  llvm_unreachable("final_carry is not an rnn.pool");
}

class ModelBuilder {
public:
  /// `model` is what the layers see; `caller` the spec's model, whose
  /// layout the function's arguments and results keep (they differ when
  /// several batch dims are flattened into one, flattenedBatch()).
  ModelBuilder(MLIRContext &ctx, const Model &model, const Model &caller,
               ArrayRef<LayerParams> params, const llvm::SourceMgr &sourceMgr)
      : ctx(ctx), model(model), caller(caller), params(params),
        sourceMgr(sourceMgr), builder(&ctx),
        activationType(toMLIRType(model.activationType(), ctx)) {}

  OwningOpRef<ModuleOp> build();

private:
  Location locate(llvm::SMLoc loc, StringRef name = {}) {
    Location fileLoc = toLocation(sourceMgr, loc, ctx);
    return name.empty() ? fileLoc
                        : NameLoc::get(builder.getStringAttr(name), fileLoc);
  }

  /// A sequence tensor (layout per the spec) with `features` trailing dims,
  /// of activations unless `elementType` says otherwise.
  RankedTensorType sequenceType(ArrayRef<int64_t> features,
                                Type elementType = {}) {
    SmallVector<int64_t> shape(model.batch.begin(), model.batch.end());
    shape.insert(shape.begin() + (model.timeMajor ? 0 : shape.size()),
                 model.time);
    shape.append(features.begin(), features.end());
    return RankedTensorType::get(shape,
                                 elementType ? elementType : activationType);
  }

  /// The output type of layer `k` (time kept or pooled away).
  RankedTensorType layerOutputType(size_t k) {
    return activationTensor(layerOutputShape(model, k));
  }

  /// Emits non-recurrent layer `k` on `x`; `lastRecurrentH` is the closest
  /// recurrent layer's final h (for Pool final_carry).
  Value buildLayer(size_t k, Value x, Value lengths, Value lastRecurrentH);

  /// The batch dims followed by `features`, of activations.
  RankedTensorType batchedType(ArrayRef<int64_t> features) {
    SmallVector<int64_t> shape(model.batch.begin(), model.batch.end());
    shape.append(features.begin(), features.end());
    return activationTensor(shape);
  }

  /// A param as a constant of the tensor's element type (bfloat16 params
  /// take half the bytes).
  Value constant(const Tensor &tensor, Location loc) {
    auto type = RankedTensorType::get(tensor.shape,
                                      toMLIRType(tensor.elementType, ctx));
    return arith::ConstantOp::create(builder, loc, elementsOf(tensor, type));
  }

  /// An int8 kernel (`quantize: {weights: int8}`): its values as an i8
  /// constant, cast to quant's per-axis type that carries the scales
  /// (RNNTypes.td), one byte a weight. The scales, and so what the kernel
  /// stands for, are in the activations' type.
  Value int8Kernel(const rnnc::Int8Kernel &kernel, Location loc) {
    auto storage = RankedTensorType::get(kernel.shape, builder.getI8Type());
    auto attr = DenseElementsAttr::get(storage,
                                       ArrayRef<int8_t>(kernel.values));
    Value values = arith::ConstantOp::create(builder, loc, attr);
    SmallVector<double> scales(kernel.scales.begin(), kernel.scales.end());
    SmallVector<int64_t> zeros(scales.size(), 0);
    auto element = quant::UniformQuantizedPerAxisType::get(
        quant::QuantizationFlags::Signed, builder.getI8Type(), activationType,
        scales, zeros, int32_t(kernel.shape.size()) - 1, -127, 127);
    return quant::StorageCastOp::create(builder, loc, storage.clone(element),
                                        values);
  }

  /// Names of one direction's carry parts ("c", "h" or just "h").
  static ArrayRef<StringRef> carryNames(const Cell &cell) {
    return describe(cell.kind).carries;
  }

  /// Activations of exactly `shape` (carry shapes include the batch dims).
  RankedTensorType activationTensor(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, activationType);
  }

  /// Fills `body` with one step of `cell` on the given weights.
  void buildCellBody(Region &body, const Cell &cell, const CellParams &weights,
                     ArrayRef<int64_t> inputFeatures, Location loc);

  /// The key prefix of a layer direction: "<layer>" or "<layer>/forward".
  static std::string directionKey(const Layer &layer, unsigned dir) {
    if (!layer.isBidirectional())
      return layer.name;
    return layer.name + (dir == 0 ? "/forward" : "/backward");
  }

  void addArgument(Type type, StringRef name) {
    argTypes.push_back(type);
    argNames.push_back(name.str());
  }

  /// The arguments and results in the caller's batch dims: each batched
  /// one of the flattened model collapsed from (expanded to) them.
  void restoreBatchDims(func::FuncOp func);

  MLIRContext &ctx;
  const Model &model;
  const Model &caller;
  ArrayRef<LayerParams> params;
  const llvm::SourceMgr &sourceMgr;
  OpBuilder builder;
  /// The element type of x, y, the carries and the values between layers
  /// (Model::activationType).
  Type activationType;
  SmallVector<Type> argTypes;
  std::vector<std::string> argNames;
};

Value ModelBuilder::buildLayer(size_t k, Value x, Value lengths,
                               Value lastRecurrentH) {
  const Layer &layer = model.layers[k];
  const LayerParams &weights = params[k];
  Location loc = locate(layer.loc, layer.name);
  RankedTensorType type = layerOutputType(k);
  auto activation = [&](std::optional<spec::Activation> fn) {
    return fn ? rnn::ActivationAttr::get(&ctx, toDialect(*fn))
              : rnn::ActivationAttr();
  };
  auto optionalConstant = [&](const std::optional<Tensor> &tensor) {
    return tensor ? constant(*tensor, loc) : Value();
  };
  int64_t numBatchDims = model.batch.size();
  switch (layer.kind) {
  case Layer::Kind::Dense:
    return rnn::DenseOp::create(builder, loc, type, x,
                                weights.kernelInt8
                                    ? int8Kernel(*weights.kernelInt8, loc)
                                    : constant(*weights.kernel, loc),
                                optionalConstant(weights.bias),
                                activation(layer.activation));
  case Layer::Kind::Embed:
    return rnn::EmbedOp::create(builder, loc, type, x,
                                constant(*weights.embedding, loc));
  case Layer::Kind::LayerNorm:
    return rnn::LayerNormOp::create(
        builder, loc, type, x, optionalConstant(weights.scale),
        optionalConstant(weights.bias),
        builder.getF64FloatAttr(layer.epsilon));
  case Layer::Kind::Activation:
    return rnn::ActivationOp::create(
        builder, loc, rnn::ActivationAttr::get(&ctx,
                                               toDialect(*layer.activation)),
        x);
  case Layer::Kind::Dropout:
    return x; // the identity at inference
  case Layer::Kind::Pool: {
    if (layer.poolFn == PoolFn::FinalCarry)
      return lastRecurrentH;
    auto [kind, valid] = toPool(layer);
    return rnn::PoolOp::create(
        builder, loc, type, rnn::PoolKindAttr::get(&ctx, kind), x,
        valid ? lengths : Value(), builder.getI64IntegerAttr(numBatchDims),
        model.timeMajor ? builder.getUnitAttr() : UnitAttr());
  }
  case Layer::Kind::RNN:
  case Layer::Kind::Bidirectional:
    break;
  }
  llvm_unreachable("recurrent layers are built in build()");
}

void ModelBuilder::buildCellBody(Region &body, const Cell &cell,
                                 const CellParams &weights,
                                 ArrayRef<int64_t> inputFeatures,
                                 Location loc) {
  std::vector<Shape> carries = carryShapes(model, cell, inputFeatures);
  Block *block = new Block();
  body.push_back(block);
  for (const Shape &shape : carries)
    block->addArgument(activationTensor(shape), loc);
  Value input = block->addArgument(batchedType(inputFeatures), loc);

  OpBuilder::InsertionGuard guard(builder);
  // Weights are constants defined before the layer that reads them.
  builder.setInsertionPoint(body.getParentOp());
  Value wi = weights.wiInt8 ? int8Kernel(*weights.wiInt8, loc)
                            : constant(weights.wi, loc);
  Value wh = weights.whInt8 ? int8Kernel(*weights.whInt8, loc)
                            : constant(weights.wh, loc);
  Value bi = weights.bi ? constant(*weights.bi, loc) : Value();
  Value bh = weights.bh ? constant(*weights.bh, loc) : Value();
  builder.setInsertionPointToStart(block);

  // Every cell op takes `input, carries..., wi, wh, bi?, bh?` and returns
  // the new carries; the options its kind takes are attributes of the same
  // name (CellKinds.h).
  const CellKindInfo &kind = describe(cell.kind);
  OperationState state(loc, kind.opName);
  assert(state.name.isRegistered() && "a cell kind names an unknown op");
  state.addOperands(input);
  state.addOperands(block->getArguments().take_front(carries.size()));
  state.addOperands({wi, wh});
  if (bi)
    state.addOperands(bi);
  if (bh)
    state.addOperands(bh);
  // One operand each for input, the carries, wi and wh; biases optional.
  SmallVector<int32_t> segments(carries.size() + 3, 1);
  segments.append({bi ? 1 : 0, bh ? 1 : 0});
  state.addAttribute(
      OpTrait::AttrSizedOperandSegments<void>::getOperandSegmentSizeAttr(),
      builder.getDenseI32ArrayAttr(segments));
  for (const Shape &shape : carries)
    state.addTypes(activationTensor(shape));

  // A name the op does not declare would be a discardable attribute that
  // silently changes nothing.
  auto setAttr = [&](StringRef name, Attribute value) {
    assert(
        llvm::any_of(state.name.getAttributeNames(),
                     [&](StringAttr own) { return own.getValue() == name; }) &&
        "a cell option that is not an attribute of its op");
    state.addAttribute(name, value);
  };
  auto activation = [&](spec::Activation fn) {
    return rnn::ActivationAttr::get(&ctx, toDialect(fn));
  };
  if (kind.takes("gate_fn"))
    setAttr("gate_fn", activation(cell.gateFn));
  if (kind.takes("activation_fn"))
    setAttr("activation_fn", activation(cell.activationFn));
  if (kind.takes("reset_gate"))
    setAttr("reset_gate", builder.getBoolAttr(cell.resetGate));
  if (kind.takes("residual") && cell.residual)
    setAttr("residual", builder.getUnitAttr());
  // dtype bfloat16: Flax's bf16 compute, with the carries in param_dtype
  // (initialize_carry's type); absent for float32 compute.
  if (cell.dtype == spec::ElementType::BFloat16) {
    setAttr("compute_type", TypeAttr::get(toMLIRType(cell.dtype, ctx)));
    setAttr("carry_type", TypeAttr::get(toMLIRType(cell.paramDtype, ctx)));
  }
  // activations: dynamic: int8 dot products on activations quantized per
  // row at every step.
  if (cell.int8Activations)
    setAttr("dynamic_int8", builder.getUnitAttr());
  SmallVector<Value, 2> next(builder.create(state)->getResults());
  rnn::YieldOp::create(builder, loc, next, next.back());
}

OwningOpRef<ModuleOp> ModelBuilder::build() {
  Location modelLoc = locate(model.loc, model.name);
  OwningOpRef<ModuleOp> module = ModuleOp::create(modelLoc);
  builder.setInsertionPointToEnd(module->getBody());

  // Inputs: x (token ids after an Embed), lengths, then each initial carry
  // the caller passes.
  addArgument(model.takesTokens()
                  ? sequenceType({}, builder.getI32Type())
                  : sequenceType(layerInputFeatures(model, 0)),
              "x");
  if (model.seqLengths)
    addArgument(RankedTensorType::get(model.batch, builder.getI32Type()),
                "seq_lengths");
  for (auto [k, layer] : llvm::enumerate(model.layers)) {
    if (layer.initialCarry != InitialCarry::Input)
      continue;
    for (auto [dir, rnn] : llvm::enumerate(layerDirections(layer))) {
      std::vector<Shape> shapes =
          carryShapes(model, rnn->cell, layerInputFeatures(model, k));
      for (auto [shape, name] : llvm::zip(shapes, carryNames(rnn->cell)))
        addArgument(activationTensor(shape), "initial_carry/" +
                                                 directionKey(layer, dir) +
                                                 "/" + name.str());
    }
  }

  // The run-time sizes: batch dims in order, then the steps.
  for (auto [d, runtime] : llvm::enumerate(caller.runtimeBatch))
    if (runtime)
      addArgument(RankedTensorType::get({}, builder.getI32Type()),
                  (llvm::Twine(rnn::kBatchArgPrefix) + llvm::Twine(d)).str());
  if (model.runtimeTime)
    addArgument(RankedTensorType::get({}, builder.getI32Type()),
                rnn::kStepsArgName);

  auto func = func::FuncOp::create(builder, modelLoc, model.name,
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  Value lengths = model.seqLengths ? entry->getArgument(1) : Value();
  unsigned nextInitArg = model.seqLengths ? 2 : 1;
  auto takeInits = [&](const Layer &layer, const RNN &rnn) {
    SmallVector<Value> inits;
    if (layer.initialCarry == InitialCarry::Input)
      for (size_t i = 0, e = carryNames(rnn.cell).size(); i < e; ++i)
        inits.push_back(entry->getArgument(nextInitArg++));
    return inits;
  };

  Value x = entry->getArgument(0);
  auto runtimeSize = [&](unsigned arg) -> Value {
    Value count = tensor::ExtractOp::create(builder, modelLoc,
                                            entry->getArgument(arg));
    return arith::IndexCastOp::create(builder, modelLoc,
                                      builder.getIndexType(), count);
  };
  Value steps;
  if (model.runtimeTime)
    steps = runtimeSize(entry->getNumArguments() - 1);
  // The recurrent layers run the actual rows of the first batch dim (the
  // others, when run-time too, run at their maxima); rnn-runtime-rows
  // takes them on through the layers after.
  // Several batch dims are flattened into one: its rows the product.
  Value rows;
  for (auto [d, size] : llvm::enumerate(caller.batch)) {
    if (!model.isRuntimeBatch(0))
      break;
    Value dim =
        caller.isRuntimeBatch(d)
            ? runtimeSize(llvm::find(argNames,
                                     std::string(rnn::kBatchArgPrefix) +
                                         std::to_string(d)) -
                          argNames.begin())
            : arith::ConstantIndexOp::create(builder, modelLoc, size);
    rows = rows ? arith::MulIOp::create(builder, modelLoc, rows, dim) : dim;
  }
  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  UnitAttr zeroPadded =
      model.seqLengths && model.paddedOutputs == PaddedOutputs::Zeros
          ? builder.getUnitAttr()
          : UnitAttr();
  UnitAttr timeMajor = model.timeMajor ? builder.getUnitAttr() : UnitAttr();
  IntegerAttr numBatchDims = builder.getI64IntegerAttr(model.batch.size());
  // Recurrent layers whose final h a later Pool(final_carry) reads.
  llvm::SmallDenseSet<size_t> finalCarryRead;
  std::optional<size_t> lastRecurrent;
  for (auto [k, layer] : llvm::enumerate(model.layers)) {
    if (layer.isRecurrent())
      lastRecurrent = k;
    else if (layer.kind == Layer::Kind::Pool &&
             layer.poolFn == PoolFn::FinalCarry && lastRecurrent)
      finalCarryRead.insert(*lastRecurrent);
  }
  Value lastRecurrentH;
  for (auto [k, layer] : llvm::enumerate(model.layers)) {
    if (!layer.isRecurrent()) {
      x = buildLayer(k, x, lengths, lastRecurrentH);
      continue;
    }
    bool wantCarry = layer.returnCarry || finalCarryRead.contains(k);
    Location loc = locate(layer.loc, layer.name);
    Shape inputFeatures = layerInputFeatures(model, k);
    RankedTensorType outputType = sequenceType(layerOutputFeatures(model, k));
    SmallVector<Value> carries;
    if (!layer.isBidirectional()) {
      const RNN &rnn = layer.rnn;
      SmallVector<Type> types{outputType};
      if (wantCarry)
        for (const Shape &shape : carryShapes(model, rnn.cell, inputFeatures))
          types.push_back(activationTensor(shape));
      UnitAttr reverse = rnn.reverse ? builder.getUnitAttr() : UnitAttr();
      // keep_order without reverse is a no-op in Flax; the op rejects it.
      auto scan = rnn::ScanOp::create(
          builder, loc, types, x, lengths, takeInits(layer, rnn), steps, rows,
          numBatchDims,
          timeMajor, reverse, rnn.reverse && rnn.keepOrder ? reverse : UnitAttr(),
          zeroPadded, builder.getI64IntegerAttr(rnn.unroll));
      buildCellBody(scan.getBody(), rnn.cell, params[k].forward, inputFeatures,
                    locate(rnn.cell.loc, layer.name));
      x = scan.getOutputs();
      carries.append(scan.getFinalCarry().begin(), scan.getFinalCarry().end());
      if (wantCarry)
        lastRecurrentH = carries.back();
    } else {
      SmallVector<Type> types{outputType};
      SmallVector<Type> forwardTypes, backwardTypes;
      if (wantCarry) {
        for (const Shape &shape :
             carryShapes(model, layer.forward.cell, inputFeatures))
          forwardTypes.push_back(activationTensor(shape));
        for (const Shape &shape :
             carryShapes(model, layer.backward.cell, inputFeatures))
          backwardTypes.push_back(activationTensor(shape));
      }
      SmallVector<Value> forwardInit = takeInits(layer, layer.forward);
      SmallVector<Value> backwardInit = takeInits(layer, layer.backward);
      auto bidi = rnn::BidirectionalOp::create(
          builder, loc, outputType, forwardTypes, backwardTypes, x, lengths,
          forwardInit, backwardInit, rows,
          rnn::MergeAttr::get(&ctx, toDialect(layer.merge)), numBatchDims,
          timeMajor, zeroPadded,
          builder.getI64IntegerAttr(layer.forward.unroll),
          builder.getI64IntegerAttr(layer.backward.unroll));
      buildCellBody(bidi.getForward(), layer.forward.cell, params[k].forward,
                    inputFeatures, locate(layer.forward.cell.loc, layer.name));
      buildCellBody(bidi.getBackward(), layer.backward.cell,
                    *params[k].backward, inputFeatures,
                    locate(layer.backward.cell.loc, layer.name));
      x = bidi.getOutputs();
      carries.append(bidi.getForwardCarry().begin(),
                     bidi.getForwardCarry().end());
      carries.append(bidi.getBackwardCarry().begin(),
                     bidi.getBackwardCarry().end());
      if (wantCarry) {
        // Pool(final_carry) of a Bidirectional layer: both directions' h,
        // merged as the outputs are.
        Value forwardH = bidi.getForwardCarry().back();
        Value backwardH = bidi.getBackwardCarry().back();
        SmallVector<int64_t> shape(
            cast<RankedTensorType>(forwardH.getType()).getShape());
        if (layer.merge == Merge::Concat)
          shape.back() +=
              cast<RankedTensorType>(backwardH.getType()).getShape().back();
        lastRecurrentH = rnn::MergeOp::create(
            builder, loc, activationTensor(shape),
            rnn::MergeAttr::get(&ctx, toDialect(layer.merge)), forwardH,
            backwardH);
      }
    }
    if (!layer.returnCarry)
      continue;
    for (auto [dir, rnn] : llvm::enumerate(layerDirections(layer)))
      for (StringRef name : carryNames(rnn->cell))
        resultNames.push_back("carry/" + directionKey(layer, dir) + "/" +
                              name.str());
    results.append(carries.begin(), carries.end());
  }
  results.insert(results.begin(), x);
  resultNames.insert(resultNames.begin(), "y");
  func::ReturnOp::create(builder, modelLoc, results);
  func.setFunctionType(builder.getFunctionType(
      argTypes, ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(argNames))
    func.setArgAttr(i, rnn::kNameAttrName, builder.getStringAttr(name));
  for (auto [i, name] : llvm::enumerate(resultNames))
    func.setResultAttr(i, rnn::kNameAttrName, builder.getStringAttr(name));
  func->setAttr(rnn::kNumStepsAttrName,
                builder.getI64IntegerAttr(model.time));
  if (model.runtimeTime) {
    // Pools are rejected with a run-time time, so y keeps the time axis.
    IntegerAttr timeAxis = builder.getI64IntegerAttr(
        model.timeMajor ? 0 : int64_t(caller.batch.size()));
    func.setArgAttr(0, rnn::kTimeAxisAttrName, timeAxis);
    func.setResultAttr(0, rnn::kTimeAxisAttrName, timeAxis);
  }
  if (model.hasRuntimeBatch()) {
    // Every array but the sizes has the batch dims: first, or after the
    // time axis of a time-major x and y (while y has one: no Pool).
    bool pooled = llvm::any_of(model.layers, [](const Layer &layer) {
      return layer.kind == Layer::Kind::Pool;
    });
    auto axis = [&](int64_t a) { return builder.getI64IntegerAttr(a); };
    for (auto [i, name] : llvm::enumerate(argNames))
      if (name != rnn::kStepsArgName &&
          !StringRef(name).starts_with(rnn::kBatchArgPrefix))
        func.setArgAttr(i, rnn::kBatchAxisAttrName,
                        axis(i == 0 && model.timeMajor ? 1 : 0));
    for (unsigned i = 0, e = results.size(); i < e; ++i)
      func.setResultAttr(
          i, rnn::kBatchAxisAttrName,
          axis(i == 0 && model.timeMajor && !pooled ? 1 : 0));
  }
  if (model.batch.size() != caller.batch.size())
    restoreBatchDims(func);
  return module;
}

void ModelBuilder::restoreBatchDims(func::FuncOp func) {
  func->setAttr(rnn::kFlatBatchAttrName,
                builder.getI64IntegerAttr(caller.batch.size()));
  // The flattened dim at `axis` of `type` as the caller's batch dims.
  auto callerType = [&](Type type, int64_t axis) {
    auto ranked = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape(ranked.getShape());
    shape.erase(shape.begin() + axis);
    shape.insert(shape.begin() + axis, caller.batch.begin(),
                 caller.batch.end());
    return RankedTensorType::get(shape, ranked.getElementType());
  };
  auto groups = [&](int64_t rank, int64_t axis) {
    SmallVector<ReassociationIndices> indices;
    for (int64_t d = 0, e = int64_t(caller.batch.size()); d < rank; ++d) {
      ReassociationIndices group{d < axis ? d : d + (d == axis ? 0 : e - 1)};
      if (d == axis)
        for (int64_t k = 1; k < e; ++k)
          group.push_back(axis + k);
      indices.push_back(group);
    }
    return indices;
  };
  Block &entry = func.getBody().front();
  builder.setInsertionPointToStart(&entry);
  SmallVector<Type> inputs, results;
  for (BlockArgument arg : entry.getArguments()) {
    auto axis = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                   rnn::kBatchAxisAttrName);
    if (!axis) {
      inputs.push_back(arg.getType());
      continue;
    }
    auto flatType = cast<RankedTensorType>(arg.getType());
    arg.setType(callerType(flatType, axis.getInt()));
    inputs.push_back(arg.getType());
    auto collapse = tensor::CollapseShapeOp::create(
        builder, arg.getLoc(), flatType, arg,
        groups(flatType.getRank(), axis.getInt()));
    arg.replaceAllUsesExcept(collapse, collapse);
  }
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  builder.setInsertionPoint(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    auto axis = func.getResultAttrOfType<IntegerAttr>(
        operand.getOperandNumber(), rnn::kBatchAxisAttrName);
    auto flatType = cast<RankedTensorType>(operand.get().getType());
    auto type = callerType(flatType, axis.getInt());
    operand.set(tensor::ExpandShapeOp::create(
        builder, ret.getLoc(), type, operand.get(),
        groups(flatType.getRank(), axis.getInt())));
    results.push_back(type);
  }
  func.setFunctionType(builder.getFunctionType(inputs, results));
}

} // namespace

OwningOpRef<ModuleOp> rnnc::buildModelModule(MLIRContext &ctx,
                                             const Model &model,
                                             ArrayRef<LayerParams> params,
                                             const llvm::SourceMgr &sourceMgr) {
  ctx.loadDialect<rnn::RNNDialect, arith::ArithDialect, func::FuncDialect,
                  tensor::TensorDialect>();
  // Every layer maps each row of the batch dims alone, so several batch
  // dims with a run-time size run as one of the product's rows: the work
  // follows every run-time dim, and the caller's dense buffers are that
  // product's leading rows (the entry point copies them so).
  if (model.hasRuntimeBatch() && model.batch.size() > 1) {
    Model flat = model;
    int64_t rows = 1;
    for (int64_t size : model.batch)
      rows *= size;
    flat.batch = {rows};
    flat.runtimeBatch = {true};
    return ModelBuilder(ctx, flat, model, params, sourceMgr).build();
  }
  return ModelBuilder(ctx, model, model, params, sourceMgr).build();
}
