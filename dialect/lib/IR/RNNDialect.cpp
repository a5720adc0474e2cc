//===- RNNDialect.cpp - The rnn dialect -----------------------------------===//

#include "rnn/IR/RNNDialect.h"
#include "rnn/IR/RNNOps.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rnn;

#include "rnn/IR/RNNDialect.cpp.inc"
#include "rnn/IR/RNNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "rnn/IR/RNNAttrs.cpp.inc"

void RNNDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "rnn/IR/RNNAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rnn/IR/RNNOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// The rnn.* discardable attributes
//===----------------------------------------------------------------------===//

namespace {

/// An error for `attr` unless it is an integer attribute holding at least
/// `least`.
LogicalResult verifyInteger(Operation *op, NamedAttribute attr,
                            int64_t least) {
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value || !value.getType().isSignlessInteger())
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be an integer attribute";
  if (value.getInt() < least)
    return op->emitError() << "'" << attr.getName().getValue() << "' must be at least "
                           << least << ", found " << value.getInt();
  return success();
}

LogicalResult verifyUnit(Operation *op, NamedAttribute attr) {
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be a unit attribute";
  return success();
}

/// rnn.name: a non-empty string.
LogicalResult verifyName(Operation *op, NamedAttribute attr) {
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be a non-empty string";
  return success();
}

/// rnn.time_axis, rnn.batch_axis on a value of `type`: an axis of it (once
/// the value is a pointer, of the array it points to, which the type no
/// longer shows).
LogicalResult verifyAxis(Operation *op, NamedAttribute attr, Type type) {
  if (failed(verifyInteger(op, attr, 0)))
    return failure();
  int64_t axis = cast<IntegerAttr>(attr.getValue()).getInt();
  auto shaped = dyn_cast<ShapedType>(type);
  if (shaped && (!shaped.hasRank() || axis >= shaped.getRank()))
    return op->emitError() << "'" << attr.getName().getValue() << "' " << axis
                           << " is not an axis of " << type;
  return success();
}

/// rnn.spec_sha256, rnn.weights_sha256: 64 lower-case hex digits, or empty
/// when there is no file (weights given in memory).
LogicalResult verifySha256(Operation *op, NamedAttribute attr) {
  auto hash = dyn_cast<StringAttr>(attr.getValue());
  if (hash && hash.getValue().empty())
    return success();
  if (!hash || hash.getValue().size() != 64 ||
      !llvm::all_of(hash.getValue(), [](char c) {
        return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
      }))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be a SHA-256 in lower-case hex (or empty)";
  return success();
}

} // namespace

LogicalResult RNNDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto on = [&](StringRef what, bool ok) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' belongs on " << what;
  };
  if (name == kNumStepsAttrName)
    return failed(on("a function", isa<FunctionOpInterface>(op)))
               ? failure()
               : verifyInteger(op, attr, 1);
  if (name == kFlatBatchAttrName)
    return failed(on("a function", isa<FunctionOpInterface>(op)))
               ? failure()
               : verifyInteger(op, attr, 2);
  if (name == kTimeBlockBatchAttrName)
    return failed(on("a function", isa<FunctionOpInterface>(op)))
               ? failure()
               : verifyInteger(op, attr, 1);
  if (name == kWorkspaceSizeAttrName)
    return failed(on("the module", isa<ModuleOp>(op)))
               ? failure()
               : verifyInteger(op, attr, 0);
  if (name == kWorkspaceAlignmentAttrName) {
    if (failed(on("the module", isa<ModuleOp>(op))) ||
        failed(verifyInteger(op, attr, 1)))
      return failure();
    if (!llvm::isPowerOf2_64(cast<IntegerAttr>(attr.getValue()).getInt()))
      return op->emitError() << "'" << name << "' must be a power of two";
    return success();
  }
  if (name == kSpecHashAttrName || name == kWeightsHashAttrName)
    return failed(on("the module", isa<ModuleOp>(op))) ? failure()
                                                       : verifySha256(op, attr);
  if (name == kBF16OperandsAttrName)
    return failed(on("a linalg.matmul",
                     op->getName().getStringRef() == "linalg.matmul"))
               ? failure()
               : verifyUnit(op, attr);
  if (name == kExactFMAAttrName)
    return failed(on("a math.fma or llvm.intr.fma",
                     op->getName().getStringRef() == "math.fma" ||
                         op->getName().getStringRef() == "llvm.intr.fma"))
               ? failure()
               : verifyUnit(op, attr);
  if (name == kNameAttrName || name == kOutputAttrName ||
      name == kTimeAxisAttrName || name == kBatchAxisAttrName ||
      name == kWorkspaceAttrName)
    return op->emitError() << "'" << name
                           << "' belongs on a function's arguments or results";
  return op->emitError() << "unknown attribute '" << name << "'";
}

LogicalResult RNNDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kNameAttrName)
    return verifyName(op, attr);
  if (name == kOutputAttrName || name == kWorkspaceAttrName)
    return verifyUnit(op, attr);
  if (name == kTimeAxisAttrName || name == kBatchAxisAttrName) {
    Region &region = op->getRegion(regionIndex);
    Type type = region.empty()
                    ? cast<FunctionOpInterface>(op).getArgumentTypes()[argIndex]
                    : region.getArgument(argIndex).getType();
    return verifyAxis(op, attr, type);
  }
  return op->emitError() << "'" << name
                         << "' is not an attribute of a function's arguments";
}

LogicalResult RNNDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kNameAttrName)
    return verifyName(op, attr);
  if (name == kTimeAxisAttrName || name == kBatchAxisAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function)
      return op->emitError() << "'" << name << "' belongs on a function";
    return verifyAxis(op, attr, function.getResultTypes()[resultIndex]);
  }
  return op->emitError() << "'" << name
                         << "' is not an attribute of a function's results";
}
