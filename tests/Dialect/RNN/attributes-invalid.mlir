// RUN: rnn-opt %s --split-input-file --verify-diagnostics

/// One case per branch of the rnn.* attribute verifier (RNNDialect.cpp).

// expected-error @+1 {{'rnn.num_steps' belongs on a function}}
module attributes {rnn.num_steps = 5 : i64} {}

// -----

// expected-error @+1 {{'rnn.num_steps' must be at least 1, found 0}}
func.func @f() attributes {rnn.num_steps = 0 : i64} { return }

// -----

// expected-error @+1 {{'rnn.num_steps' must be an integer attribute}}
func.func @f() attributes {rnn.num_steps = "five"} { return }

// -----

// expected-error @+1 {{'rnn.time_block_batch' belongs on a function}}
module attributes {rnn.time_block_batch = 16 : i64} {}

// -----

// expected-error @+1 {{'rnn.time_block_batch' must be at least 1, found 0}}
func.func @f() attributes {rnn.time_block_batch = 0 : i64} { return }

// -----

// expected-error @+1 {{'rnn.workspace_size' belongs on the module}}
func.func @f() attributes {rnn.workspace_size = 64 : i64} { return }

// -----

// expected-error @+1 {{'rnn.workspace_size' must be at least 0, found -1}}
module attributes {rnn.workspace_size = -1 : i64} {}

// -----

// expected-error @+1 {{'rnn.workspace_alignment' belongs on the module}}
func.func @f() attributes {rnn.workspace_alignment = 64 : i64} { return }

// -----

// expected-error @+1 {{'rnn.workspace_alignment' must be at least 1, found 0}}
module attributes {rnn.workspace_alignment = 0 : i64} {}

// -----

// expected-error @+1 {{'rnn.workspace_alignment' must be a power of two}}
module attributes {rnn.workspace_alignment = 48 : i64} {}

// -----

// expected-error @+1 {{'rnn.spec_sha256' belongs on the module}}
func.func @f() attributes {rnn.spec_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"} { return }

// -----

// expected-error @+1 {{'rnn.weights_sha256' must be a SHA-256 in lower-case hex (or empty)}}
module attributes {rnn.weights_sha256 = "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"} {}

// -----

func.func @f(%x: f32) -> f32 {
  // expected-error @+1 {{'rnn.exact_fma' belongs on a math.fma or llvm.intr.fma}}
  %0 = arith.addf %x, %x {rnn.exact_fma} : f32
  return %0 : f32
}

// -----

func.func @f(%x: f32) -> f32 {
  // expected-error @+1 {{'rnn.exact_fma' must be a unit attribute}}
  %0 = math.fma %x, %x, %x {rnn.exact_fma = 1 : i64} : f32
  return %0 : f32
}

// -----

// expected-error @+1 {{'rnn.output' belongs on a function's arguments or results}}
func.func @f() attributes {rnn.output} { return }

// -----

// expected-error @+1 {{unknown attribute 'rnn.fast'}}
func.func @f() attributes {rnn.fast} { return }

// -----

// expected-error @+1 {{'rnn.name' must be a non-empty string}}
func.func @f(%x: tensor<2xf32> {rnn.name = ""}) { return }

// -----

// expected-error @+1 {{'rnn.output' must be a unit attribute}}
func.func @f(%x: memref<2xf32> {rnn.output = 1 : i64}) { return }

// -----

// expected-error @+1 {{'rnn.time_axis' 2 is not an axis of 'tensor<2x5xf32>'}}
func.func @f(%x: tensor<2x5xf32> {rnn.time_axis = 2 : i64}) { return }

// -----

// expected-error @+1 {{'rnn.num_steps' is not an attribute of a function's arguments}}
func.func @f(%x: tensor<2x5xf32> {rnn.num_steps = 5 : i64}) { return }

// -----

// expected-error @+1 {{'rnn.name' must be a non-empty string}}
func.func private @f() -> (tensor<2xf32> {rnn.name = 3 : i64})

// -----

// expected-error @+1 {{'rnn.time_axis' must be at least 0, found -1}}
func.func private @f() -> (tensor<2x5xf32> {rnn.time_axis = -1 : i64})

// -----

// expected-error @+1 {{'rnn.workspace' is not an attribute of a function's results}}
func.func private @f() -> (memref<?xi8> {rnn.workspace})

// -----

func.func @f(%c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'rnn.bf16_operands' belongs on a linalg.matmul}}
  %0 = linalg.add {rnn.bf16_operands} ins(%c, %c : tensor<2x4xf32>, tensor<2x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
