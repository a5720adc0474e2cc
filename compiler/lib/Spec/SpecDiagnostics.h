//===- SpecDiagnostics.h - Buffered diagnostics of one parse ----*- C++ -*-===//
//
// Collects the errors and warnings of one parseModel call, then emits them
// through MLIR's engine in source order, capped at kMaxErrors errors.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_SPEC_SPECDIAGNOSTICS_H
#define RNN_LIB_SPEC_SPECDIAGNOSTICS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace rnnc::spec::detail {

/// A note attached to a diagnostic; an invalid `loc` means "at the
/// diagnostic's own location".
struct Note {
  llvm::SMLoc loc;
  std::string message;
};

class SpecDiagnostics {
public:
  SpecDiagnostics(const llvm::SourceMgr &sourceMgr, mlir::MLIRContext &ctx)
      : sourceMgr(sourceMgr), ctx(ctx) {}

  void error(llvm::SMLoc loc, const llvm::Twine &message,
             llvm::ArrayRef<Note> notes = {});
  void warning(llvm::SMLoc loc, const llvm::Twine &message,
               llvm::ArrayRef<Note> notes = {});

  bool hadError() const { return numErrors != 0; }

  /// The 1-based line of `loc` in its buffer (0 if unknown), for messages
  /// that mention a second place.
  unsigned lineOf(llvm::SMLoc loc) const;

  /// Emits everything collected so far, sorted by location (stable), and
  /// clears the buffer. After kMaxErrors errors nothing more is emitted and the
  /// last emitted error gets a note counting the suppressed ones.
  void flush();

private:
  struct Entry {
    bool isError;
    llvm::SMLoc loc;
    std::string message;
    std::vector<Note> notes;
  };

  const llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext &ctx;
  std::vector<Entry> entries;
  unsigned numErrors = 0;
};

/// The candidate closest to `value` (case-insensitive edit distance, or a
/// prefix match), or "" if none is close enough to suggest.
llvm::StringRef closestMatch(llvm::StringRef value,
                             llvm::ArrayRef<llvm::StringRef> candidates);

/// A "did you mean 'X'?" note for `value`, or no note.
std::vector<Note> didYouMean(llvm::StringRef value,
                             llvm::ArrayRef<llvm::StringRef> candidates);

} // namespace rnnc::spec::detail

#endif // RNN_LIB_SPEC_SPECDIAGNOSTICS_H
