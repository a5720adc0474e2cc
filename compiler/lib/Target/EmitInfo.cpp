//===- EmitInfo.cpp - <name>_info(): what a model was built from ----------===//
//
// Every compiled model defines `const <name>_info_t *<name>_info(void)`,
// returning a static const struct: rnnc's version and git revision, the
// spec format version, the SHA-256 of the spec and weights files (lower-case
// hex), and every size the header has as a macro. One list of fields
// (infoFields) feeds the header's typedef, the LLVM dialect global of the
// object path and the C definition of the C path, so they cannot disagree.
// The struct holds char arrays and int64_t only: no pointers, so no
// relocations and no writable data (.rodata on both paths).
//
//===----------------------------------------------------------------------===//

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/IR/RNNDialect.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Target/Target.h"
#include "rnn/Version.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

using namespace mlir;
using namespace rnnc;

namespace {

using mlir::rnn::kSpecHashAttrName;
using mlir::rnn::kWeightsHashAttrName;

/// One member of <name>_info_t: a NUL-terminated char array of `length`
/// bytes (text, padded with NULs) or an int64_t (value).
struct InfoField {
  std::string name;
  int64_t length = 0; ///< 0: an int64_t
  std::string text;
  int64_t value = 0;
  std::string comment;
};

InfoField textField(StringRef name, int64_t length, StringRef text,
                    StringRef comment) {
  InfoField field;
  field.name = name.str();
  field.length = length;
  // Always room for the NUL; a longer text (a long git describe) is cut.
  field.text = text.take_front(length - 1).str();
  field.comment = comment.str();
  return field;
}

InfoField intField(StringRef name, int64_t value) {
  InfoField field;
  field.name = name.str();
  field.value = value;
  return field;
}

std::string lower(StringRef text) { return text.lower(); }

/// The fields of <name>_info_t, in order. The char arrays are multiples of
/// 8 bytes, so no member has padding before it on any ABI.
llvm::Expected<std::vector<InfoField>> infoFields(ModuleOp module,
                                                  const spec::Model &model) {
  rnn::abi::WorkspaceABI workspace = rnn::abi::describeWorkspace(module);
  auto specHash = module->getAttrOfType<StringAttr>(kSpecHashAttrName);
  auto weightsHash = module->getAttrOfType<StringAttr>(kWeightsHashAttrName);
  if (!workspace.size || !specHash || !weightsHash)
    return llvm::createStringError(
        "no workspace size or file hashes on the module");
  std::vector<InfoField> fields;
  fields.push_back(textField("rnnc_version", 32, RNNC_VERSION,
                             "rnnc's version, \"0.1.0\""));
  fields.push_back(textField("git_revision", 64, RNNC_GIT_REVISION,
                             "git describe of rnnc's sources"));
  fields.push_back(textField("spec_sha256", 72, specHash.getValue(),
                             "SHA-256 of the spec file, 64 hex digits"));
  fields.push_back(textField("weights_sha256", 72, weightsHash.getValue(),
                             "SHA-256 of the weights file, 64 hex digits"));
  fields.push_back(intField("spec_format_version", RNNC_SPEC_FORMAT_VERSION));
  fields.push_back(intField("num_batch_dims", model.batch.size()));
  for (auto [i, dim] : llvm::enumerate(model.batch))
    fields.push_back(intField("batch_dim_" + std::to_string(i), dim));
  // Per batch dim: 1 when batch_dim_<d> is a maximum (`{max: N}`).
  for (size_t i = 0; i < model.batch.size(); ++i)
    fields.push_back(intField("runtime_batch_dim_" + std::to_string(i),
                              model.isRuntimeBatch(i) ? 1 : 0));
  fields.push_back(intField("time", model.time));
  fields.push_back(intField("runtime_time", model.runtimeTime ? 1 : 0));
  fields.push_back(intField("time_major", model.timeMajor ? 1 : 0));
  spec::Shape inputFeatures = spec::layerInputFeatures(model, 0);
  fields.push_back(
      intField("input_features", spec::numElements(inputFeatures)));
  if (inputFeatures.size() > 1)
    for (auto [i, dim] : llvm::enumerate(inputFeatures))
      fields.push_back(
          intField("input_feature_dim_" + std::to_string(i), dim));
  fields.push_back(intField(
      "output_features",
      spec::numElements(
          spec::layerOutputFeatures(model, model.layers.size() - 1))));
  fields.push_back(intField(
      "output_size", spec::numElements(spec::modelOutputShape(model))));
  fields.push_back(intField("workspace_size", *workspace.size));
  fields.push_back(intField("workspace_alignment", workspace.alignment));
  // As the header's CARRY_<KEY>_<C|H>_SIZE macros.
  for (auto [k, layer] : llvm::enumerate(model.layers)) {
    for (auto [dir, rnn] : llvm::enumerate(spec::layerDirections(layer))) {
      std::string key = rnn::abi::parameterName(layer.name);
      if (layer.isBidirectional())
        key += dir == 0 ? "_forward" : "_backward";
      std::vector<spec::Shape> shapes = spec::layerCarryShapes(model, k, dir);
      for (auto [i, shape] : llvm::enumerate(shapes)) {
        StringRef part = shapes.size() == 2 && i == 0 ? "c" : "h";
        fields.push_back(intField("carry_" + lower(key) + "_" + part.str() +
                                      "_size",
                                  spec::numElements(shape)));
      }
    }
  }
  return fields;
}

/// A C string literal of `text` (printable ASCII; anything else escaped).
std::string cString(StringRef text) {
  std::string result = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      result += '\\';
      result += c;
    } else if (llvm::isPrint(c)) {
      result += c;
    } else {
      char buffer[8];
      snprintf(buffer, sizeof(buffer), "\\%03o", (unsigned char)c);
      result += buffer;
    }
  }
  return result + "\"";
}

std::string typeName(const spec::Model &model) {
  return model.name + "_info_t";
}

} // namespace

std::string rnnc::sha256Hex(StringRef bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)),
                     /*LowerCase=*/true);
}

void rnnc::setInfoHashes(ModuleOp module, StringRef specSha256,
                         StringRef weightsSha256) {
  Builder b(module.getContext());
  module->setAttr(kSpecHashAttrName, b.getStringAttr(specSha256));
  module->setAttr(kWeightsHashAttrName, b.getStringAttr(weightsSha256));
}

llvm::Error rnnc::emitInfoDeclarations(ModuleOp module,
                                       const spec::Model &model,
                                       llvm::raw_ostream &os) {
  llvm::Expected<std::vector<InfoField>> fields = infoFields(module, model);
  if (!fields)
    return fields.takeError();
  std::string prefix = StringRef(model.name).upper() + "_";
  auto text = [&](StringRef name) {
    for (const InfoField &field : *fields)
      if (field.name == name)
        return cString(field.text);
    return std::string("\"\"");
  };
  os << "/* What this model was built from (also in " << model.name
     << "_info()). */\n"
     << "#define " << prefix << "RNNC_VERSION " << text("rnnc_version")
     << "\n"
     << "#define " << prefix << "RNNC_GIT_REVISION " << text("git_revision")
     << "\n"
     << "#define " << prefix << "SPEC_FORMAT_VERSION "
     << RNNC_SPEC_FORMAT_VERSION << "\n"
     << "#define " << prefix << "SPEC_SHA256 " << text("spec_sha256") << "\n"
     << "#define " << prefix << "WEIGHTS_SHA256 " << text("weights_sha256")
     << "\n\n";
  os << "/* " << model.name
     << "_info() returns a pointer to a static const struct: the build\n"
     << " * information above and every size macro, as values (lower-case\n"
     << " * names of the macros without the " << prefix
     << " prefix). Text is NUL-terminated. */\n"
     << "typedef struct " << typeName(model) << " {\n";
  for (const InfoField &field : *fields) {
    if (field.length)
      os << "  char " << field.name << "[" << field.length << "]; /* "
         << field.comment << " */\n";
    else
      os << "  int64_t " << field.name << ";\n";
  }
  os << "} " << typeName(model) << ";\n\n"
     << "const " << typeName(model) << " *" << model.name << "_info(void);\n\n";
  return llvm::Error::success();
}

LogicalResult rnnc::addInfoToLLVMModule(ModuleOp module,
                                        const spec::Model &model) {
  llvm::Expected<std::vector<InfoField>> fields = infoFields(module, model);
  if (!fields)
    return emitError(module.getLoc()) << llvm::toString(fields.takeError());
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = b.getI64Type();
  SmallVector<Type> types;
  for (const InfoField &field : *fields)
    types.push_back(field.length
                        ? Type(LLVM::LLVMArrayType::get(b.getI8Type(),
                                                        field.length))
                        : i64);
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, types);
  std::string dataName = model.name + "_info_data";
  auto global = LLVM::GlobalOp::create(b, loc, structType, /*isConstant=*/true,
                                       LLVM::Linkage::Private, dataName,
                                       Attribute(), /*alignment=*/8);
  Block *init = b.createBlock(&global.getInitializerRegion());
  b.setInsertionPointToStart(init);
  Value value = LLVM::UndefOp::create(b, loc, structType);
  for (auto [i, field] : llvm::enumerate(*fields)) {
    Value member;
    if (field.length) {
      std::string bytes = field.text;
      bytes.resize(field.length, '\0');
      member = LLVM::ConstantOp::create(b, loc, types[i],
                                        b.getStringAttr(bytes));
    } else {
      member = LLVM::ConstantOp::create(b, loc, i64,
                                        b.getI64IntegerAttr(field.value));
    }
    value = LLVM::InsertValueOp::create(b, loc, value, member,
                                        ArrayRef<int64_t>{int64_t(i)});
  }
  LLVM::ReturnOp::create(b, loc, value);

  b.setInsertionPointToEnd(module.getBody());
  auto pointer = LLVM::LLVMPointerType::get(ctx);
  auto func = LLVM::LLVMFuncOp::create(
      b, loc, model.name + "_info", LLVM::LLVMFunctionType::get(pointer, {}));
  b.setInsertionPointToStart(func.addEntryBlock(b));
  Value address = LLVM::AddressOfOp::create(b, loc, global);
  LLVM::ReturnOp::create(b, loc, address);
  return success();
}

LogicalResult rnnc::addInfoToEmitCModule(ModuleOp module,
                                         const spec::Model &model) {
  llvm::Expected<std::vector<InfoField>> fields = infoFields(module, model);
  if (!fields)
    return emitError(module.getLoc()) << llvm::toString(fields.takeError());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "static const " << typeName(model) << " " << model.name
     << "_info_data = {";
  for (auto [i, field] : llvm::enumerate(*fields)) {
    os << (i ? ",\n    " : "\n    ");
    if (field.length)
      os << cString(field.text);
    else
      os << field.value;
  }
  os << "};\n\nconst " << typeName(model) << " *" << model.name
     << "_info(void) { return &" << model.name << "_info_data; }";
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  emitc::VerbatimOp::create(b, module.getLoc(), text);
  return success();
}
