//===- Parser.h - Reading and checking a model spec -------------*- C++ -*-===//
//
// Turns a YAML (or JSON) spec, described in docs/SpecFormat.md, into the
// checked, defaults-applied `Model`. Every user mistake is reported through
// MLIR's diagnostic engine as `file:line:col: error: message` (with notes
// such as "did you mean 'LSTMCell'?"), so tools can print them with
// mlir::SourceMgrDiagnosticHandler and tests can use --verify-diagnostics.
//
// Decisions the format leaves open (see docs/SpecFormat.md for the details):
//  - `reverse`, `keep_order` and `return_carry` inside a Bidirectional's
//    `forward_rnn` / `backward_rnn` are accepted and ignored, as Flax ignores
//    them; a value that differs from what Bidirectional forces (forward:
//    reverse=false; backward: reverse=true, keep_order=true; both:
//    return_carry=true) gets a warning.
//  - `unroll` larger than `time` is accepted (Flax accepts it) and clamped to
//    `time` in the Model.
//  - `keep_order: true` without `reverse: true` is accepted with a warning.
//  - A layer without `name` is named `layers_<k>`, as Flax names the k-th
//    module of a `self.layers = [...]` list built in `setup`.
//  - Errors are reported in source order, at most 20 per run; the 20th gets
//    a note saying how many more were suppressed. A YAML syntax error stops
//    the parse (it is the only error reported).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_SPEC_PARSER_H
#define RNN_SPEC_PARSER_H

#include "rnn/Spec/Model.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace rnnc::spec {

/// The maximum number of errors one parse reports.
constexpr unsigned kMaxErrors = 20;

/// Parses and checks the spec in buffer `bufferId` of `sourceMgr`. Reports
/// every problem through `ctx`'s diagnostic engine; returns std::nullopt if any
/// error was reported (warnings do not fail). Never asserts or crashes, for any
/// input bytes.
std::optional<Model> parseModel(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                mlir::MLIRContext &ctx);

/// The location of `loc` as a FileLineColLoc (buffer identifier as the file
/// name, 1-based line and column), or UnknownLoc if `loc` is invalid or in no
/// buffer of `sourceMgr`.
mlir::Location toLocation(const llvm::SourceMgr &sourceMgr, llvm::SMLoc loc,
                          mlir::MLIRContext &ctx);

} // namespace rnnc::spec

#endif // RNN_SPEC_PARSER_H
