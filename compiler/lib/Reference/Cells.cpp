//===- Cells.cpp - One step of every cell, for one batch row --------------===//
//
// Weights are in the fused layout of Params.h:
//   gi = x @ wi (+ bi),  gh = h @ wh (+ bh),  G gate blocks of H columns.
//
//===----------------------------------------------------------------------===//

#include "Cells.h"
#include "Arrays.h"

#include "rnn/Spec/ModelShapes.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace rnnc;
using namespace rnnc::reference;
using namespace rnnc::reference::detail;
using spec::Activation;
using spec::CellKind;

double detail::activate(Activation fn, double x) {
  switch (fn) {
  case Activation::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case Activation::HardSigmoid:
    return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
  case Activation::Tanh:
    return std::tanh(x);
  case Activation::HardTanh:
    return std::min(std::max(x, -1.0), 1.0);
  case Activation::Relu:
    return std::max(x, 0.0);
  case Activation::Elu:
    return x > 0.0 ? x : std::expm1(x);
  case Activation::Silu:
    return x / (1.0 + std::exp(-x));
  case Activation::Identity:
    return x;
  case Activation::Gelu: {
    // jax.nn.gelu(approximate=True).
    const double k = std::sqrt(2.0 / 3.14159265358979323846);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }
  case Activation::GeluExact:
    return x * (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0;
  case Activation::Softplus:
    // jnp.logaddexp(x, 0), without overflow for large |x|.
    return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x)));
  case Activation::LeakyRelu:
    return x >= 0.0 ? x : 0.01 * x;
  case Activation::Softmax:
  case Activation::LogSoftmax:
    // Not element-wise: applyActivation (Head.h) normalizes over the last
    // axis and checkLayer keeps them out of cells; NaN makes a misuse loud.
    return std::nan("");
  }
  return x;
}


static double sigmoid(double x) { return activate(Activation::Sigmoid, x); }


//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<int64_t>>
detail::carryShape(const spec::Cell &cell, llvm::ArrayRef<int64_t> input,
                   const llvm::Twine &what) {
  if (cell.features <= 0)
    return makeError("expected positive features for " + what + ", found " +
                     llvm::Twine(cell.features));
  if (!spec::describe(cell.kind).convolutional) {
    if (input.size() != 1)
      return makeError("expected per-step inputs of rank 1 for " + what + " (" +
                       stringify(cell.kind) + "), found shape " +
                       shapeString(input));
    return std::vector<int64_t>{cell.features};
  }
  size_t rank = cell.kernelSize.size();
  if (rank == 0 || input.size() != rank + 1)
    return makeError("expected per-step inputs of rank " +
                     llvm::Twine(rank + 1) + " ([spatial..., channels]) for " +
                     what + " (kernel_size of rank " + llvm::Twine(rank) +
                     "), found shape " + shapeString(input));
  for (int64_t k : cell.kernelSize)
    if (k <= 0)
      return makeError("expected positive kernel sizes for " + what +
                       ", found " + shapeString(cell.kernelSize));
  std::vector<int64_t> shape(input.begin(), input.end() - 1);
  shape.push_back(cell.features);
  return shape;
}

llvm::Error detail::checkCellParams(const spec::Cell &cell,
                                    const CellParams &params,
                                    llvm::ArrayRef<int64_t> input,
                                    const llvm::Twine &what) {
  int64_t cols = spec::numGates(cell.kind) * cell.features;
  std::vector<int64_t> wiShape, whShape;
  if (spec::describe(cell.kind).convolutional) {
    wiShape = concat(cell.kernelSize, {input.back(), cols});
    whShape = concat(cell.kernelSize, {cell.features, cols});
  } else {
    wiShape = {input[0], cols};
    whShape = {cell.features, cols};
  }
  if (auto err = checkTensor(params.wi, wiShape, what + " input kernel 'wi'"))
    return err;
  if (auto err = checkTensor(params.wh, whShape, what + " hidden kernel 'wh'"))
    return err;
  if (params.bi)
    if (auto err = checkTensor(*params.bi, {cols}, what + " input bias 'bi'"))
      return err;
  if (params.bh)
    if (auto err = checkTensor(*params.bh, {cols}, what + " hidden bias 'bh'"))
      return err;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Dense cells
//===----------------------------------------------------------------------===//

/// v @ w (+ b) for a fused weight w of shape (n, cols).
static std::vector<double> affine(const double *v, int64_t n, const Tensor &w,
                                  const std::optional<Tensor> &b) {
  int64_t cols = w.shape[1];
  std::vector<double> y(cols, 0.0);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < cols; ++j)
      y[j] += v[k] * static_cast<double>(w.data[k * cols + j]);
  if (b)
    for (int64_t j = 0; j < cols; ++j)
      y[j] += static_cast<double>(b->data[j]);
  return y;
}

/// v @ w (+ b) with dynamic int8 activations
/// (docs/Semantics.md#dynamic-int8-activations): v, as the float32 values
/// rnnc holds, quantized with its own scale max|v| / 127 (float32 maths, as
/// rnnc does it), the int8 products summed exactly, the sum times the row's
/// and the column's scale.
static std::vector<double> affineDynamicInt8(const double *v, int64_t n,
                                             const Int8Kernel &w,
                                             const std::optional<Tensor> &b) {
  int64_t cols = w.shape[1];
  float max = 0.0f;
  for (int64_t k = 0; k < n; ++k)
    max = std::max(max, std::fabs(static_cast<float>(v[k])));
  float scale = max / 127.0f, factor = max > 0.0f ? 127.0f / max : 0.0f;
  std::vector<int64_t> sums(cols, 0);
  for (int64_t k = 0; k < n; ++k) {
    float q = std::nearbyint(static_cast<float>(v[k]) * factor);
    int64_t qk = static_cast<int64_t>(std::min(std::max(q, -127.0f), 127.0f));
    for (int64_t j = 0; j < cols; ++j)
      sums[j] += qk * w.values[k * cols + j];
  }
  std::vector<double> y(cols);
  for (int64_t j = 0; j < cols; ++j)
    y[j] = static_cast<double>(sums[j]) * scale * w.scales[j] +
           (b ? static_cast<double>(b->data[j]) : 0.0);
  return y;
}

/// B(v): \p v rounded to bfloat16 (to float32 first, as XLA rounds the
/// float32 result of each bf16 op; then to nearest, ties to even; NaN kept).
/// Written out here so the reference shares no rounding code with rnnc.
static double bf16(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(f))
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// One step of a `dtype: bfloat16` dense cell, rounding exactly where
/// docs/Semantics.md#bfloat16-compute says Flax (XLA CPU) rounds; every
/// operation is double. The params are bf16 values already (binding rounds
/// them). `bf16Carries` is `param_dtype: bfloat16`: the carries are bf16
/// values and the whole tail rounds; with float32 carries the gates that
/// meet them are unrounded and the tail is exact.
static void stepDenseBF16(const spec::Cell &cell, const CellParams &params,
                          int64_t inputSize, const double *x, Carry &carry) {
  const int64_t hs = cell.features;
  const bool bf16Carries = cell.paramDtype == spec::ElementType::BFloat16;
  std::vector<double> xr(x, x + inputSize), hr(carry.h);
  for (double &v : xr)
    v = bf16(v);
  for (double &v : hr)
    v = bf16(v);
  // Each Dense: B(v @ w), then B(+ b).
  auto dense = [&](const std::vector<double> &v, const Tensor &w,
                   const std::optional<Tensor> &b) {
    std::vector<double> y = affine(v.data(), v.size(), w, std::nullopt);
    for (size_t j = 0; j < y.size(); ++j)
      y[j] = b ? bf16(bf16(y[j]) + b->data[j]) : bf16(y[j]);
    return y;
  };
  std::vector<double> gi = dense(xr, params.wi, params.bi);
  std::vector<double> gh = dense(hr, params.wh, params.bh);
  // An activation without its final rounding: XLA's bf16 logistic rounds
  // exp and the sum, not the quotient; the others are one op (or exact).
  auto actU = [](spec::Activation fn, double v) {
    if (fn != Activation::Sigmoid)
      return activate(fn, v);
    return 1.0 / bf16(1.0 + bf16(std::exp(-v)));
  };
  auto gateU = [&](double v) { return actU(cell.gateFn, v); };
  auto gate = [&](double v) { return bf16(gateU(v)); };
  auto act = [&](double v) { return bf16(actU(cell.activationFn, v)); };
  auto pre = [&](int64_t k, int64_t j) {
    return bf16(gi[k * hs + j] + gh[k * hs + j]);
  };
  // GRU's and MGU's `(1 - z) * n + z * h`.
  auto interpolate = [&](double zu, double n, double h) {
    double z = bf16(zu), keep = bf16(1.0 - z);
    if (!bf16Carries)
      return keep * n + zu * h;
    return bf16(bf16(keep * n) + bf16(z * bf16(h)));
  };
  std::vector<double> h(hs);
  switch (cell.kind) {
  case CellKind::LSTM:
  case CellKind::OptimizedLSTM:
    for (int64_t j = 0; j < hs; ++j) {
      double i = gate(pre(0, j)), g = act(pre(2, j));
      if (!bf16Carries) {
        double f = gateU(pre(1, j)), o = gateU(pre(3, j));
        carry.c[j] = f * carry.c[j] + i * g;
        h[j] = o * activate(cell.activationFn, carry.c[j]);
        continue;
      }
      double f = gate(pre(1, j)), o = gate(pre(3, j));
      carry.c[j] = bf16(bf16(f * bf16(carry.c[j])) + bf16(i * g));
      h[j] = bf16(o * act(carry.c[j]));
    }
    break;
  case CellKind::GRU:
    for (int64_t j = 0; j < hs; ++j) {
      double r = gate(pre(0, j)), zu = gateU(pre(1, j));
      double n = act(bf16(gi[2 * hs + j] + bf16(r * gh[2 * hs + j])));
      h[j] = interpolate(zu, n, carry.h[j]);
    }
    break;
  case CellKind::MGU:
    for (int64_t j = 0; j < hs; ++j) {
      double fu = gateU(pre(0, j));
      double u = cell.resetGate ? bf16(gh[hs + j] * bf16(fu)) : gh[hs + j];
      double n = act(bf16(gi[hs + j] + u));
      h[j] = interpolate(fu, n, carry.h[j]);
    }
    break;
  case CellKind::Simple:
    for (int64_t j = 0; j < hs; ++j) {
      if (!bf16Carries) { // residual (the spec requires it here)
        h[j] = activate(cell.activationFn,
                        gi[j] + gh[j] + carry.h[j]);
        continue;
      }
      double s = pre(0, j);
      if (cell.residual)
        s = bf16(s + bf16(carry.h[j]));
      h[j] = act(s);
    }
    break;
  case CellKind::ConvLSTM:
    break; // the spec rejects bf16 compute for it
  }
  carry.h = std::move(h);
}

static void stepDense(const spec::Cell &cell, const CellParams &params,
                      int64_t inputSize, const double *x, Carry &carry) {
  if (cell.dtype == spec::ElementType::BFloat16)
    return stepDenseBF16(cell, params, inputSize, x, carry);
  const int64_t hs = cell.features;
  bool dynamic = cell.int8Activations && params.wiInt8 && params.whInt8;
  std::vector<double> gi =
      dynamic ? affineDynamicInt8(x, inputSize, *params.wiInt8, params.bi)
              : affine(x, inputSize, params.wi, params.bi);
  std::vector<double> gh =
      dynamic ? affineDynamicInt8(carry.h.data(), hs, *params.whInt8, params.bh)
              : affine(carry.h.data(), hs, params.wh, params.bh);
  auto gate = [&](double v) { return activate(cell.gateFn, v); };
  auto act = [&](double v) { return activate(cell.activationFn, v); };
  std::vector<double> h(hs);

  switch (cell.kind) {
  case CellKind::LSTM:
  case CellKind::OptimizedLSTM:
    // Blocks [i, f, g, o]; carry (c, h).
    for (int64_t j = 0; j < hs; ++j) {
      double i = gate(gi[j] + gh[j]);
      double f = gate(gi[hs + j] + gh[hs + j]);
      double g = act(gi[2 * hs + j] + gh[2 * hs + j]);
      double o = gate(gi[3 * hs + j] + gh[3 * hs + j]);
      carry.c[j] = f * carry.c[j] + i * g;
      h[j] = o * act(carry.c[j]);
    }
    break;
  case CellKind::GRU:
    // Blocks [r, z, n]; gh's n block already holds h @ Whn + bhn.
    for (int64_t j = 0; j < hs; ++j) {
      double r = gate(gi[j] + gh[j]);
      double z = gate(gi[hs + j] + gh[hs + j]);
      double n = act(gi[2 * hs + j] + r * gh[2 * hs + j]);
      h[j] = (1.0 - z) * n + z * carry.h[j];
    }
    break;
  case CellKind::MGU:
    // Blocks [f, n]; with reset_gate the hidden n term is scaled by f.
    for (int64_t j = 0; j < hs; ++j) {
      double f = gate(gi[j] + gh[j]);
      double u = gh[hs + j];
      if (cell.resetGate)
        u *= f;
      double n = act(gi[hs + j] + u);
      h[j] = (1.0 - f) * n + f * carry.h[j];
    }
    break;
  case CellKind::Simple:
    for (int64_t j = 0; j < hs; ++j) {
      double s = gi[j] + gh[j];
      if (cell.residual)
        s += carry.h[j];
      h[j] = act(s);
    }
    break;
  case CellKind::ConvLSTM:
    break; // handled by stepConv
  }
  carry.h = std::move(h);
}

//===----------------------------------------------------------------------===//
// ConvLSTM
//===----------------------------------------------------------------------===//

/// Splits a flat row-major index into per-dim indices of \p dims.
static void unflatten(int64_t flat, llvm::ArrayRef<int64_t> dims,
                      std::vector<int64_t> &index) {
  index.assign(dims.size(), 0);
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = flat % dims[d];
    flat /= dims[d];
  }
}

/// Cross-correlation of `in` (shape [spatial..., channels]) with `w`
/// (shape [k..., channels, outC]), stride 1, SAME padding (low (k-1)/2,
/// high k/2), plus `b` if present:
///   out[p, o] = b[o] + sum_q sum_c in[p + q - low, c] * w[q, c, o].
static std::vector<double> convSame(const double *in,
                                    llvm::ArrayRef<int64_t> spatial,
                                    int64_t channels, const Tensor &w,
                                    const std::optional<Tensor> &b) {
  llvm::ArrayRef<int64_t> kernel =
      llvm::ArrayRef<int64_t>(w.shape).drop_back(2);
  const int64_t outC = w.shape.back();
  const int64_t positions = product(spatial), taps = product(kernel);
  std::vector<double> out(positions * outC, 0.0);
  std::vector<int64_t> p, q;
  for (int64_t pf = 0; pf < positions; ++pf) {
    unflatten(pf, spatial, p);
    for (int64_t qf = 0; qf < taps; ++qf) {
      unflatten(qf, kernel, q);
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < spatial.size(); ++d) {
        int64_t s = p[d] + q[d] - (kernel[d] - 1) / 2;
        inside = inside && s >= 0 && s < spatial[d];
        src = src * spatial[d] + s;
      }
      if (!inside)
        continue;
      for (int64_t c = 0; c < channels; ++c) {
        double v = in[src * channels + c];
        const float *wRow = w.data.data() + (qf * channels + c) * outC;
        for (int64_t o = 0; o < outC; ++o)
          out[pf * outC + o] += v * static_cast<double>(wRow[o]);
      }
    }
    if (b)
      for (int64_t o = 0; o < outC; ++o)
        out[pf * outC + o] += static_cast<double>(b->data[o]);
  }
  return out;
}

static void stepConv(const spec::Cell &cell, const CellParams &params,
                     llvm::ArrayRef<int64_t> input, const double *x,
                     Carry &carry) {
  llvm::ArrayRef<int64_t> spatial = input.drop_back();
  const int64_t fs = cell.features, positions = product(spatial);
  std::vector<double> gates =
      convSame(x, spatial, input.back(), params.wi, params.bi);
  std::vector<double> hidden =
      convSame(carry.h.data(), spatial, fs, params.wh, params.bh);
  // Blocks [i, g, f, o] per position; the forget gate gets +1 at run time.
  for (int64_t p = 0; p < positions; ++p)
    for (int64_t j = 0; j < fs; ++j) {
      auto pre = [&](int64_t block) {
        int64_t k = p * 4 * fs + block * fs + j;
        return gates[k] + hidden[k];
      };
      double i = sigmoid(pre(0));
      double g = std::tanh(pre(1));
      double f = sigmoid(pre(2) + 1.0);
      double o = sigmoid(pre(3));
      double &c = carry.c[p * fs + j];
      c = f * c + i * g;
      carry.h[p * fs + j] = o * std::tanh(c);
    }
}

void detail::stepCell(const spec::Cell &cell, const CellParams &params,
                      llvm::ArrayRef<int64_t> input, const double *x,
                      Carry &carry) {
  if (cell.kind == CellKind::ConvLSTM)
    stepConv(cell, params, input, x, carry);
  else
    stepDense(cell, params, input[0], x, carry);
}
