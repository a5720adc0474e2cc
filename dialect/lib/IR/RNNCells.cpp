//===- RNNCells.cpp - Verifiers of the cell ops ---------------------------===//
//
// A verifier failure on IR built from a spec is an rnnc bug: the spec checker
// rejects user mistakes first. The messages still say what was expected and
// what was found, for people writing or transforming IR by hand.
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/IR/RNNShapes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::rnn;

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Checks that every operand has the input's element type.
static LogicalResult verifyElementTypes(Operation *op) {
  Type expected = getElementTypeOrSelf(op->getOperand(0).getType());
  for (OpOperand &operand : op->getOpOperands()) {
    Type found = getElementTypeOrSelf(operand.get().getType());
    if (found != expected)
      return op->emitOpError("expects every operand to have element type ")
             << expected << ", got " << found << " for operand #"
             << operand.getOperandNumber();
  }
  return success();
}

/// Dense cells with float kernels. The operand constraints (RNNTypes.td)
/// allow f32 and bf16 each; between operands: the activations (input and
/// carries) have one element type, the params (`params`: kernels and biases,
/// absent ones null) one too, and theirs is the activations' or, with f32
/// activations, bf16 (Flax's `param_dtype=bfloat16`: the params are widened
/// exactly where they are read, and the maths is f32).
static LogicalResult verifyFloatParams(Operation *op, ArrayRef<Value> params) {
  Type activations = getElementTypeOrSelf(op->getOperand(0).getType());
  Type paramType = getElementTypeOrSelf(params.front().getType());
  for (OpOperand &operand : op->getOpOperands()) {
    Type found = getElementTypeOrSelf(operand.get().getType());
    bool isParam = llvm::is_contained(params, operand.get());
    if (!isParam && found != activations)
      return op->emitOpError("expects every activation (input, carries) to "
                             "have the input's element type ")
             << activations << ", got " << found << " for operand #"
             << operand.getOperandNumber();
    if (isParam && found != paramType)
      return op->emitOpError("expects every param to have the element type "
                             "of 'wi', ")
             << paramType << ", got " << found << " for operand #"
             << operand.getOperandNumber();
  }
  if (paramType != activations && !(paramType.isBF16() && activations.isF32()))
    return op->emitOpError("expects params of the activations' element type ")
           << activations << " (or bf16 with f32 activations), got "
           << paramType;
  return success();
}

bool mlir::rnn::isInt8PerChannelType(Type type) {
  auto quant = dyn_cast<quant::UniformQuantizedPerAxisType>(type);
  if (!quant || !quant.isSigned() || !quant.getStorageType().isInteger(8) ||
      quant.getStorageTypeMin() != -127 || quant.getStorageTypeMax() != 127 ||
      !quant.getExpressedType().isF32())
    return false;
  return llvm::all_of(quant.getZeroPoints(),
                      [](int64_t zero) { return zero == 0; });
}

int64_t mlir::rnn::kernelStorageBytes(ShapedType kernel) {
  Type element = kernel.getElementType();
  int64_t bits = 0;
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    bits = quantized.getStorageTypeIntegralWidth();
  else
    bits = element.getIntOrFloatBitWidth();
  return kernel.getNumElements() * bits / 8;
}

/// Dense cells with int8 kernels (`quantize: {weights: int8}`): both kernels
/// quantized along their last dim (one scale per column), everything else
/// f32 (activations, biases: weight-only quantization).
static LogicalResult verifyInt8Kernels(Operation *op, Value wi, Value wh) {
  for (auto [name, kernel] : {std::pair<StringRef, Value>{"wi", wi},
                              std::pair<StringRef, Value>{"wh", wh}}) {
    auto type = cast<RankedTensorType>(kernel.getType());
    auto quant = dyn_cast<quant::UniformQuantizedPerAxisType>(
        type.getElementType());
    if (!quant)
      return op->emitOpError("expects both kernels int8 when one is, got ")
             << type.getElementType() << " for '" << name << "'";
    if (quant.getQuantizedDimension() != type.getRank() - 1 ||
        int64_t(quant.getScales().size()) != type.getShape().back())
      return op->emitOpError("expects '")
             << name << "' quantized along its last dim with one scale per "
             << "column (" << type.getShape().back() << "), got axis "
             << quant.getQuantizedDimension() << " with "
             << quant.getScales().size() << " scales";
  }
  for (OpOperand &operand : op->getOpOperands()) {
    if (operand.get() == wi || operand.get() == wh)
      continue;
    Type found = getElementTypeOrSelf(operand.get().getType());
    if (!found.isF32())
      return op->emitOpError("expects f32 activations and biases with int8 "
                             "kernels, got ")
             << found << " for operand #" << operand.getOperandNumber();
  }
  return success();
}

/// Checks that the cell's gate and activation functions act element-wise
/// (softmax and log_softmax normalize over an axis; a cell cannot use them).
static LogicalResult verifyElementwiseActivations(Operation *op) {
  for (NamedAttribute attr : op->getAttrs())
    if (auto fn = dyn_cast<ActivationAttr>(attr.getValue()))
      if (fn.getValue() == Activation::softmax ||
          fn.getValue() == Activation::log_softmax)
        return op->emitOpError("expects an element-wise '")
               << attr.getName().getValue() << "', got "
               << stringifyActivation(fn.getValue());
  return success();
}

/// Checks `value` (when present) has exactly `shape`.
static LogicalResult verifyShape(Operation *op, StringRef name, Value value,
                                 ArrayRef<int64_t> shape, StringRef meaning) {
  if (!value || shapeOf(value) == shape)
    return success();
  return op->emitOpError("expects '")
         << name << "' of shape " << formatShape(shape) << " (" << meaning
         << "), got " << formatShape(shapeOf(value));
}

/// Whether `fn` gives bf16 values on bf16 values: the activations whose
/// bf16 rounding points rnnc knows (sigmoid and tanh round their result;
/// the others are exact).
static bool hasBF16Semantics(Activation fn) {
  switch (fn) {
  case Activation::sigmoid:
  case Activation::tanh:
  case Activation::relu:
  case Activation::hard_tanh:
  case Activation::identity:
    return true;
  default:
    return false;
  }
}

/// Reduced-precision compute (`compute_type`, `carry_type`): bf16 maths on
/// f32 tensors, with the carries held as bf16 or f32 values; only with f32
/// activations, and only with activations rnnc knows the bf16 rounding of.
static LogicalResult verifyComputeType(Operation *op) {
  auto compute = op->getAttrOfType<TypeAttr>("compute_type");
  auto carry = op->getAttrOfType<TypeAttr>("carry_type");
  if (!compute) {
    if (carry)
      return op->emitOpError("expects 'carry_type' only with 'compute_type'");
    return success();
  }
  if (!compute.getValue().isBF16())
    return op->emitOpError("expects 'compute_type' bf16, got ")
           << compute.getValue();
  if (!getElementTypeOrSelf(op->getOperand(0).getType()).isF32())
    return op->emitOpError("expects f32 activations with 'compute_type' bf16");
  if (!carry || !(carry.getValue().isBF16() || carry.getValue().isF32()))
    return op->emitOpError(
        "expects 'carry_type' bf16 or f32 with 'compute_type' bf16");
  for (NamedAttribute attr : op->getAttrs())
    if (auto fn = dyn_cast<ActivationAttr>(attr.getValue()))
      if (!hasBF16Semantics(fn.getValue()))
        return op->emitOpError("expects a '")
               << attr.getName().getValue()
               << "' of sigmoid, tanh, relu, hard_tanh or identity with "
                  "'compute_type' bf16, got "
               << stringifyActivation(fn.getValue());
  return success();
}

/// Dense gated cells: input (*B, I), carry (*B, H), wi (I, G*H),
/// wh (H, G*H), biases (G*H).
static LogicalResult verifyGatedCell(Operation *op, int64_t gates, Value input,
                                     Value carry, Value wi, Value wh, Value bi,
                                     Value bh) {
  ArrayRef<int64_t> inputShape = shapeOf(input), carryShape = shapeOf(carry);
  if (inputShape.empty())
    return op->emitOpError("expects an input of rank >= 1, got a scalar");
  if (inputShape.size() != carryShape.size())
    return op->emitOpError("expects input and carry of the same rank, got ")
           << inputShape.size() << " and " << carryShape.size();
  if (inputShape.drop_back() != carryShape.drop_back())
    return op->emitOpError("expects input and carry with the same batch "
                           "dims, got ")
           << formatShape(inputShape.drop_back()) << " and "
           << formatShape(carryShape.drop_back());
  int64_t inFeatures = inputShape.back(), features = carryShape.back();
  int64_t columns = gates * features;
  std::string cols = std::to_string(gates) + " gates x " +
                     std::to_string(features) + " features";
  // A projected input is the step's product by `wi` (rnn.project; in bf16
  // compute its bf16 values, rows and sums rounded), whose own input
  // features only `wi` still shows.
  bool projected = op->hasAttr("projected_input");
  if (projected) {
    if (inFeatures != columns)
      return op->emitOpError("expects a projected input of ")
             << columns << " features (" << cols << "), got " << inFeatures;
    ArrayRef<int64_t> wiShape = shapeOf(wi);
    inFeatures = wiShape.empty() ? 0 : wiShape.front();
  }
  if (failed(verifyShape(op, "wi", wi, {inFeatures, columns},
                         "input features by " + cols)) ||
      failed(verifyShape(op, "wh", wh, {features, columns},
                         "features by " + cols)) ||
      failed(verifyShape(op, "bi", bi, {columns}, cols)) ||
      failed(verifyShape(op, "bh", bh, {columns}, cols)) ||
      failed(verifyElementwiseActivations(op)) ||
      failed(verifyComputeType(op)))
    return failure();
  bool int8 = isInt8PerChannelType(getElementTypeOrSelf(wi.getType())) ||
              isInt8PerChannelType(getElementTypeOrSelf(wh.getType()));
  // Dynamic int8 activations quantize f32 activations against int8 kernels.
  if (op->hasAttr("dynamic_int8") &&
      (!int8 || op->hasAttr("compute_type")))
    return op->emitOpError("expects int8 kernels and f32 compute with "
                           "'dynamic_int8'");
  if (int8)
    return verifyInt8Kernels(op, wi, wh);
  return verifyFloatParams(op, {wi, wh, bi, bh});
}

LogicalResult mlir::rnn::verifyDenseCell(CellOpInterface cell) {
  return verifyGatedCell(cell, cell.getNumGates(), cell.getInput(),
                         cell.getCarries().back(), cell.getInputKernel(),
                         cell.getHiddenKernel(), cell.getInputBias(),
                         cell.getHiddenBias());
}

LogicalResult SimpleCellOp::verify() {
  // Flax's bf16 step gives a bf16 h' for an f32 carry unless the residual
  // adds the f32 h back: no consistent carry type otherwise.
  if (auto carry = getCarryTypeAttr())
    if (carry.getValue().isF32() && !getResidual())
      return emitOpError("expects 'residual' with 'compute_type' bf16 and "
                         "'carry_type' f32 (the step's h' is bf16 otherwise)");
  return verifyDenseCell(*this);
}

/// Convolutional cell: input (*B, *S, C), carry (*B, *S, F),
/// wi (*K, C, 4F), wh (*K, F, 4F), biases (4F).
LogicalResult ConvLSTMCellOp::verify() {
  ArrayRef<int64_t> wiShape = shapeOf(getWi());
  if (wiShape.size() < 3)
    return emitOpError("expects 'wi' of rank >= 3 (kernel dims, input "
                       "channels, 4 x features), got rank ")
           << wiShape.size();
  int64_t spatial = getNumSpatialDims();
  ArrayRef<int64_t> inputShape = shapeOf(getInput()),
                    carryShape = shapeOf(getH());
  if (static_cast<int64_t>(inputShape.size()) < spatial + 1)
    return emitOpError("expects an input of rank >= ")
           << spatial + 1 << " (spatial dims, channels), got rank "
           << inputShape.size();
  if (inputShape.size() != carryShape.size())
    return emitOpError("expects input and carry of the same rank, got ")
           << inputShape.size() << " and " << carryShape.size();
  if (inputShape.drop_back() != carryShape.drop_back())
    return emitOpError("expects input and carry with the same batch and "
                       "spatial dims, got ")
           << formatShape(inputShape.drop_back()) << " and "
           << formatShape(carryShape.drop_back());
  int64_t channels = inputShape.back(), features = carryShape.back();
  SmallVector<int64_t> expectedWi(wiShape.take_front(spatial));
  expectedWi.append({channels, kNumGates * features});
  SmallVector<int64_t> expectedWh(wiShape.take_front(spatial));
  expectedWh.append({features, kNumGates * features});
  std::string cols = "4 gates x " + std::to_string(features) + " features";
  if (failed(verifyShape(*this, "wi", getWi(), expectedWi,
                         "kernel dims, input channels, " + cols)) ||
      failed(verifyShape(*this, "wh", getWh(), expectedWh,
                         "kernel dims of 'wi', features, " + cols)) ||
      failed(verifyShape(*this, "bi", getBi(), {kNumGates * features}, cols)) ||
      failed(verifyShape(*this, "bh", getBh(), {kNumGates * features}, cols)))
    return failure();
  return verifyElementTypes(*this);
}
