//===- SpecEnums.h - The spec's enums as the rnn dialect's ------*- C++ -*-===//
//
// The spec's `Activation` and `Merge` (Spec/Model.h) list the enumerators of
// RNNEnums.td in the same order, so the dialect's value is a cast. The front
// end keeps its own spelling because the generated enums' stringify and
// symbolize are compiled into the dialect library, which the spec, the
// reference and their tests do not link. The asserts below keep the two
// lists in step, and tests/unit/Import/SpecEnumsTest.cpp their names.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_IMPORT_SPECENUMS_H
#define RNN_IMPORT_SPECENUMS_H

#include "rnn/IR/RNNOps.h"
#include "rnn/Spec/Model.h"

#include <cstdint>

namespace rnnc {

namespace detail {
template <typename Spec, typename Dialect>
constexpr bool sameValue(Spec spec, Dialect dialect) {
  return static_cast<uint32_t>(spec) == static_cast<uint32_t>(dialect);
}
} // namespace detail

/// `fn` as the dialect's activation.
inline mlir::rnn::Activation toDialect(spec::Activation fn) {
  using A = spec::Activation;
  using D = mlir::rnn::Activation;
  static_assert(
      detail::sameValue(A::Sigmoid, D::sigmoid) &&
          detail::sameValue(A::HardSigmoid, D::hard_sigmoid) &&
          detail::sameValue(A::Tanh, D::tanh) &&
          detail::sameValue(A::HardTanh, D::hard_tanh) &&
          detail::sameValue(A::Relu, D::relu) &&
          detail::sameValue(A::Elu, D::elu) &&
          detail::sameValue(A::Silu, D::silu) &&
          detail::sameValue(A::Identity, D::identity) &&
          detail::sameValue(A::Gelu, D::gelu) &&
          detail::sameValue(A::GeluExact, D::gelu_exact) &&
          detail::sameValue(A::Softmax, D::softmax) &&
          detail::sameValue(A::LogSoftmax, D::log_softmax) &&
          detail::sameValue(A::Softplus, D::softplus) &&
          detail::sameValue(A::LeakyRelu, D::leaky_relu) &&
          detail::sameValue(A::LeakyRelu,
                            mlir::rnn::getMaxEnumValForActivation()),
      "spec::Activation must list RNNEnums.td's Activation in its order");
  return static_cast<D>(fn);
}

/// `merge` as the dialect's merge.
inline mlir::rnn::Merge toDialect(spec::Merge merge) {
  using M = spec::Merge;
  using D = mlir::rnn::Merge;
  static_assert(detail::sameValue(M::Concat, D::concat) &&
                    detail::sameValue(M::Add, D::add) &&
                    detail::sameValue(M::Mul, D::mul) &&
                    detail::sameValue(M::Mean, D::mean) &&
                    detail::sameValue(M::Mean,
                                      mlir::rnn::getMaxEnumValForMerge()),
                "spec::Merge must list RNNEnums.td's Merge in its order");
  return static_cast<D>(merge);
}

} // namespace rnnc

#endif // RNN_IMPORT_SPECENUMS_H
