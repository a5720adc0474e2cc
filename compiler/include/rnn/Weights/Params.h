//===- Params.h - Weights in rnnc's canonical fused layout ------*- C++ -*-===//
//
// Flax stores a cell's weights per gate and names them per API (linen `hi`,
// nnx `dense_h`, ...). Binding (Binding.h) checks them against the spec and
// rearranges every cell into one fused layout that the reference
// implementation and MLIR generation both read:
//
//   gi = x @ wi (+ bi)      wi: (I, G*H)   bi: (G*H)   [optional]
//   gh = h @ wh (+ bh)      wh: (H, G*H)   bh: (G*H)   [optional]
//
// with the G gate blocks of H columns each in the order of the cell kind's
// `gates` (CellKinds.cpp), and each array present iff Flax stores some
// param of it (CellKindInfo::linen, ::nnx); a gate block Flax has no bias
// for is zeros (GRUCell's bh = [0, 0, bhn]). Convolutional cells' kernels
// have kernel_size in front: wi (*k, I, G*F), wh (*k, F, G*F).
//
// Zero bias blocks are exact (x + 0.0f == x), so the fused form computes what
// Flax's per-gate form computes.
//
// Every Tensor carries the element type the compiled model stores it in,
// set where its values are made: reading a weights file (a bfloat16 array is
// bfloat16, every other float array float32), binding (a cell's params in
// its Cell::storedParamType(), rounded to bfloat16 there; every other
// layer's float32) and quantization (the dequantized kernels, float32).
// Values stay floats whatever the type (bfloat16 values are exact floats),
// so the reference reads them as they are, and MLIRGen builds each constant
// in the tensor's type.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_WEIGHTS_PARAMS_H
#define RNN_WEIGHTS_PARAMS_H

#include "rnn/Spec/ElementType.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rnnc {

/// A dense array in row-major order, its values as floats (exact for every
/// element type).
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  spec::ElementType elementType = spec::ElementType::Float32;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

/// A param tree flattened to '/'-joined Flax paths, sorted for determinism.
using ParamTree = std::map<std::string, Tensor>;

/// One cell's weights in the fused layout described above.
/// A kernel quantized to int8 (`quantize: {weights: int8}`), symmetric per
/// output column (Quantize.h): `values` row-major in the float kernel's
/// shape, one scale per column; value * scale is the weight it stands for.
struct Int8Kernel {
  std::vector<int64_t> shape;
  std::vector<int8_t> values;
  std::vector<float> scales;
};

/// With int8 weights, `wi` and `wh` hold the dequantized weights (what the
/// model computes with, for the reference) and `wiInt8`/`whInt8` the int8
/// values and scales the compiled model stores.
struct CellParams {
  Tensor wi;
  std::optional<Tensor> bi;
  Tensor wh;
  std::optional<Tensor> bh;
  std::optional<Int8Kernel> wiInt8, whInt8;
};

/// The weights of one spec layer: `forward` is the only cell of an RNN layer.
/// The other layers keep Flax's own arrays (Dense `kernel` (in, features)
/// and `bias` (features); Embed `embedding` (num_embeddings, features);
/// LayerNorm `scale` and `bias` (features)), each present iff the layer has
/// it.
struct LayerParams {
  CellParams forward;
  std::optional<CellParams> backward; ///< Bidirectional only
  std::optional<Tensor> kernel;       ///< Dense (dequantized if int8)
  std::optional<Int8Kernel> kernelInt8; ///< Dense, quantize: {weights: int8}
  std::optional<Tensor> bias;         ///< Dense, LayerNorm
  std::optional<Tensor> scale;        ///< LayerNorm
  std::optional<Tensor> embedding;    ///< Embed
};

} // namespace rnnc

#endif // RNN_WEIGHTS_PARAMS_H
