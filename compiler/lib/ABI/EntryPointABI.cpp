//===- EntryPointABI.cpp - The C signature of <name>_run ------------------===//

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::rnn;
using namespace mlir::rnn::abi;

std::string abi::entryPointName(StringRef model) {
  return (model + "_run").str();
}

std::string abi::macroPrefix(StringRef model) { return model.upper() + "_"; }

std::string abi::parameterName(StringRef key) {
  std::string result;
  for (char c : key)
    result += llvm::isAlnum(c) ? c : '_';
  return result;
}

namespace {
/// An element type's numpy-style name and its C type's ("" when C has
/// none: bf16, f16).
struct ElementNames {
  StringRef numpy, c;
};

std::optional<ElementNames> elementNames(Type type) {
  if (type.isBF16())
    return ElementNames{"bfloat16", ""};
  if (type.isF16())
    return ElementNames{"float16", ""};
  if (type.isF32())
    return ElementNames{"float32", "float"};
  if (type.isF64())
    return ElementNames{"float64", "double"};
  if (type.isInteger(1))
    return ElementNames{"bool", "bool"};
  static constexpr std::pair<unsigned, ElementNames> kIntegers[] = {
      {8, {"int8", "int8_t"}},
      {16, {"int16", "int16_t"}},
      {32, {"int32", "int32_t"}},
      {64, {"int64", "int64_t"}}};
  for (auto [width, names] : kIntegers)
    if (type.isSignlessInteger(width) || type.isSignedInteger(width))
      return names;
  return std::nullopt;
}
} // namespace

std::optional<StringRef> abi::cElementTypeName(Type type) {
  std::optional<ElementNames> names = elementNames(type);
  if (!names || names->c.empty())
    return std::nullopt;
  return names->c;
}

std::optional<StringRef> abi::elementTypeName(Type type) {
  std::optional<ElementNames> names = elementNames(type);
  if (!names)
    return std::nullopt;
  return names->numpy;
}

std::string WorkspaceABI::cArrayDeclaration(StringRef alignMacro,
                                            StringRef sizeMacro) {
  return (alignMacro + " " + cArrayType + " name[(" + sizeMacro + " + sizeof(" +
          cArrayType + ") - 1) / sizeof(" + cArrayType + ") + 1]")
      .str();
}

int64_t Parameter::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

FailureOr<std::string> Parameter::cPointee() const {
  if (isWorkspace())
    return std::string("void");
  std::optional<StringRef> element = cElementTypeName(elementType);
  if (!element)
    return failure();
  return (isConst() ? "const " : "") + element->str();
}

FailureOr<std::string> Parameter::cPointerType() const {
  FailureOr<std::string> pointee = cPointee();
  if (failed(pointee))
    return failure();
  return *pointee + " *";
}

WorkspaceABI abi::describeWorkspace(ModuleOp module) {
  WorkspaceABI workspace;
  if (auto size = module->getAttrOfType<IntegerAttr>(kWorkspaceSizeAttrName))
    workspace.size = size.getInt();
  workspace.alignment = workspaceAlignment(module);
  return workspace;
}

const Parameter *EntryPointABI::find(StringRef key) const {
  for (const Parameter &param : parameters)
    if (!param.isWorkspace() && param.key == key)
      return &param;
  return nullptr;
}

const Parameter *EntryPointABI::workspaceParameter() const {
  if (parameters.empty() || !parameters.back().isWorkspace())
    return nullptr;
  return &parameters.back();
}

namespace {

/// The role of an argument named `key`, from its name, direction and
/// element type.
Role roleOf(StringRef key, bool output, Type elementType) {
  if (output)
    return key.starts_with(kFinalCarryPrefix) ? Role::FinalCarry : Role::Output;
  if (key == kInputKey)
    return elementType && elementType.isInteger(32) ? Role::Tokens
                                                    : Role::Input;
  if (key == kSeqLengthsKey)
    return Role::SeqLengths;
  if (key == kStepsArgName)
    return Role::Steps;
  if (key.starts_with(kInitialPrefix))
    return Role::InitialCarry;
  int64_t dim;
  if (key.starts_with(kBatchArgPrefix) &&
      !key.drop_front(kBatchArgPrefix.size()).getAsInteger(10, dim))
    return Role::BatchSize;
  return Role::Input;
}

} // namespace

FailureOr<EntryPointABI> abi::describeEntryPoint(FunctionOpInterface entry) {
  EntryPointABI abi;
  abi.name = entry.getName().str();
  if (auto module = entry->getParentOfType<ModuleOp>())
    abi.workspace = describeWorkspace(module);
  ArrayRef<Type> types = entry.getArgumentTypes();
  for (unsigned i = 0, e = types.size(); i < e; ++i) {
    Parameter param;
    Type type = types[i];
    if (auto memref = dyn_cast<MemRefType>(type)) {
      param.elementType = memref.getElementType();
      param.shape.assign(memref.getShape().begin(), memref.getShape().end());
    } else if (auto pointer = dyn_cast<emitc::PointerType>(type)) {
      param.elementType = pointer.getPointee();
    } else {
      param.elementType = type;
    }
    bool workspace = bool(entry.getArgAttr(i, kWorkspaceAttrName));
    if (workspace && i + 1 != e)
      return entry.emitOpError("expects the workspace ('")
             << kWorkspaceAttrName << "') as its last argument";
    if (workspace) {
      param.role = Role::Workspace;
      param.key = param.cName = kWorkspaceName.str();
      abi.parameters.push_back(std::move(param));
      continue;
    }
    // Unnamed arguments (weights passed in, in tests) have no C name; the
    // header rejects them.
    if (auto name = entry.getArgAttrOfType<StringAttr>(i, kNameAttrName))
      param.key = name.getValue().str();
    param.cName = parameterName(param.key);
    bool output = bool(entry.getArgAttr(i, kOutputAttrName));
    param.role = roleOf(param.key, output, param.elementType);
    if (param.role == Role::BatchSize) {
      int64_t dim = 0;
      (void)StringRef(param.key)
          .drop_front(kBatchArgPrefix.size())
          .getAsInteger(10, dim);
      param.batchSizeOf = dim;
    }
    if (auto axis = entry.getArgAttrOfType<IntegerAttr>(i, kTimeAxisAttrName))
      param.timeAxis = axis.getInt();
    if (auto axis = entry.getArgAttrOfType<IntegerAttr>(i, kBatchAxisAttrName))
      param.batchAxis = axis.getInt();
    abi.parameters.push_back(std::move(param));
  }
  // The generated code copies every initial carry into the workspace (the
  // scan's loop-carried state) before the first step and writes the final
  // carries after the last, so an in-place update reads the old state
  // before it writes the new one.
  llvm::StringMap<unsigned> finalCarries;
  for (auto [i, param] : llvm::enumerate(abi.parameters))
    if (param.isOutput())
      finalCarries[param.key] = i;
  for (auto [i, param] : llvm::enumerate(abi.parameters)) {
    StringRef key = param.key;
    if (param.role != Role::InitialCarry || !key.consume_front(kInitialPrefix))
      continue;
    auto it = finalCarries.find(key);
    if (it == finalCarries.end())
      continue;
    param.mayAlias = it->second;
    abi.parameters[it->second].mayAlias = i;
  }
  return abi;
}

FailureOr<EntryPointABI> abi::describeEntryPoint(ModuleOp module,
                                                 StringRef model) {
  std::string name = entryPointName(model);
  auto entry = dyn_cast_if_present<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(module, name));
  if (!entry)
    return emitError(module.getLoc(), "no entry point '") << name << "'";
  return describeEntryPoint(entry);
}
