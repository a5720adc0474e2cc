//===- SpecTestUtils.h - Parsing specs in unit tests ------------*- C++ -*-===//

#ifndef RNN_TESTS_UNIT_SPEC_SPECTESTUTILS_H
#define RNN_TESTS_UNIT_SPEC_SPECTESTUTILS_H

#include "rnn/Spec/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace rnnc::spec::test {

/// What parseModel returned, and everything it printed (rendered as rnnc
/// would: "spec.yaml:L:C: error: ...", source line, caret).
struct ParseResult {
  std::optional<Model> model;
  std::string diagnostics;
};

inline ParseResult parse(llvm::StringRef text) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "spec.yaml"), llvm::SMLoc());
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  ParseResult result;
  llvm::raw_string_ostream os(result.diagnostics);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, os);
  result.model = parseModel(sourceMgr, 1, ctx);
  // Locations point into the buffer, which dies here: drop them.
  return result;
}

/// Occurrences of `needle` in `haystack`.
inline size_t count(llvm::StringRef haystack, llvm::StringRef needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != llvm::StringRef::npos;
       pos = haystack.find(needle, pos + needle.size()))
    ++n;
  return n;
}

/// The example spec of docs/SpecFormat.md.
inline constexpr const char *kExampleSpec = R"(rnnc: 1
name: kws
dtype: float32
params_layout: linen
input:
  batch: [8]
  time: 100
  features: 40
  time_major: false
  seq_lengths: true
layers:
  - type: Bidirectional
    name: enc
    forward_rnn:  {cell: {type: LSTMCell, features: 64}}
    backward_rnn: {cell: {type: GRUCell, features: 64}}
    merge_fn: concat
    return_carry: true
  - type: RNN
    name: dec
    cell:
      type: GRUCell
      features: 48
      gate_fn: sigmoid
      params: dec/cell
    reverse: false
    keep_order: false
    unroll: 4
    return_carry: true
    initial_carry: zeros
)";

} // namespace rnnc::spec::test

#endif // RNN_TESTS_UNIT_SPEC_SPECTESTUTILS_H
