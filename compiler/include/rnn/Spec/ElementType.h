//===- ElementType.h - The element types a model's values have -*- C++ -*-===//
//
// One enum for every element type the front end names: the spec's
// `param_dtype` and `dtype` (model-wide and per cell), a bound param's type
// (Tensor in Weights/Params.h) and the model's activations
// (Model::activationType). MLIRGen maps it to an MLIR type in one place.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_SPEC_ELEMENTTYPE_H
#define RNN_SPEC_ELEMENTTYPE_H

namespace rnnc::spec {

/// A floating-point element type. Values of either are held as float on the
/// way to MLIR (bfloat16 values are exact floats).
enum class ElementType { Float32, BFloat16 };

/// numpy's name for `type`, as the spec spells it: "float32", "bfloat16".
const char *stringify(ElementType type);

/// The bytes one value of `type` takes when stored: 4, 2.
int byteWidth(ElementType type);

} // namespace rnnc::spec

#endif // RNN_SPEC_ELEMENTTYPE_H
