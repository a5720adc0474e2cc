//===- EmitStream.cpp - The streaming API in a model's header -------------===//
//
// With `input.stream: true` the entry point takes every layer's initial
// carry and returns every final carry, and runs a run-time number of steps
// (a chunk). The header then wraps it: <name>_state holds the carries, and
// <name>_stream runs one chunk with the state as both the initial and the
// final carries (arguments that may alias, see --rnn-create-entry-point).
// The wrappers are static inline C, so both code paths share them and a
// chunked stream runs exactly the code of one call.
//
//===----------------------------------------------------------------------===//

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/Target/Target.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace rnnc;
using rnn::abi::Parameter;
using rnn::abi::Role;

llvm::Error rnnc::emitStreamDeclarations(const rnn::abi::EntryPointABI &entry,
                                         const spec::Model &model,
                                         llvm::raw_ostream &os) {
  if (!model.stream)
    return llvm::Error::success();
  std::string prefix = rnn::abi::macroPrefix(model.name);
  // Each carry's offset (in floats) in the state, in parameter order, under
  // its final carry's key.
  llvm::StringMap<int64_t> offsets;
  int64_t floats = 0;
  std::string layout;
  // The state holds the carries in their own C type (the entry point's).
  std::optional<StringRef> carryType;
  for (const Parameter &param : entry.parameters) {
    StringRef key = param.key;
    if (param.role != Role::InitialCarry ||
        !key.consume_front(rnn::abi::kInitialPrefix) ||
        !key.starts_with(rnn::abi::kFinalCarryPrefix))
      continue;
    std::optional<StringRef> type =
        rnn::abi::cElementTypeName(param.elementType);
    if (!type || (carryType && *carryType != *type))
      return llvm::createStringError(
          "a streamed model whose carries have no one C type");
    carryType = type;
    offsets[key] = floats;
    int64_t size = param.numElements();
    layout += " *   " + key.str() + ": floats " + std::to_string(floats) +
              ".." + std::to_string(floats + size - 1) + "\n";
    floats += size;
  }
  if (floats == 0)
    return llvm::createStringError("a streamed model without carries");

  std::string state = model.name + "_state";
  os << "/* Streaming. A " << state << " holds every layer's carries\n"
     << " * between chunks of one sequence; " << model.name
     << "_stream runs the next\n"
     << " * 0.." << prefix << "TIME steps (a chunk) from it and leaves the "
     << "carries after\n"
     << " * them in it. Any chunking of a sequence gives bit for bit the "
        "outputs\n"
     << " * and carries of one call over all of it. Treat the struct as "
        "opaque;\n"
     << " * its size is " << prefix << "STATE_SIZE bytes. Layout (for "
     << model.name << "_state_init):\n"
     << layout << " */\n"
     << "#define " << prefix << "STATE_FLOATS " << floats << "\n"
     << "typedef struct " << state << " {\n  " << *carryType
     << " carries[" << floats
     << "];\n} " << state << ";\n"
     << "#define " << prefix << "STATE_SIZE sizeof(" << state << ")\n\n";
  os << "/* Starts a stream: the carries from `carries` (" << prefix
     << "STATE_FLOATS floats\n"
     << " * in the layout above) or zeros when it is NULL. Returns "
     << prefix << "OK, or\n"
     << " * " << prefix << "ERROR_ARGUMENT when `state` is NULL. */\n"
     << "static inline int32_t " << model.name << "_state_init(" << state
     << " *state,\n    const " << *carryType << " *carries) {\n"
     << "  int32_t i;\n"
     << "  if (!state)\n    return " << prefix << "ERROR_ARGUMENT;\n"
     << "  for (i = 0; i < " << prefix << "STATE_FLOATS; ++i)\n"
     << "    state->carries[i] = carries ? carries[i] : 0;\n"
     << "  return " << prefix << "OK;\n}\n\n";

  os << "/* Runs the next `steps` (0.." << prefix
     << "TIME) steps of the stream in `state`:\n"
     << " * x_chunk and y_chunk are x and y of " << model.name
     << "_run for `steps` steps\n"
     << " * (dense for that count). Returns " << model.name
     << "_run's status; on an error\n"
     << " * neither the state nor y_chunk is written. */\n"
     << "int32_t " << entry.name << "(";
  // The declaration of the entry point comes after this block in the
  // header; the wrapper needs it first.
  bool first = true;
  std::string call, xType, yType;
  for (const Parameter &param : entry.parameters) {
    FailureOr<std::string> type = param.cPointerType();
    if (failed(type))
      return llvm::createStringError("no C type for '" + param.key + "'");
    std::string arg;
    StringRef key = param.key;
    if (param.isWorkspace()) {
      arg = param.cName;
    } else if (key == rnn::abi::kInputKey) {
      arg = "x_chunk";
      xType = *type;
    } else if (key == rnn::abi::kOutputKey) {
      arg = "y_chunk";
      yType = *type;
    } else if (param.role == Role::Steps) {
      arg = "&steps";
    } else if (key.consume_front(rnn::abi::kInitialPrefix) ||
               param.role == Role::FinalCarry) {
      arg = "state->carries + " + std::to_string(offsets.lookup(key));
    } else {
      return llvm::createStringError("a streamed model with the input '" +
                                     param.key + "'");
    }
    os << (first ? "" : ", ") << *type;
    call += (first ? "" : ",\n      ") + arg;
    first = false;
  }
  if (xType.empty() || yType.empty())
    return llvm::createStringError("a streamed model without x or y");
  os << ");\n"
     << "static inline int32_t " << model.name << "_stream(" << state
     << " *state,\n    " << xType << "x_chunk, int32_t steps, " << yType
     << "y_chunk, void *workspace) {\n"
     << "  if (!state)\n    return " << prefix << "ERROR_ARGUMENT;\n"
     << "  return " << entry.name << "(" << call << ");\n}\n\n";
  return llvm::Error::success();
}
