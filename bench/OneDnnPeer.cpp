//===- OneDnnPeer.cpp - oneDNN's lstm_forward and lbr_gru_forward ---------===//
//
// Uses oneDNN's C API, so every failure is a status, not an exception.
//
//===----------------------------------------------------------------------===//

#include "OneDnnPeer.h"

#include <algorithm>
#include <vector>

using namespace rnnc::bench;

#ifndef RNN_BENCH_HAVE_DNNL

struct OneDnnRnn::State {};

bool rnnc::bench::oneDnnAvailable() { return false; }
std::string rnnc::bench::oneDnnDescription() {
  return "oneDNN: not found at build time (install libdnnl-dev)";
}
std::string rnnc::bench::oneDnnUnsupported(const Config &) { return ""; }
std::unique_ptr<OneDnnRnn> OneDnnRnn::create(const Problem &, bool,
                                             std::string &error) {
  error = "built without oneDNN";
  return nullptr;
}
OneDnnRnn::~OneDnnRnn() = default;
bool OneDnnRnn::run(std::string &error) {
  error = "built without oneDNN";
  return false;
}
Outputs OneDnnRnn::outputs(const Problem &) const { return {}; }
std::string OneDnnRnn::implementation() const { return ""; }

#else

#include "oneapi/dnnl/dnnl.h"

#include <dlfcn.h>

#include <cmath>
#include <cstring>

struct OneDnnRnn::State {
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t primitive = nullptr;
  std::vector<dnnl_memory_t> memories; ///< released with the state
  std::vector<dnnl_exec_arg_t> args;
  /// User buffers, in the primitive's data types (bf16 and u8 data are
  /// stored in these float vectors' bytes).
  std::vector<float> x, y, hy, cy, hx, cx;
  std::vector<float> wLayer, wIter, bias; ///< plain f32 weights (ldigo, ldgo)
  std::vector<std::vector<float>> packed; ///< reordered weights
  dnnl_data_type_t data = dnnl_f32; ///< of x, y and the h states
  dnnl_primitive_attr_t weightsReorder = nullptr; ///< int8: the scales
  int threads = 1;

  ~State() {
    for (dnnl_memory_t memory : memories)
      dnnl_memory_destroy(memory);
    if (primitive)
      dnnl_primitive_destroy(primitive);
    if (pd)
      dnnl_primitive_desc_destroy(pd);
    if (stream)
      dnnl_stream_destroy(stream);
    if (engine)
      dnnl_engine_destroy(engine);
    if (weightsReorder)
      dnnl_primitive_attr_destroy(weightsReorder);
  }

  /// Wraps `data` (described by `md`) as a memory object.
  bool wrap(const dnnl_memory_desc_t &md, void *data, dnnl_memory_t &memory) {
    if (dnnl_memory_create(&memory, &md, engine, data) != dnnl_success)
      return false;
    memories.push_back(memory);
    return true;
  }

  /// Makes `user` (in its plain layout) the execute argument `arg`,
  /// reordering it into the primitive's layout if that differs.
  /// `reorderAttr` (may be null) goes to that reorder.
  bool bind(int arg, const dnnl_memory_desc_t &userMd, std::vector<float> &user,
            std::string &error,
            const_dnnl_primitive_attr_t reorderAttr = nullptr) {
    const dnnl_memory_desc_t *want =
        dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    dnnl_memory_t source;
    if (!want || !wrap(userMd, user.data(), source)) {
      error = "cannot describe argument " + std::to_string(arg);
      return false;
    }
    if (dnnl_memory_desc_equal(want, &userMd)) {
      args.push_back({arg, source});
      return true;
    }
    packed.emplace_back(dnnl_memory_desc_get_size(want) / sizeof(float) + 1);
    dnnl_memory_t target;
    dnnl_primitive_desc_t reorderPd = nullptr;
    dnnl_primitive_t reorder = nullptr;
    bool ok =
        wrap(*want, packed.back().data(), target) &&
        dnnl_reorder_primitive_desc_create(&reorderPd, &userMd, engine, want,
                                           engine,
                                           reorderAttr) == dnnl_success &&
        dnnl_primitive_create(&reorder, reorderPd) == dnnl_success;
    if (ok) {
      dnnl_exec_arg_t reorderArgs[] = {{DNNL_ARG_FROM, source},
                                       {DNNL_ARG_TO, target}};
      ok = dnnl_primitive_execute(reorder, stream, 2, reorderArgs) ==
               dnnl_success &&
           dnnl_stream_wait(stream) == dnnl_success;
    }
    if (reorder)
      dnnl_primitive_destroy(reorder);
    if (reorderPd)
      dnnl_primitive_desc_destroy(reorderPd);
    if (!ok) {
      error = "cannot reorder argument " + std::to_string(arg);
      return false;
    }
    args.push_back({arg, target});
    return true;
  }
};

bool rnnc::bench::oneDnnAvailable() { return true; }

std::string rnnc::bench::oneDnnDescription() {
  const dnnl_version_t *version = dnnl_version();
  std::string hash = version->hash ? version->hash : "N/A";
  return "oneDNN " + std::to_string(version->major) + "." +
         std::to_string(version->minor) + "." + std::to_string(version->patch) +
         (hash == "N/A" ? "" : " (" + hash + ")") + ", " +
         (version->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other") +
         " cpu runtime";
}

std::string rnnc::bench::oneDnnUnsupported(const Config &config) {
  auto has = [](dnnl_cpu_isa_t isa) {
    return (dnnl_get_effective_cpu_isa() & isa) == isa;
  };
  switch (config.precision) {
  case Precision::BF16:
    return has(dnnl_cpu_isa_avx512_core)
               ? ""
               : "oneDNN 2.6 has bf16 RNNs only on AVX-512 CPUs";
  case Precision::Int8Weights:
  case Precision::Int8Dynamic:
    return has(dnnl_cpu_isa_avx512_core_vnni)
               ? ""
               : "oneDNN 2.6's int8 RNN is right only on AVX-512 VNNI CPUs";
  default:
    return "";
  }
}

namespace {

dnnl_memory_desc_t plainMd(std::vector<dnnl_dim_t> dims, dnnl_format_tag_t tag,
                           dnnl_data_type_t type = dnnl_f32) {
  dnnl_memory_desc_t md;
  dnnl_memory_desc_init_by_tag(&md, static_cast<int>(dims.size()), dims.data(),
                               type, tag);
  return md;
}

/// int8 activations: u8 = round(kDataScale x + kDataShift), for x in [-1, 1].
constexpr float kDataScale = 127.0f, kDataShift = 128.0f;

uint16_t toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

float fromBF16(uint16_t half) {
  uint32_t bits = static_cast<uint32_t>(half) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// `values` re-encoded as `type` into the bytes of a float vector.
std::vector<float> encode(const std::vector<float> &values,
                          dnnl_data_type_t type) {
  if (type == dnnl_f32)
    return values;
  std::vector<float> bytes(values.size() / 2 + 1);
  if (type == dnnl_bf16) {
    auto *out = reinterpret_cast<uint16_t *>(bytes.data());
    for (size_t i = 0; i < values.size(); ++i)
      out[i] = toBF16(values[i]);
    return bytes;
  }
  auto *out = reinterpret_cast<uint8_t *>(bytes.data());
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<uint8_t>(std::clamp(
        std::nearbyint(kDataScale * values[i] + kDataShift), 0.0f, 255.0f));
  return bytes;
}

/// The first `count` values of `bytes`, decoded from `type`.
std::vector<float> decode(const std::vector<float> &bytes, size_t count,
                          dnnl_data_type_t type) {
  if (type == dnnl_f32)
    return {bytes.begin(), bytes.begin() + count};
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] =
        type == dnnl_bf16
            ? fromBF16(reinterpret_cast<const uint16_t *>(bytes.data())[i])
            : (reinterpret_cast<const uint8_t *>(bytes.data())[i] -
               kDataShift) /
                  kDataScale;
  return values;
}

/// oneDNN is linked against an OpenMP runtime, already loaded: set its
/// thread count through it (the process starts with OMP_NUM_THREADS=1).
void setOpenMpThreads(int threads) {
  using Setter = void (*)(int);
  static Setter set =
      reinterpret_cast<Setter>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set)
    set(threads);
}

} // namespace

std::unique_ptr<OneDnnRnn>
OneDnnRnn::create(const Problem &problem, bool swapGates, std::string &error) {
  const Config &config = problem.config;
  bool lstm = config.cell == CellType::LSTM;
  dnnl_dim_t t = config.time, n = config.batch, h = config.hidden;
  dnnl_dim_t d = config.directions(), g = config.gates();
  std::unique_ptr<OneDnnRnn> rnn(new OneDnnRnn());
  rnn->state = std::make_unique<State>();
  State &s = *rnn->state;
  if (dnnl_engine_create(&s.engine, dnnl_cpu, 0) != dnnl_success ||
      dnnl_stream_create(&s.stream, s.engine, dnnl_stream_default_flags) !=
          dnnl_success) {
    error = "cannot create a oneDNN cpu engine";
    return nullptr;
  }

  // Weights in plain ldigo / ldgo, mapped from the Flax params.
  std::vector<float> &wLayer = s.wLayer, &wIter = s.wIter, &bias = s.bias;
  wLayer.resize(d * h * g * h);
  wIter.resize(d * h * g * h);
  bias.resize(d * (lstm ? g : g + 1) * h);
  std::vector<std::string> gateNames =
      lstm ? std::vector<std::string>{"i", "f", "g", "o"}
           : std::vector<std::string>{"z", "r", "n"};
  if (swapGates)
    std::swap(gateNames[0], gateNames[1]);
  int64_t biasGates = lstm ? g : g + 1;
  for (int64_t dir = 0; dir < d; ++dir) {
    std::string prefix = cellPrefix(config, static_cast<int>(dir)) + "/";
    auto param = [&](const std::string &key) -> const std::vector<float> & {
      return problem.params.at(prefix + key).data;
    };
    for (int64_t gate = 0; gate < g; ++gate) {
      const std::vector<float> &wi = param("i" + gateNames[gate] + "/kernel");
      const std::vector<float> &wh = param("h" + gateNames[gate] + "/kernel");
      for (int64_t i = 0; i < h; ++i)
        for (int64_t o = 0; o < h; ++o) {
          int64_t at = ((dir * h + i) * g + gate) * h + o;
          wLayer[at] = wi[i * h + o];
          wIter[at] = wh[i * h + o];
        }
      const std::vector<float> &b =
          param((lstm ? "h" : "i") + gateNames[gate] + "/bias");
      std::copy(b.begin(), b.end(),
                bias.begin() + (dir * biasGates + gate) * h);
    }
    if (!lstm) {
      const std::vector<float> &bhn = param("hn/bias");
      std::copy(bhn.begin(), bhn.end(),
                bias.begin() + (dir * biasGates + g) * h);
    }
  }

  bool bf16 = config.precision == Precision::BF16;
  bool int8 = config.precision == Precision::Int8Weights ||
              config.precision == Precision::Int8Dynamic;
  s.threads = config.threads;
  s.data = bf16 ? dnnl_bf16 : int8 ? dnnl_u8 : dnnl_f32;
  dnnl_data_type_t weights = bf16 ? dnnl_bf16 : int8 ? dnnl_s8 : dnnl_f32;
  dnnl_primitive_attr_t attr = nullptr;
  if (int8) {
    // One scale for both kernels: Debian's oneDNN 2.6.3 has no reorder
    // that quantizes to its brgemm layout per channel (mask 3 on ldigo's
    // g and o: dnnl_unimplemented), and one without its u8 compensation
    // computes wrong results.
    float largest = 0;
    for (const std::vector<float> *w : {&wLayer, &wIter})
      for (float v : *w)
        largest = std::max(largest, std::abs(v));
    float scale = largest > 0 ? 127.0f / largest : 1.0f;
    bool ok = dnnl_primitive_attr_create(&attr) == dnnl_success &&
              dnnl_primitive_attr_set_rnn_data_qparams(attr, kDataScale,
                                                       kDataShift) ==
                  dnnl_success &&
              dnnl_primitive_attr_set_rnn_weights_qparams(
                  attr, 1, 0, &scale) == dnnl_success &&
              dnnl_primitive_attr_clone(&s.weightsReorder, attr) ==
                  dnnl_success;
    if (!ok) {
      if (attr)
        dnnl_primitive_attr_destroy(attr);
      error = "cannot set oneDNN's int8 quantization attributes";
      return nullptr;
    }
  }
  setOpenMpThreads(s.threads);

  dnnl_memory_desc_t srcLayer = plainMd({t, n, h}, dnnl_ntc, s.data);
  dnnl_memory_desc_t dstLayer = plainMd({t, n, d * h}, dnnl_ntc, s.data);
  dnnl_memory_desc_t dstIter = plainMd({1, d, n, h}, dnnl_ldnc, s.data);
  dnnl_memory_desc_t dstIterC = plainMd({1, d, n, h}, dnnl_ldnc);
  // The zero initial state. A missing src_iter is zeros in the data type,
  // which in u8 means -shift / scale, not 0: int8 passes it explicitly.
  dnnl_memory_desc_t srcIter = plainMd({1, d, n, h}, dnnl_ldnc, s.data);
  dnnl_memory_desc_t srcIterC = plainMd({1, d, n, h}, dnnl_ldnc);
  const dnnl_memory_desc_t *srcIterPtr = int8 ? &srcIter : nullptr;
  const dnnl_memory_desc_t *srcIterCPtr = int8 && lstm ? &srcIterC : nullptr;
  dnnl_memory_desc_t wLayerAny =
      plainMd({1, d, h, g, h}, dnnl_format_tag_any, weights);
  dnnl_memory_desc_t wIterAny =
      plainMd({1, d, h, g, h}, dnnl_format_tag_any, weights);
  dnnl_memory_desc_t biasAny =
      plainMd({1, d, biasGates, h}, dnnl_format_tag_any);
  dnnl_rnn_direction_t direction = config.bidirectional
                                       ? dnnl_bidirectional_concat
                                       : dnnl_unidirectional_left2right;
  dnnl_rnn_desc_t desc;
  dnnl_status_t status =
      lstm ? dnnl_lstm_forward_desc_init(&desc, dnnl_forward_inference,
                                         direction, &srcLayer, srcIterPtr,
                                         srcIterCPtr,
                                         &wLayerAny, &wIterAny, &biasAny,
                                         &dstLayer, &dstIter, &dstIterC, 0)
           : dnnl_lbr_gru_forward_desc_init(
                 &desc, dnnl_forward_inference, direction, &srcLayer,
                 srcIterPtr,
                 &wLayerAny, &wIterAny, &biasAny, &dstLayer, &dstIter, 0);
  bool created = status == dnnl_success &&
                 dnnl_primitive_desc_create(&s.pd, &desc, attr, s.engine,
                                            nullptr) == dnnl_success &&
                 dnnl_primitive_create(&s.primitive, s.pd) == dnnl_success;
  if (attr)
    dnnl_primitive_attr_destroy(attr);
  if (!created) {
    error = int8 && !lstm ? "oneDNN 2.6 has no int8 LBR GRU"
                          : "cannot create the oneDNN primitive (status " +
                                std::to_string(static_cast<int>(status)) + ")";
    return nullptr;
  }

  s.x = encode(problem.x, s.data);
  s.y.assign(t * n * d * h, 0.0f);
  s.hy.assign(d * n * h, 0.0f);
  s.cy.assign(d * n * h, 0.0f);
  if (int8) {
    s.hx = encode(std::vector<float>(d * n * h, 0.0f), s.data);
    s.cx.assign(d * n * h, 0.0f);
    if (!s.bind(DNNL_ARG_SRC_ITER, srcIter, s.hx, error) ||
        (lstm && !s.bind(DNNL_ARG_SRC_ITER_C, srcIterC, s.cx, error)))
      return nullptr;
  }
  if (!s.bind(DNNL_ARG_SRC_LAYER, srcLayer, s.x, error) ||
      !s.bind(DNNL_ARG_WEIGHTS_LAYER,
              plainMd({1, d, h, g, h}, dnnl_ldigo), wLayer, error,
              s.weightsReorder) ||
      !s.bind(DNNL_ARG_WEIGHTS_ITER,
              plainMd({1, d, h, g, h}, dnnl_ldigo), wIter, error,
              s.weightsReorder) ||
      !s.bind(DNNL_ARG_BIAS, plainMd({1, d, biasGates, h}, dnnl_ldgo), bias,
              error) ||
      !s.bind(DNNL_ARG_DST_LAYER, dstLayer, s.y, error) ||
      !s.bind(DNNL_ARG_DST_ITER, dstIter, s.hy, error) ||
      (lstm && !s.bind(DNNL_ARG_DST_ITER_C, dstIterC, s.cy, error)))
    return nullptr;
  // Destination arguments must not have been reordered into copies.
  for (const dnnl_exec_arg_t &arg : s.args)
    if (arg.arg == DNNL_ARG_DST_LAYER || arg.arg == DNNL_ARG_SRC_LAYER ||
        arg.arg == DNNL_ARG_DST_ITER || arg.arg == DNNL_ARG_DST_ITER_C) {
      void *handle = nullptr;
      dnnl_memory_get_data_handle(arg.memory, &handle);
      if (handle != s.x.data() && handle != s.y.data() &&
          handle != s.hy.data() && handle != s.cy.data()) {
        error = "oneDNN wants another activation layout";
        return nullptr;
      }
    }
  return rnn;
}

OneDnnRnn::~OneDnnRnn() = default;

std::string OneDnnRnn::implementation() const {
  const char *name = nullptr;
  if (dnnl_primitive_desc_query(state->pd, dnnl_query_impl_info_str, 0,
                                &name) != dnnl_success ||
      !name)
    return "?";
  return name;
}

bool OneDnnRnn::run(std::string &error) {
  State &s = *state;
  setOpenMpThreads(s.threads);
  if (dnnl_primitive_execute(s.primitive, s.stream,
                             static_cast<int>(s.args.size()),
                             s.args.data()) != dnnl_success ||
      dnnl_stream_wait(s.stream) != dnnl_success) {
    error = "oneDNN execution failed";
    return false;
  }
  return true;
}

Outputs OneDnnRnn::outputs(const Problem &problem) const {
  const Config &config = problem.config;
  const State &s = *state;
  int64_t n = config.batch, h = config.hidden, t = config.time;
  int64_t d = config.directions();
  Outputs outputs;
  // ntc is rnnc's [B, T, D*H].
  outputs.y = decode(s.y, n * t * d * h, s.data);
  std::vector<float> hy = decode(s.hy, d * n * h, s.data);
  bool lstm = config.cell == CellType::LSTM;
  for (int64_t dir = 0; dir < d; ++dir) {
    std::string prefix = !config.bidirectional ? ""
                         : dir == 0            ? "forward/"
                                               : "backward/";
    std::vector<float> &hCarry = outputs.carries[prefix + "h"];
    if (config.varlen) {
      // No lengths in oneDNN: h after each row's last valid step is its
      // output there (forward direction only: the grid has no bi varlen).
      hCarry.resize(n * h);
      for (int64_t b = 0; b < n; ++b)
        std::copy_n(outputs.y.begin() +
                        ((b * t + problem.length(b) - 1) * d + dir) * h,
                    h, hCarry.begin() + b * h);
      continue;
    }
    hCarry.assign(hy.begin() + dir * n * h, hy.begin() + (dir + 1) * n * h);
    if (lstm)
      outputs.carries[prefix + "c"].assign(s.cy.begin() + dir * n * h,
                                           s.cy.begin() + (dir + 1) * n * h);
  }
  return outputs;
}

#endif // RNN_BENCH_HAVE_DNNL
