//===- CellKinds.cpp - One description of each cell kind ------------------===//
//
// A new cell kind is one row here (and its enumerator in CellKinds.h). The
// Flax params are those of flax.linen.recurrent and flax.nnx.nn.recurrent,
// in the order the cells create them.
//
//===----------------------------------------------------------------------===//

#include "rnn/Spec/CellKinds.h"
#include "rnn/Spec/Model.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <iterator>

using namespace rnnc::spec;
using llvm::ArrayRef;
using llvm::StringRef;

namespace {

constexpr FusedArray Wi = FusedArray::Wi, Wh = FusedArray::Wh,
                     Bi = FusedArray::Bi, Bh = FusedArray::Bh;

constexpr StringRef kCommonKeys[] = {"type", "features", "dtype", "param_dtype",
                                     "params"};

constexpr StringRef kGatedKeys[] = {"gate_fn", "activation_fn"};
constexpr StringRef kMGUKeys[] = {"gate_fn", "activation_fn", "reset_gate"};
constexpr StringRef kSimpleKeys[] = {"activation_fn", "residual"};
constexpr StringRef kConvKeys[] = {"kernel_size", "use_bias", "padding",
                                   "strides"};

constexpr StringRef kCH[] = {"c", "h"};
constexpr StringRef kH[] = {"h"};

constexpr StringRef kLSTMGates[] = {"i", "f", "g", "o"};
constexpr StringRef kGRUGates[] = {"r", "z", "n"};
constexpr StringRef kMGUGates[] = {"f", "n"};
constexpr StringRef kSimpleGates[] = {"h"};
constexpr StringRef kConvLSTMGates[] = {"i", "g", "f", "o"}; // Flax's order

// LSTMCell (and linen's OptimizedLSTMCell): input kernels without bias,
// hidden kernels with.
constexpr FlaxParam kLSTMLinen[] = {
    {"ii/kernel", Wi, "i"}, {"if/kernel", Wi, "f"}, {"ig/kernel", Wi, "g"},
    {"io/kernel", Wi, "o"}, {"hi/kernel", Wh, "i"}, {"hi/bias", Bh, "i"},
    {"hf/kernel", Wh, "f"}, {"hf/bias", Bh, "f"},   {"hg/kernel", Wh, "g"},
    {"hg/bias", Bh, "g"},   {"ho/kernel", Wh, "o"}, {"ho/bias", Bh, "o"}};
// nnx spells `if` as `if_`.
constexpr FlaxParam kLSTMNNX[] = {
    {"ii/kernel", Wi, "i"}, {"if_/kernel", Wi, "f"}, {"ig/kernel", Wi, "g"},
    {"io/kernel", Wi, "o"}, {"hi/kernel", Wh, "i"},  {"hi/bias", Bh, "i"},
    {"hf/kernel", Wh, "f"}, {"hf/bias", Bh, "f"},    {"hg/kernel", Wh, "g"},
    {"hg/bias", Bh, "g"},   {"ho/kernel", Wh, "o"},  {"ho/bias", Bh, "o"}};
constexpr FlaxParam kOptimizedLSTMNNX[] = {{"dense_i/kernel", Wi, ""},
                                           {"dense_h/kernel", Wh, ""},
                                           {"dense_h/bias", Bh, ""}};
// GRUCell: input biases, and of the hidden side only hn's.
constexpr FlaxParam kGRULinen[] = {
    {"ir/kernel", Wi, "r"}, {"ir/bias", Bi, "r"},   {"iz/kernel", Wi, "z"},
    {"iz/bias", Bi, "z"},   {"in/kernel", Wi, "n"}, {"in/bias", Bi, "n"},
    {"hr/kernel", Wh, "r"}, {"hz/kernel", Wh, "z"}, {"hn/kernel", Wh, "n"},
    {"hn/bias", Bh, "n"}};
constexpr FlaxParam kGRUNNX[] = {{"dense_i/kernel", Wi, ""},
                                 {"dense_i/bias", Bi, ""},
                                 {"dense_h/kernel", Wh, ""}};
constexpr FlaxParam kMGULinen[] = {{"if/kernel", Wi, "f"},
                                   {"if/bias", Bi, "f"},
                                   {"hf/kernel", Wh, "f"},
                                   {"hn/kernel", Wh, "n"},
                                   {"hn/bias", Bh, "n", &Cell::resetGate},
                                   {"in/kernel", Wi, "n"},
                                   {"in/bias", Bi, "n"}};
constexpr FlaxParam kSimpleLinen[] = {
    {"i/kernel", Wi, ""}, {"i/bias", Bi, ""}, {"h/kernel", Wh, ""}};
constexpr FlaxParam kSimpleNNX[] = {{"dense_i/kernel", Wi, ""},
                                    {"dense_i/bias", Bi, ""},
                                    {"dense_h/kernel", Wh, ""}};
constexpr FlaxParam kConvLSTMLinen[] = {{"ih/kernel", Wi, ""},
                                        {"ih/bias", Bi, "", &Cell::useBias},
                                        {"hh/kernel", Wh, ""},
                                        {"hh/bias", Bh, "", &Cell::useBias}};

constexpr ArrayRef<FlaxParam> kNotInLayout;

constexpr CellKindInfo kCellKinds[] = {
    {CellKind::LSTM, "LSTMCell", "rnn.lstm_cell", kGatedKeys, kLSTMGates, kCH,
     /*convolutional=*/false, /*lowPrecision=*/true, kLSTMLinen, kLSTMNNX},
    // The same maths as LSTMCell on the same params (fused in nnx).
    {CellKind::OptimizedLSTM, "OptimizedLSTMCell", "rnn.lstm_cell", kGatedKeys,
     kLSTMGates, kCH, false, true, kLSTMLinen, kOptimizedLSTMNNX},
    {CellKind::GRU, "GRUCell", "rnn.gru_cell", kGatedKeys, kGRUGates, kH, false,
     true, kGRULinen, kGRUNNX},
    {CellKind::MGU, "MGUCell", "rnn.mgu_cell", kMGUKeys, kMGUGates, kH, false,
     true, kMGULinen, kNotInLayout},
    {CellKind::Simple, "SimpleCell", "rnn.simple_cell", kSimpleKeys,
     kSimpleGates, kH, false, true, kSimpleLinen, kSimpleNNX},
    // Its convolutions keep float32 kernels and compute.
    {CellKind::ConvLSTM, "ConvLSTMCell", "rnn.conv_lstm_cell", kConvKeys,
     kConvLSTMGates, kCH, true, false, kConvLSTMLinen, kNotInLayout},
};

constexpr bool rowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kCellKinds); ++i)
    if (size_t(kCellKinds[i].kind) != i)
      return false;
  return true;
}
static_assert(rowsInEnumOrder(), "one row per CellKind, in its order");

} // namespace

bool CellKindInfo::takes(StringRef key) const {
  return llvm::is_contained(kCommonKeys, key) || llvm::is_contained(keys, key);
}

std::optional<ArrayRef<FlaxParam>>
CellKindInfo::params(ParamsLayout layout) const {
  ArrayRef<FlaxParam> stored = layout == ParamsLayout::NNX ? nnx : linen;
  if (stored.empty())
    return std::nullopt;
  return stored;
}

ArrayRef<CellKindInfo> rnnc::spec::cellKinds() { return kCellKinds; }

const CellKindInfo &rnnc::spec::describe(CellKind kind) {
  return kCellKinds[size_t(kind)];
}

const char *rnnc::spec::stringify(CellKind kind) {
  return describe(kind).name.data();
}

int64_t rnnc::spec::numGates(CellKind kind) {
  return describe(kind).numGates();
}

std::string rnnc::spec::cellKindsIn(ParamsLayout layout) {
  llvm::SmallVector<StringRef> names;
  for (const CellKindInfo &info : kCellKinds)
    if (info.params(layout))
      names.push_back(info.name);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      text += i + 1 == names.size() ? " and " : ", ";
    text += names[i].str();
  }
  return text;
}
