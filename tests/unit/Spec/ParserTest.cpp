//===- ParserTest.cpp - parseModel: fields, defaults, diagnostics ---------===//

#include "SpecTestUtils.h"

#include "rnn/Spec/Parser.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "gtest/gtest.h"

using namespace rnnc::spec;
using namespace rnnc::spec::test;

namespace {

TEST(SpecParser, ExampleSpecEveryField) {
  ParseResult r = parse(kExampleSpec);
  ASSERT_TRUE(r.model) << r.diagnostics;
  EXPECT_EQ(r.diagnostics, "");
  const Model &m = *r.model;
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.name, "kws");
  EXPECT_EQ(m.paramsLayout, ParamsLayout::Linen);
  EXPECT_EQ(m.paddedOutputs, PaddedOutputs::Compute);
  EXPECT_EQ(m.batch, std::vector<int64_t>{8});
  EXPECT_EQ(m.time, 100);
  EXPECT_EQ(m.features, std::vector<int64_t>{40});
  EXPECT_FALSE(m.timeMajor);
  EXPECT_TRUE(m.seqLengths);
  ASSERT_EQ(m.layers.size(), 2u);

  const Layer &enc = m.layers[0];
  EXPECT_EQ(enc.kind, Layer::Kind::Bidirectional);
  EXPECT_EQ(enc.name, "enc");
  EXPECT_EQ(enc.merge, Merge::Concat);
  EXPECT_TRUE(enc.returnCarry);
  EXPECT_EQ(enc.initialCarry, InitialCarry::Zeros);
  EXPECT_EQ(enc.forward.cell.kind, CellKind::LSTM);
  EXPECT_EQ(enc.forward.cell.features, 64);
  EXPECT_EQ(enc.forward.cell.gateFn, Activation::Sigmoid);
  EXPECT_EQ(enc.forward.cell.activationFn, Activation::Tanh);
  EXPECT_EQ(enc.forward.cell.params, "enc/forward_rnn/cell");
  EXPECT_FALSE(enc.forward.reverse);
  EXPECT_FALSE(enc.forward.keepOrder);
  EXPECT_EQ(enc.forward.unroll, 1);
  EXPECT_EQ(enc.backward.cell.kind, CellKind::GRU);
  EXPECT_EQ(enc.backward.cell.features, 64);
  EXPECT_EQ(enc.backward.cell.params, "enc/backward_rnn/cell");
  EXPECT_TRUE(enc.backward.reverse);
  EXPECT_TRUE(enc.backward.keepOrder);
  EXPECT_TRUE(enc.loc.isValid());
  EXPECT_TRUE(enc.forward.cell.loc.isValid());

  const Layer &dec = m.layers[1];
  EXPECT_EQ(dec.kind, Layer::Kind::RNN);
  EXPECT_EQ(dec.name, "dec");
  EXPECT_EQ(dec.rnn.cell.kind, CellKind::GRU);
  EXPECT_EQ(dec.rnn.cell.features, 48);
  EXPECT_EQ(dec.rnn.cell.gateFn, Activation::Sigmoid);
  EXPECT_EQ(dec.rnn.cell.activationFn, Activation::Tanh);
  EXPECT_EQ(dec.rnn.cell.params, "dec/cell");
  EXPECT_FALSE(dec.rnn.reverse);
  EXPECT_FALSE(dec.rnn.keepOrder);
  EXPECT_EQ(dec.rnn.unroll, 4);
  EXPECT_TRUE(dec.returnCarry);
  EXPECT_EQ(dec.initialCarry, InitialCarry::Zeros);
}

TEST(SpecParser, DefaultsAndDefaultParamPaths) {
  ParseResult r = parse(R"(rnnc: 1
name: tiny
input: {time: 5, features: 3}
layers:
  - {type: RNN, cell: {type: LSTMCell, features: 4}}
  - {type: RNN, name: second, cell: {type: SimpleCell, features: 2}}
  - {type: Bidirectional, name: bi,
     forward_rnn: {cell: {type: MGUCell, features: 2}},
     backward_rnn: {cell: {type: MGUCell, features: 2}}}
)");
  ASSERT_TRUE(r.model) << r.diagnostics;
  const Model &m = *r.model;
  EXPECT_EQ(m.paramsLayout, ParamsLayout::Linen);
  EXPECT_EQ(m.paddedOutputs, PaddedOutputs::Compute);
  EXPECT_TRUE(m.batch.empty());
  EXPECT_FALSE(m.timeMajor);
  EXPECT_FALSE(m.seqLengths);
  ASSERT_EQ(m.layers.size(), 3u);
  EXPECT_EQ(m.layers[0].name, "layers_0");
  EXPECT_EQ(m.layers[0].rnn.cell.params, "layers_0/cell");
  EXPECT_FALSE(m.layers[0].returnCarry);
  EXPECT_EQ(m.layers[0].initialCarry, InitialCarry::Zeros);
  EXPECT_EQ(m.layers[0].rnn.unroll, 1);
  EXPECT_EQ(m.layers[1].rnn.cell.params, "second/cell");
  EXPECT_FALSE(m.layers[1].rnn.cell.residual);
  EXPECT_EQ(m.layers[2].merge, Merge::Concat);
  EXPECT_TRUE(m.layers[2].forward.cell.resetGate);
  EXPECT_EQ(m.layers[2].forward.cell.params, "bi/forward_rnn/cell");
  EXPECT_EQ(m.layers[2].backward.cell.params, "bi/backward_rnn/cell");
}

TEST(SpecParser, WholeModelLayersEveryField) {
  ParseResult r = parse(R"(rnnc: 1
name: whole
ignore_params: [step, "opt_state/*"]
input: {batch: [2], time: 6, seq_lengths: true}
layers:
  - {type: Embed, name: emb, num_embeddings: 50, features: 8, params: Embed_0}
  - {type: RNN, name: r, params: lstm_cell_0, cell: {type: LSTMCell, features: 4}}
  - {type: Bidirectional, name: b, params: bi,
     forward_rnn: {cell: {type: GRUCell, features: 3}},
     backward_rnn: {cell: {type: GRUCell, features: 3}}}
  - {type: LayerNorm, epsilon: 1e-5, use_scale: false}
  - {type: LayerNorm, name: ln2, epsilon: 2, use_bias: false}
  - {type: Dropout, rate: 0.25}
  - {type: Dropout, name: nodrop, rate: 0}
  - {type: Pool, fn: mean, valid_only: true}
  - {type: Dense, features: 5, activation: gelu_exact, params: head/Dense_0}
  - {type: Dense, name: d2, features: 2, use_bias: false}
  - {type: Activation, fn: leaky_relu}
)");
  ASSERT_TRUE(r.model) << r.diagnostics;
  EXPECT_EQ(r.diagnostics, "");
  const Model &m = *r.model;
  EXPECT_TRUE(m.takesTokens());
  EXPECT_TRUE(m.features.empty());
  EXPECT_EQ(m.ignoreParams, (std::vector<std::string>{"step", "opt_state/*"}));
  ASSERT_EQ(m.layers.size(), 11u);

  const Layer &emb = m.layers[0];
  EXPECT_EQ(emb.kind, Layer::Kind::Embed);
  EXPECT_EQ(emb.numEmbeddings, 50);
  EXPECT_EQ(emb.features, 8);
  EXPECT_EQ(emb.params, "Embed_0");

  // Layer-level params name the nn.RNN / nn.Bidirectional module.
  const Layer &rnn = m.layers[1];
  EXPECT_EQ(rnn.params, "lstm_cell_0");
  EXPECT_EQ(rnn.rnn.cell.params, "lstm_cell_0/cell");
  EXPECT_EQ(m.layers[2].forward.cell.params, "bi/forward_rnn/cell");
  EXPECT_EQ(m.layers[2].backward.cell.params, "bi/backward_rnn/cell");

  const Layer &ln = m.layers[3];
  EXPECT_EQ(ln.kind, Layer::Kind::LayerNorm);
  EXPECT_EQ(ln.name, "layers_3");
  EXPECT_EQ(ln.params, "layers_3");
  EXPECT_DOUBLE_EQ(ln.epsilon, 1e-5);
  EXPECT_FALSE(ln.useScale);
  EXPECT_TRUE(ln.useBias);
  const Layer &ln2 = m.layers[4];
  EXPECT_DOUBLE_EQ(ln2.epsilon, 2.0); // integers are numbers too
  EXPECT_TRUE(ln2.useScale);
  EXPECT_FALSE(ln2.useBias);

  EXPECT_EQ(m.layers[5].kind, Layer::Kind::Dropout);
  EXPECT_DOUBLE_EQ(m.layers[5].rate, 0.25);
  EXPECT_DOUBLE_EQ(m.layers[6].rate, 0.0);
  EXPECT_FALSE(m.layers[6].hasParams());

  const Layer &pool = m.layers[7];
  EXPECT_EQ(pool.kind, Layer::Kind::Pool);
  EXPECT_EQ(pool.poolFn, PoolFn::Mean);
  EXPECT_TRUE(pool.validOnly);

  const Layer &dense = m.layers[8];
  EXPECT_EQ(dense.kind, Layer::Kind::Dense);
  EXPECT_EQ(dense.features, 5);
  EXPECT_TRUE(dense.useBias);
  EXPECT_EQ(dense.activation, Activation::GeluExact);
  EXPECT_EQ(dense.params, "head/Dense_0");
  const Layer &d2 = m.layers[9];
  EXPECT_FALSE(d2.useBias);
  EXPECT_FALSE(d2.activation.has_value());
  EXPECT_EQ(d2.params, "d2");

  EXPECT_EQ(m.layers[10].kind, Layer::Kind::Activation);
  EXPECT_EQ(m.layers[10].activation, Activation::LeakyRelu);
}

TEST(SpecParser, WholeModelDefaults) {
  ParseResult r = parse(R"(rnnc: 1
name: defaults
input: {time: 3, features: 2}
layers:
  - {type: Dense, features: 4}
  - {type: LayerNorm}
  - {type: RNN, cell: {type: LSTMCell, features: 4}}
  - {type: Pool, fn: last}
)");
  ASSERT_TRUE(r.model) << r.diagnostics;
  const Model &m = *r.model;
  EXPECT_FALSE(m.takesTokens());
  EXPECT_TRUE(m.ignoreParams.empty());
  EXPECT_TRUE(m.layers[0].useBias);
  EXPECT_FALSE(m.layers[0].activation.has_value());
  EXPECT_EQ(m.layers[0].params, "layers_0");
  EXPECT_DOUBLE_EQ(m.layers[1].epsilon, 1e-6);
  EXPECT_TRUE(m.layers[1].useScale);
  EXPECT_TRUE(m.layers[1].useBias);
  // Without a layer-level params, a cell's default path is unchanged.
  EXPECT_TRUE(m.layers[2].params.empty());
  EXPECT_EQ(m.layers[2].rnn.cell.params, "layers_2/cell");
  EXPECT_FALSE(m.layers[3].validOnly);
}

TEST(SpecParser, EveryActivationName) {
  const std::pair<const char *, Activation> names[] = {
      {"sigmoid", Activation::Sigmoid},
      {"hard_sigmoid", Activation::HardSigmoid},
      {"tanh", Activation::Tanh},
      {"hard_tanh", Activation::HardTanh},
      {"relu", Activation::Relu},
      {"elu", Activation::Elu},
      {"silu", Activation::Silu},
      {"identity", Activation::Identity},
      {"gelu", Activation::Gelu},
      {"gelu_exact", Activation::GeluExact},
      {"softmax", Activation::Softmax},
      {"log_softmax", Activation::LogSoftmax},
      {"softplus", Activation::Softplus},
      {"leaky_relu", Activation::LeakyRelu}};
  for (const auto &[name, fn] : names) {
    std::string text = std::string("rnnc: 1\nname: m\ninput: {time: 2, "
                                   "features: 2}\nlayers:\n  - {type: Dense, "
                                   "features: 2, activation: ") +
                       name + "}\n  - {type: Activation, fn: " + name + "}\n";
    ParseResult r = parse(text);
    ASSERT_TRUE(r.model) << name << ": " << r.diagnostics;
    EXPECT_EQ(r.model->layers[0].activation, fn) << name;
    EXPECT_EQ(r.model->layers[1].activation, fn) << name;
    EXPECT_STREQ(stringify(fn), name);
  }
}

TEST(SpecParser, EveryPoolFn) {
  const std::pair<const char *, PoolFn> fns[] = {
      {"last", PoolFn::Last},       {"first", PoolFn::First},
      {"mean", PoolFn::Mean},       {"max", PoolFn::Max},
      {"sum", PoolFn::Sum},         {"last_valid", PoolFn::LastValid},
      {"final_carry", PoolFn::FinalCarry}};
  for (const auto &[name, fn] : fns) {
    std::string text = std::string("rnnc: 1\nname: m\ninput: {time: 2, "
                                   "features: 2, seq_lengths: true}\nlayers:\n"
                                   "  - {type: RNN, cell: {type: GRUCell, "
                                   "features: 3}}\n  - {type: Pool, fn: ") +
                       name + "}\n";
    ParseResult r = parse(text);
    ASSERT_TRUE(r.model) << name << ": " << r.diagnostics;
    EXPECT_EQ(r.model->layers[1].poolFn, fn) << name;
    EXPECT_STREQ(stringify(fn), name);
  }
}

TEST(SpecParser, CellAttributes) {
  ParseResult r = parse(R"(rnnc: 1
name: attrs
params_layout: linen
padded_outputs: zeros
input: {batch: [2, 3], time: 7, features: [16, 16, 3], time_major: true}
layers:
  - type: RNN
    name: conv
    cell: {type: ConvLSTMCell, features: 8, kernel_size: [3, 3],
           use_bias: false, padding: SAME, strides: [1, 1]}
    reverse: true
    keep_order: true
    initial_carry: input
  - type: Bidirectional
    name: bi
    merge_fn: mean
    forward_rnn: {cell: {type: ConvLSTMCell, features: 5, kernel_size: [1, 1]}}
    backward_rnn: {cell: {type: ConvLSTMCell, features: 5, kernel_size: [3, 1]}}
  - type: RNN
    name: flat
    cell: {type: ConvLSTMCell, features: 4, kernel_size: [2, 2], strides: 1}
)");
  ASSERT_TRUE(r.model) << r.diagnostics;
  const Model &m = *r.model;
  EXPECT_EQ(m.paddedOutputs, PaddedOutputs::Zeros);
  EXPECT_TRUE(m.timeMajor);
  EXPECT_EQ(m.batch, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(m.features, (std::vector<int64_t>{16, 16, 3}));
  const Cell &conv = m.layers[0].rnn.cell;
  EXPECT_EQ(conv.kind, CellKind::ConvLSTM);
  EXPECT_EQ(conv.kernelSize, (std::vector<int64_t>{3, 3}));
  EXPECT_FALSE(conv.useBias);
  EXPECT_TRUE(m.layers[0].rnn.reverse);
  EXPECT_TRUE(m.layers[0].rnn.keepOrder);
  EXPECT_EQ(m.layers[0].initialCarry, InitialCarry::Input);
  EXPECT_EQ(m.layers[1].merge, Merge::Mean);
  EXPECT_TRUE(m.layers[1].forward.cell.useBias);

  ParseResult g = parse(R"(rnnc: 1
name: fns
params_layout: nnx
input: {time: 3, features: 2}
layers:
  - {type: RNN, cell: {type: GRUCell, features: 3, gate_fn: hard_sigmoid,
                       activation_fn: relu}}
  - {type: RNN, cell: {type: SimpleCell, features: 3, activation_fn: identity,
                       residual: true}}
  - {type: RNN, cell: {type: OptimizedLSTMCell, features: 3, gate_fn: silu,
                       activation_fn: hard_tanh}}
)");
  ASSERT_TRUE(g.model) << g.diagnostics;
  EXPECT_EQ(g.model->paramsLayout, ParamsLayout::NNX);
  EXPECT_EQ(g.model->layers[0].rnn.cell.gateFn, Activation::HardSigmoid);
  EXPECT_EQ(g.model->layers[0].rnn.cell.activationFn, Activation::Relu);
  EXPECT_EQ(g.model->layers[1].rnn.cell.activationFn, Activation::Identity);
  EXPECT_TRUE(g.model->layers[1].rnn.cell.residual);
  EXPECT_EQ(g.model->layers[2].rnn.cell.kind, CellKind::OptimizedLSTM);
  EXPECT_EQ(g.model->layers[2].rnn.cell.gateFn, Activation::Silu);
  EXPECT_EQ(g.model->layers[2].rnn.cell.activationFn, Activation::HardTanh);
}

TEST(SpecParser, BidirectionalForcesDirectionsAndWarns) {
  ParseResult r = parse(R"(rnnc: 1
name: bi
input: {time: 10, features: 3}
layers:
  - type: Bidirectional
    forward_rnn: {cell: {type: GRUCell, features: 4}, reverse: true, unroll: 2}
    backward_rnn: {cell: {type: GRUCell, features: 4}, reverse: false,
                   keep_order: false, return_carry: false}
)");
  ASSERT_TRUE(r.model) << r.diagnostics; // warnings do not fail
  const Layer &bi = r.model->layers[0];
  EXPECT_FALSE(bi.forward.reverse);
  EXPECT_FALSE(bi.forward.keepOrder);
  EXPECT_EQ(bi.forward.unroll, 2);
  EXPECT_TRUE(bi.backward.reverse);
  EXPECT_TRUE(bi.backward.keepOrder);
  EXPECT_EQ(count(r.diagnostics, "warning:"), 4u) << r.diagnostics;
  EXPECT_EQ(count(r.diagnostics, "error:"), 0u) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("spec.yaml:6:55: warning: 'reverse: true' is "
                               "ignored in 'forward_rnn'"),
            std::string::npos)
      << r.diagnostics;
}

TEST(SpecParser, UnrollIsClampedToTime) {
  ParseResult r = parse(R"(rnnc: 1
name: u
input: {time: 6, features: 3}
layers: [{type: RNN, unroll: 1000, cell: {type: LSTMCell, features: 2}}]
)");
  ASSERT_TRUE(r.model) << r.diagnostics;
  EXPECT_EQ(r.model->layers[0].rnn.unroll, 6);
}

/// The top-level param_dtype is every cell's default, whichever comes first
/// in the file; a cell's own param_dtype wins.
TEST(SpecParser, ParamDtypeModelWideAndPerCell) {
  ParseResult r = parse(R"(rnnc: 1
name: p
input: {time: 6, features: 3}
layers:
  - {type: RNN, cell: {type: LSTMCell, features: 2}}
  - {type: RNN, cell: {type: GRUCell, features: 2, param_dtype: float32}}
  - type: Bidirectional
    forward_rnn: {cell: {type: SimpleCell, features: 2}}
    backward_rnn: {cell: {type: MGUCell, features: 2, param_dtype: bfloat16}}
param_dtype: bfloat16
)");
  ASSERT_TRUE(r.model) << r.diagnostics;
  EXPECT_EQ(r.model->paramDtype, ElementType::BFloat16);
  EXPECT_EQ(r.model->layers[0].rnn.cell.paramDtype, ElementType::BFloat16);
  EXPECT_EQ(r.model->layers[1].rnn.cell.paramDtype, ElementType::Float32);
  EXPECT_EQ(r.model->layers[2].forward.cell.paramDtype, ElementType::BFloat16);
  EXPECT_EQ(r.model->layers[2].backward.cell.paramDtype, ElementType::BFloat16);

  ParseResult f = parse(R"(rnnc: 1
name: p
input: {time: 6, features: 3}
layers:
  - {type: RNN, cell: {type: LSTMCell, features: 2}}
  - {type: RNN, cell: {type: GRUCell, features: 2, param_dtype: bfloat16}}
)");
  ASSERT_TRUE(f.model) << f.diagnostics;
  EXPECT_EQ(f.model->layers[0].rnn.cell.paramDtype, ElementType::Float32);
  EXPECT_EQ(f.model->layers[1].rnn.cell.paramDtype, ElementType::BFloat16);
}

TEST(SpecParser, DenseActivationNoneIsTheDefault) {
  ParseResult r = parse(R"(rnnc: 1
name: d
input: {time: 6, features: 3}
layers:
  - {type: Dense, features: 2, activation: none}
  - {type: Dense, features: 2, activation: null}
  - {type: Dense, features: 2, activation: elu}
)");
  ASSERT_TRUE(r.model) << r.diagnostics;
  EXPECT_FALSE(r.model->layers[0].activation.has_value());
  EXPECT_FALSE(r.model->layers[1].activation.has_value());
  EXPECT_EQ(r.model->layers[2].activation, Activation::Elu);
}

TEST(SpecParser, JsonSpec) {
  ParseResult r = parse(R"({"rnnc": 1, "name": "j", "dtype": "float32",
 "input": {"batch": [], "time": 2, "features": 5, "seq_lengths": true},
 "layers": [{"type": "RNN", "name": "r",
             "cell": {"type": "GRUCell", "features": 7, "params": "a/b/c"}}]}
)");
  ASSERT_TRUE(r.model) << r.diagnostics;
  EXPECT_EQ(r.model->name, "j");
  EXPECT_TRUE(r.model->seqLengths);
  EXPECT_TRUE(r.model->batch.empty());
  EXPECT_EQ(r.model->layers[0].rnn.cell.params, "a/b/c");
}

TEST(SpecParser, PrettyPrintedJsonWithTabsOrSpaces) {
  // As json.dumps(indent=...) writes it: numbers and booleans end lines.
  for (const char *indent : {"\t", "  "}) {
    std::string spec = R"({
@"rnnc": 1,
@"name": "pretty",
@"input": {
@@"batch": [
@@@2
@@],
@@"time": 3,
@@"features": 4,
@@"seq_lengths": true
@},
@"layers": [
@@{
@@@"type": "RNN",
@@@"return_carry": false,
@@@"cell": {"type": "LSTMCell", "features": 5}
@@}
@]
}
)";
    std::string text;
    for (char c : spec)
      text += c == '@' ? std::string(indent) : std::string(1, c);
    ParseResult r = parse(text);
    ASSERT_TRUE(r.model) << r.diagnostics;
    EXPECT_EQ(r.model->batch, std::vector<int64_t>{2});
    EXPECT_EQ(r.model->time, 3);
    EXPECT_EQ(r.model->features, std::vector<int64_t>{4});
    EXPECT_TRUE(r.model->seqLengths);
    EXPECT_EQ(r.model->layers[0].rnn.cell.features, 5);
  }
}

TEST(SpecParser, TrailingSpacesAndComments) {
  ParseResult r = parse("rnnc: 1   \nname: c # the name\ninput:\n"
                        "  time: 3    # steps\n  features: 2\t\nlayers:\n"
                        "  - type: RNN # one layer\n"
                        "    cell: {type: GRUCell, features: 2}   \n");
  ASSERT_TRUE(r.model) << r.diagnostics;
  EXPECT_EQ(r.model->name, "c");
  EXPECT_EQ(r.model->time, 3);
  EXPECT_EQ(r.model->features, std::vector<int64_t>{2});
}

TEST(SpecParser, TabIndentationIsAnError) {
  ParseResult r =
      parse("rnnc: 1\nname: t\ninput:\n\ttime: 3\n"
            "\tfeatures: 2\nlayers:\n"
            "  - {type: RNN, cell: {type: GRUCell, features: 2}}\n");
  EXPECT_FALSE(r.model);
  EXPECT_NE(r.diagnostics.find("spec.yaml:4:1: error: invalid YAML: found a "
                               "tab character in indentation; indent with "
                               "spaces"),
            std::string::npos)
      << r.diagnostics;
  EXPECT_EQ(count(r.diagnostics, "error:"), 1u) << r.diagnostics;
}

TEST(SpecParser, CrlfLineEndings) {
  ParseResult r = parse("rnnc: 1\r\nname: w\r\ninput:\r\n  time: 3\r\n"
                        "  features: 2\r\nlayers:\r\n  - type: RNN\r\n"
                        "    cell: {type: LSTMCell, features: 2}\r\n");
  ASSERT_TRUE(r.model) << r.diagnostics;
  EXPECT_EQ(r.model->layers[0].rnn.cell.features, 2);
}

TEST(SpecParser, RendersLocationSourceLineCaretAndNote) {
  ParseResult r = parse(R"(rnnc: 1
name: kws
input: {time: 5, features: 3}
layers:
  - type: RNN
    cell: {type: LSTMcell, features: "64"}
)");
  EXPECT_FALSE(r.model);
  EXPECT_EQ(r.diagnostics,
            "spec.yaml:6:18: error: unknown cell type 'LSTMcell'; expected "
            "one of LSTMCell, OptimizedLSTMCell, GRUCell, MGUCell, "
            "SimpleCell, ConvLSTMCell\n"
            "    cell: {type: LSTMcell, features: \"64\"}\n"
            "                 ^\n"
            "spec.yaml:6:18: note: did you mean 'LSTMCell'?\n"
            "spec.yaml:6:38: error: expected an integer for 'features', found "
            "a string\n"
            "    cell: {type: LSTMcell, features: \"64\"}\n"
            "                                     ^\n");
}

TEST(SpecParser, ErrorsAreCappedWithANote) {
  std::string spec = "rnnc: 1\nname: cap\ninput: {time: 5, features: 3}\n"
                     "layers:\n";
  for (int i = 0; i < 25; ++i)
    spec += "  - {type: RNN, cell: {type: GRUCell, features: 0}}\n";
  ParseResult r = parse(spec);
  EXPECT_FALSE(r.model);
  EXPECT_EQ(count(r.diagnostics, ": error: "), kMaxErrors) << r.diagnostics;
  EXPECT_EQ(count(r.diagnostics, "too many errors; 5 more were suppressed"),
            1u);
  // Source order: the last one shown is the 20th layer's (line 24).
  EXPECT_NE(r.diagnostics.find("spec.yaml:24:49: error: 'features' must be "
                               "positive, found 0"),
            std::string::npos)
      << r.diagnostics;
  EXPECT_EQ(r.diagnostics.find("spec.yaml:25:"), std::string::npos);
}

TEST(SpecParser, AllSemanticErrorsInOneRun) {
  ParseResult r = parse(R"(rnnc: 2
name: 9lives
dtype: float16
input: {time: 0, features: [4, 4, 2]}
layers:
  - {type: RNN, name: a, cell: {type: GRUCell, features: 8, gate_fn: tanhh}}
  - {type: RNN, name: a, cell: {type: GRUCell, features: 8}}
)");
  EXPECT_FALSE(r.model);
  for (const char *message :
       {"spec.yaml:1:7: error: unsupported spec version 2; expected 1",
        "spec.yaml:2:7: error: expected a C identifier for 'name', found "
        "'9lives'",
        "spec.yaml:3:8: error: dtype 'float16' is not supported yet; use "
        "float32 or bfloat16",
        "spec.yaml:4:15: error: 'time' must be at least 1, found 0",
        "spec.yaml:6:70: error: unknown activation 'tanhh'",
        "spec.yaml:6:70: note: did you mean 'tanh'?",
        "spec.yaml:7:23: error: duplicate layer name 'a'",
        "spec.yaml:6:23: note: first defined here"})
    EXPECT_NE(r.diagnostics.find(message), std::string::npos) << message << "\n"
                                                              << r.diagnostics;
}

TEST(SpecParser, SyntaxErrorStopsAtTheFirst) {
  ParseResult r = parse("rnnc: 1\nname: [unclosed\ninput: {time: 0}\n"
                        "layers: ]]]\n");
  EXPECT_FALSE(r.model);
  EXPECT_EQ(count(r.diagnostics, "error:"), 1u) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("error: invalid YAML: "), std::string::npos)
      << r.diagnostics;
}

TEST(SpecParser, ToLocation) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("ab\ncde\n", "f.yaml"),
      llvm::SMLoc());
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  EXPECT_TRUE(
      llvm::isa<mlir::UnknownLoc>(toLocation(sourceMgr, llvm::SMLoc(), ctx)));
  const char *start = sourceMgr.getMemoryBuffer(1)->getBufferStart();
  auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(
      toLocation(sourceMgr, llvm::SMLoc::getFromPointer(start + 4), ctx));
  ASSERT_TRUE(loc);
  EXPECT_EQ(loc.getFilename().str(), "f.yaml");
  EXPECT_EQ(loc.getLine(), 2u);
  EXPECT_EQ(loc.getColumn(), 2u);
  char outside = 0;
  EXPECT_TRUE(llvm::isa<mlir::UnknownLoc>(
      toLocation(sourceMgr, llvm::SMLoc::getFromPointer(&outside), ctx)));
}

TEST(SpecParser, InvalidBufferIdIsAnError) {
  llvm::SourceMgr sourceMgr;
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, os);
  EXPECT_FALSE(parseModel(sourceMgr, 1, ctx));
  EXPECT_NE(text.find("no spec buffer with id 1"), std::string::npos) << text;
}

} // namespace
