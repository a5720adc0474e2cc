//===- SpecDiagnostics.cpp - Buffered diagnostics of one parse ------------===//

#include "SpecDiagnostics.h"

#include "rnn/Spec/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <functional>

using namespace rnnc::spec;
using namespace rnnc::spec::detail;

void SpecDiagnostics::error(llvm::SMLoc loc, const llvm::Twine &message,
                            llvm::ArrayRef<Note> notes) {
  entries.push_back({true, loc, message.str(), notes.vec()});
  ++numErrors;
}

void SpecDiagnostics::warning(llvm::SMLoc loc, const llvm::Twine &message,
                              llvm::ArrayRef<Note> notes) {
  entries.push_back({false, loc, message.str(), notes.vec()});
}

unsigned SpecDiagnostics::lineOf(llvm::SMLoc loc) const {
  if (!loc.isValid() || !sourceMgr.FindBufferContainingLoc(loc))
    return 0;
  return sourceMgr.getLineAndColumn(loc).first;
}

void SpecDiagnostics::flush() {
  // Source order; diagnostics without a location go last.
  auto key = [](const Entry &e) {
    const char *p = e.loc.getPointer();
    return p ? p : reinterpret_cast<const char *>(~uintptr_t(0));
  };
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  // Stable: equal locations keep the order they were reported in.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const char *ka = key(entries[a]), *kb = key(entries[b]);
    if (ka != kb)
      return std::less<const char *>()(ka, kb);
    return a < b;
  });

  unsigned total = 0;
  for (const Entry &e : entries)
    total += e.isError;

  unsigned emitted = 0;
  for (size_t index : order) {
    const Entry &e = entries[index];
    if (emitted == kMaxErrors)
      break;
    mlir::Location loc = toLocation(sourceMgr, e.loc, ctx);
    mlir::InFlightDiagnostic diag =
        e.isError ? mlir::emitError(loc) : mlir::emitWarning(loc);
    diag << e.message;
    for (const Note &note : e.notes) {
      if (note.loc.isValid())
        diag.attachNote(toLocation(sourceMgr, note.loc, ctx)) << note.message;
      else
        diag.attachNote() << note.message;
    }
    if (e.isError && ++emitted == kMaxErrors && total > kMaxErrors)
      diag.attachNote() << "too many errors; " << (total - kMaxErrors)
                        << " more were suppressed";
  }
  entries.clear();
}

llvm::StringRef
rnnc::spec::detail::closestMatch(llvm::StringRef value,
                                 llvm::ArrayRef<llvm::StringRef> candidates) {
  if (value.empty())
    return {};
  // The same name in another case ("Gelu" for "gelu") beats a longer name it
  // is a prefix of ("gelu_exact").
  for (llvm::StringRef c : candidates)
    if (c.equals_insensitive(value) && c != value)
      return c;
  // A prefix ("lstm" for "LSTMCell") is the strongest hint.
  if (value.size() >= 2)
    for (llvm::StringRef c : candidates)
      if (c.size() > value.size() && c.starts_with_insensitive(value))
        return c;
  llvm::StringRef best;
  unsigned bestDistance = ~0u;
  for (llvm::StringRef c : candidates) {
    unsigned d = value.edit_distance_insensitive(c, /*AllowReplacements=*/true,
                                                 /*MaxEditDistance=*/16);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  unsigned limit =
      std::max<size_t>(1, (std::max(value.size(), best.size()) + 1) / 3);
  if (best.empty() || bestDistance > limit || best == value)
    return {};
  return best;
}

std::vector<Note>
rnnc::spec::detail::didYouMean(llvm::StringRef value,
                               llvm::ArrayRef<llvm::StringRef> candidates) {
  llvm::StringRef match = closestMatch(value, candidates);
  if (match.empty())
    return {};
  return {Note{llvm::SMLoc(), ("did you mean '" + match + "'?").str()}};
}
