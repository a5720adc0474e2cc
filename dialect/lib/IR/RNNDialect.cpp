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
//
// Each is a contract between stages (docs/Architecture.md, "Attributes
// between stages"): checked here where it may appear, so that a pass which puts
// one in the wrong place or with the wrong value fails verification instead
// of silently changing what a later pass does. Messages say what was
// expected and what was found.

namespace {

/// An error on `op` about the attribute `attr`: "'rnn.x' <message>".
InFlightDiagnostic attrError(Operation *op, NamedAttribute attr) {
  return op->emitError() << "'" << attr.getName().getValue() << "' ";
}

/// `attr` is an integer of at least `least`.
LogicalResult verifyInteger(Operation *op, NamedAttribute attr,
                            int64_t least) {
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value || !value.getType().isSignlessInteger())
    return attrError(op, attr)
           << "expects an integer, found " << attr.getValue();
  if (value.getInt() < least)
    return attrError(op, attr) << "must be at least " << least << ", found "
                               << value.getInt();
  return success();
}

LogicalResult verifyUnit(Operation *op, NamedAttribute attr) {
  if (!isa<UnitAttr>(attr.getValue()))
    return attrError(op, attr)
           << "expects a unit attribute, found " << attr.getValue();
  return success();
}

/// `op` is where `attr` belongs: `what` names the place.
LogicalResult verifyPlace(Operation *op, NamedAttribute attr, bool isRight,
                          StringRef what) {
  if (isRight)
    return success();
  return attrError(op, attr) << "belongs on " << what << ", found on '"
                             << op->getName() << "'";
}

/// rnn.name: a non-empty string.
LogicalResult verifyName(Operation *op, NamedAttribute attr) {
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name || name.getValue().empty())
    return attrError(op, attr)
           << "expects a non-empty string, found " << attr.getValue();
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
    return attrError(op, attr)
           << "expects an axis of " << type << ", found " << axis;
  return success();
}

/// rnn.workspace on argument `argIndex` of `function`: a unit attribute on
/// the function's single buffer of bytes that every allocation is carved
/// from, a 1-D i8 memref (`memref<?xi8>` until rnn-assign-workspace gives it
/// its size; once the lowering makes it a pointer, the type no longer shows
/// the array).
LogicalResult verifyWorkspace(FunctionOpInterface function, unsigned argIndex,
                              NamedAttribute attr) {
  Operation *op = function;
  if (failed(verifyUnit(op, attr)))
    return failure();
  Type type = function.getArgumentTypes()[argIndex];
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!isa<MemRefType>(shaped) || shaped.getRank() != 1 ||
        !shaped.getElementType().isSignlessInteger(8))
      return attrError(op, attr)
             << "expects a 1-D i8 memref argument, found " << type;
  }
  for (unsigned i = 0; i < argIndex; ++i)
    if (function.getArgAttr(i, attr.getName()))
      return attrError(op, attr)
             << "expects one workspace argument, found arguments " << i
             << " and " << argIndex;
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
    return attrError(op, attr)
           << "expects 64 lower-case hex digits or an empty string, found "
           << attr.getValue();
  return success();
}

bool isNamed(Operation *op, StringRef name) {
  return op->getName().getStringRef() == name;
}

} // namespace

LogicalResult RNNDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  bool isFunction = isa<FunctionOpInterface>(op);
  bool isModule = isa<ModuleOp>(op);
  if (name == kNumStepsAttrName || name == kTimeBlockBatchAttrName ||
      name == kColumnSplitAttrName)
    return success(
        succeeded(verifyPlace(op, attr, isFunction, "a function")) &&
        succeeded(verifyInteger(op, attr, 1)));
  if (name == kFlatBatchAttrName)
    return success(
        succeeded(verifyPlace(op, attr, isFunction, "a function")) &&
        succeeded(verifyInteger(op, attr, 2)));
  if (name == kWorkspaceSizeAttrName)
    return success(succeeded(verifyPlace(op, attr, isModule, "the module")) &&
                   succeeded(verifyInteger(op, attr, 0)));
  if (name == kWorkspaceAlignmentAttrName) {
    if (failed(verifyPlace(op, attr, isModule, "the module")) ||
        failed(verifyInteger(op, attr, 1)))
      return failure();
    int64_t alignment = cast<IntegerAttr>(attr.getValue()).getInt();
    if (!llvm::isPowerOf2_64(alignment))
      return attrError(op, attr)
             << "must be a power of two, found " << alignment;
    return success();
  }
  if (name == kSpecHashAttrName || name == kWeightsHashAttrName)
    return success(succeeded(verifyPlace(op, attr, isModule, "the module")) &&
                   succeeded(verifySha256(op, attr)));
  if (name == kExactFMAAttrName)
    return success(
        succeeded(verifyPlace(op, attr,
                              isNamed(op, "math.fma") ||
                                  isNamed(op, "llvm.intr.fma"),
                              "a math.fma or llvm.intr.fma")) &&
        succeeded(verifyUnit(op, attr)));
  if (name == kNameAttrName || name == kTimeAxisAttrName ||
      name == kBatchAxisAttrName)
    return verifyPlace(op, attr, false, "a function's arguments or results");
  if (name == kOutputAttrName || name == kWorkspaceAttrName)
    return verifyPlace(op, attr, false, "a function's arguments");
  return op->emitError() << "unknown attribute '" << name
                         << "' (RNNDialect.h lists the rnn attributes)";
}

LogicalResult RNNDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  // Only functions (FunctionOpInterface's verifier) call this hook.
  auto function = cast<FunctionOpInterface>(op);
  if (name == kNameAttrName)
    return verifyName(op, attr);
  if (name == kOutputAttrName)
    return verifyUnit(op, attr);
  if (name == kWorkspaceAttrName)
    return verifyWorkspace(function, argIndex, attr);
  if (name == kTimeAxisAttrName || name == kBatchAxisAttrName)
    return verifyAxis(op, attr, function.getArgumentTypes()[argIndex]);
  return attrError(op, attr) << "is not an attribute of a function's arguments";
}

LogicalResult RNNDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  // Only functions (FunctionOpInterface's verifier) call this hook.
  auto function = cast<FunctionOpInterface>(op);
  if (name == kNameAttrName)
    return verifyName(op, attr);
  if (name == kTimeAxisAttrName || name == kBatchAxisAttrName)
    return verifyAxis(op, attr, function.getResultTypes()[resultIndex]);
  return attrError(op, attr) << "is not an attribute of a function's results";
}
