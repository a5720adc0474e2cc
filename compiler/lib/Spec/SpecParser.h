//===- SpecParser.h - Internals shared by the spec parser files -*- C++ -*-===//
//
// parseModel runs in three steps: a syntax pass over the YAML (stops at the
// first syntax error), the schema pass that fills a Model and reports every
// local mistake (Parser.cpp, LayerParser.cpp), and the checks that span
// several keys or layers (Checker.cpp). ModelInfo carries what the last step
// needs beyond the Model: source locations of individual keys and which
// parts were read without error (so one mistake does not cascade).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_SPEC_SPECPARSER_H
#define RNN_LIB_SPEC_SPECPARSER_H

#include "SpecDiagnostics.h"
#include "YamlReader.h"

#include "rnn/Spec/Model.h"

#include "llvm/Support/SMLoc.h"

#include <string>
#include <vector>

namespace rnnc::spec::detail {

struct CellInfo {
  bool valid = false; ///< type, features and kernel_size read cleanly
  bool paramsExplicit = false;
  llvm::SMLoc typeLoc; ///< the `type` value (the cell if absent)
  llvm::SMLoc kernelSizeLoc;
  llvm::SMLoc paramsLoc; ///< the `params` value, or the cell if defaulted
  bool paramDtypeExplicit = false; ///< the cell has a valid `param_dtype`
  llvm::SMLoc paramDtypeLoc;       ///< its value
  bool dtypeExplicit = false;      ///< the cell has a valid `dtype`
  llvm::SMLoc dtypeLoc;            ///< its value
};

struct LayerInfo {
  bool valid = false;   ///< type known, every cell valid, required keys read
  bool typed = false;   ///< the `type` was read (Layer::kind is meaningful)
  llvm::SMLoc typeLoc;  ///< the `type` value, or the layer
  llvm::SMLoc nameLoc;  ///< the `name` value, or the layer if defaulted
  llvm::SMLoc mergeLoc; ///< the `merge_fn` value, or the layer
  llvm::SMLoc paramsLoc;    ///< the layer's `params` value, or the layer
  bool paramsExplicit = false; ///< the layer has a `params` key
  llvm::SMLoc fnLoc;        ///< Pool / Activation `fn` value, or the layer
  llvm::SMLoc validOnlyLoc; ///< Pool `valid_only` value (if given)
  CellInfo cells[2];    ///< RNN layer: [0]; Bidirectional: forward, backward
};

struct ModelInfo {
  bool featuresSeen = false; ///< `input.features` is given
  bool featuresValid = false;
  bool batchValid = false;
  bool timeValid = false;
  llvm::SMLoc timeLoc;         ///< `input.time` value
  llvm::SMLoc runtimeBatchLoc; ///< the first `{max: N}` of `input.batch`
  llvm::SMLoc streamLoc;       ///< `input.stream` value
  llvm::SMLoc featuresLoc;     ///< `input.features` value
  llvm::SMLoc inputLoc;        ///< the `input` key
  bool inputSeen = false;
  llvm::SMLoc seqLengthsLoc;   ///< `input.seq_lengths` key, or `input`
  llvm::SMLoc paramsLayoutLoc; ///< `params_layout` value, or the spec
  llvm::SMLoc paramDtypeLoc;   ///< the top-level `param_dtype` value
  llvm::SMLoc quantizeLoc;     ///< the top-level `quantize` key
  llvm::SMLoc dtypeLoc;        ///< the top-level `dtype` value
  std::vector<LayerInfo> layers;
};

/// Reads a `dtype` key (of the model or of a cell, as Flax has them):
/// float32 or bfloat16; any other type is an error at the value
/// (std::nullopt), never a failure further down.
std::optional<ElementType> parseDtype(YamlReader &reader, Field &field);

/// Reads a `param_dtype` key (of the model or of a cell): float32 or
/// bfloat16; any other type is an error at the value (std::nullopt).
std::optional<ElementType> parseParamDtype(YamlReader &reader, Field &field);

/// Reads the `layers` list into model.layers / info.layers.
void parseLayers(YamlReader &reader, Field &field, Model &model,
                 ModelInfo &info);

/// Fills defaults that depend on other keys (params paths, unroll clamped to
/// time) once the whole spec has been read.
void finalizeLayers(Model &model);

/// The checks that span several keys or layers.
/// Gives every cell without its own `param_dtype` or `dtype` the model's,
/// and rejects the combinations rnnc does not compute: bfloat16 params or
/// compute on ConvLSTMCell, bf16 compute with an activation whose bf16
/// rounding rnnc does not know, and a SimpleCell with bf16 compute and
/// float32 params without `residual` (Flax's own scan fails there).
void applyParamDtypes(Model &model, const ModelInfo &info,
                      SpecDiagnostics &diags);

void checkModel(const Model &model, const ModelInfo &info,
                SpecDiagnostics &diags);

} // namespace rnnc::spec::detail

#endif // RNN_LIB_SPEC_SPECPARSER_H
