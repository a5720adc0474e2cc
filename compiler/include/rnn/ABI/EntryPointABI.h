//===- EntryPointABI.h - The C signature of <name>_run ----------*- C++ -*-===//
//
// The one description of a model's C entry point: its parameters (C name,
// role, element type, shape, const-ness, which initial carry may share a
// buffer with which final carry) and its workspace (size, alignment). It is
// computed from the entry function that --rnn-create-entry-point builds (its
// `rnn.name`, `rnn.output`, `rnn.workspace`, `rnn.time_axis`,
// `rnn.batch_axis` argument attributes) and read by everything that spells
// the ABI out: the entry point's noalias, the C path's signature
// (--rnn-emit-c-entry-abi), the header and its inline wrappers
// (Target/Emit*.cpp), and the driver that calls the compiled model.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_ABI_ENTRYPOINTABI_H
#define RNN_ABI_ENTRYPOINTABI_H

#include "rnn/ABI/Runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::rnn::abi {

/// The keys (`rnn.name`) the ABI gives a role besides `steps` and
/// `batch_<d>` (kStepsArgName, kBatchArgPrefix in RNNDialect.h).
constexpr llvm::StringLiteral kInputKey = "x";
constexpr llvm::StringLiteral kOutputKey = "y";
constexpr llvm::StringLiteral kSeqLengthsKey = "seq_lengths";
/// A final carry's key starts so ("carry/enc/h"); the initial carry that
/// may share its buffer has the same key behind kInitialPrefix.
constexpr llvm::StringLiteral kFinalCarryPrefix = "carry/";
constexpr llvm::StringLiteral kInitialPrefix = "initial_";
/// The C name of the workspace parameter.
constexpr llvm::StringLiteral kWorkspaceName = "workspace";

/// The alignment (bytes) the entry point checks the workspace for: that of
/// the float and int32 buffers carved out of it, which every load and store
/// the generated code makes assumes and no more (vector accesses are
/// unaligned). The module's rnn.workspace_alignment (a cache line) is
/// faster.
constexpr int64_t kMinWorkspaceAlignment = 4;

/// `<model>_run`.
std::string entryPointName(llvm::StringRef model);
/// `<MODEL>_`, the prefix of the header's macros.
std::string macroPrefix(llvm::StringRef model);
/// The C parameter name for the key `key` ("carry/enc/forward/h" ->
/// "carry_enc_forward_h").
std::string parameterName(llvm::StringRef key);
/// The C name of an element type ("float", "int32_t", ...), if it has one.
std::optional<llvm::StringRef> cElementTypeName(Type type);
/// numpy's name of an element type ("float32", "bfloat16", "int32", ...),
/// if it has one: the header's prose names types so, as the spec does.
std::optional<llvm::StringRef> elementTypeName(Type type);

/// What a parameter of the entry point is to the caller.
enum class Role {
  Input,        ///< x (float features)
  Tokens,       ///< x as int32 token ids (a model starting with an Embed)
  SeqLengths,   ///< int32 sequence lengths
  InitialCarry, ///< initial_carry/<key>
  BatchSize,    ///< batch_<d>: the int32 run-time size of batch dim d
  Steps,        ///< steps: the int32 run-time number of steps
  Output,       ///< y
  FinalCarry,   ///< carry/<key>
  Workspace,    ///< the caller's scratch memory (void *)
};

struct Parameter {
  Role role;
  /// rnn.name; kWorkspaceName for the workspace; empty for an argument
  /// without one, which has no place in the C ABI.
  std::string key;
  std::string cName; ///< the C parameter name
  /// The element type (the pointee's type on EmitC); i8 for the workspace.
  Type elementType;
  /// The model's maximum shape; empty where the function's types have none
  /// (EmitC pointers).
  SmallVector<int64_t> shape;
  /// With a run-time number of steps: the axis of `shape` the caller's
  /// buffer holds *steps of (rnn.time_axis).
  std::optional<int64_t> timeAxis;
  /// With a run-time batch: the axis of the first batch dim of `shape`
  /// (rnn.batch_axis); the caller's buffer is dense for the actual sizes.
  std::optional<int64_t> batchAxis;
  /// Role::BatchSize: the batch dim d of `batch_<d>`.
  std::optional<int64_t> batchSizeOf;
  /// The index of the parameter that may be the same buffer: an initial
  /// carry and its final carry (an in-place state update); every other
  /// pair of parameters must not overlap.
  std::optional<unsigned> mayAlias;

  bool isOutput() const {
    return role == Role::Output || role == Role::FinalCarry;
  }
  bool isWorkspace() const { return role == Role::Workspace; }
  bool isNamed() const { return !key.empty(); }
  /// Read only: every input (the workspace is written).
  bool isConst() const { return !isOutput() && !isWorkspace(); }
  int64_t numElements() const;
  /// What the C parameter points to: "const float", "float",
  /// "const int32_t", "void"; fails for an element type without a C name.
  FailureOr<std::string> cPointee() const;
  /// The C parameter's type: cPointee() + " *".
  FailureOr<std::string> cPointerType() const;
};

/// The workspace the module's entry points need.
struct WorkspaceABI {
  /// Bytes (rnn.workspace_size), once --rnn-assign-workspace has run.
  std::optional<int64_t> size;
  /// The alignment the header recommends (rnn.workspace_alignment).
  int64_t alignment;
  /// The alignment the entry point checks for.
  static constexpr int64_t minAlignment = kMinWorkspaceAlignment;
  /// The C type of the array the header's WORKSPACE macros declare: the
  /// float buffers', whose alignment is minAlignment.
  static constexpr llvm::StringLiteral cArrayType = "float";
  /// The C declaration of such an array `name` of at least `sizeMacro`
  /// bytes, aligned by the macro `alignMacro` (the header's WORKSPACE
  /// macros, serial and parallel).
  static std::string cArrayDeclaration(llvm::StringRef alignMacro,
                                       llvm::StringRef sizeMacro);
};

WorkspaceABI describeWorkspace(ModuleOp module);

/// The C ABI of one entry point: its parameters in order (inputs, outputs,
/// the workspace last) and the module's workspace.
struct EntryPointABI {
  std::string name;
  SmallVector<Parameter> parameters;
  WorkspaceABI workspace;

  /// The parameter with key `key`, if any.
  const Parameter *find(llvm::StringRef key) const;
  /// The workspace parameter, the last (null on a function without one,
  /// which is not an entry point of --rnn-create-entry-point).
  const Parameter *workspaceParameter() const;
};

/// Describes `entry` (a func.func on memrefs or an emitc.func on pointers,
/// after --rnn-create-entry-point); an error on `entry` when the workspace
/// is not its last argument.
FailureOr<EntryPointABI> describeEntryPoint(FunctionOpInterface entry);

/// Describes `<model>_run` in `module`; an error on the module when there
/// is none.
FailureOr<EntryPointABI> describeEntryPoint(ModuleOp module,
                                            llvm::StringRef model);

} // namespace mlir::rnn::abi

#endif // RNN_ABI_ENTRYPOINTABI_H
