// RUN: rnn-opt %s --split-input-file --verify-diagnostics

/// One case per branch of the rnn.* attribute verifier (RNNDialect.cpp);
/// attributes.mlir has each where the stages put it.

// expected-error @+1 {{'rnn.num_steps' belongs on a function, found on 'builtin.module'}}
module attributes {rnn.num_steps = 5 : i64} {}

// -----

// expected-error @+1 {{'rnn.num_steps' must be at least 1, found 0}}
func.func @f() attributes {rnn.num_steps = 0 : i64} { return }

// -----

// expected-error @+1 {{'rnn.num_steps' expects an integer, found "five"}}
func.func @f() attributes {rnn.num_steps = "five"} { return }

// -----

// expected-error @+1 {{'rnn.num_steps' expects an integer, found 5 : index}}
func.func @f() attributes {rnn.num_steps = 5 : index} { return }

// -----

// expected-error @+1 {{'rnn.time_block_batch' belongs on a function, found on 'builtin.module'}}
module attributes {rnn.time_block_batch = 16 : i64} {}

// -----

// expected-error @+1 {{'rnn.time_block_batch' must be at least 1, found 0}}
func.func @f() attributes {rnn.time_block_batch = 0 : i64} { return }

// -----

// expected-error @+1 {{'rnn.column_split' belongs on a function, found on 'builtin.module'}}
module attributes {rnn.column_split = 128 : i64} {}

// -----

// expected-error @+1 {{'rnn.column_split' must be at least 1, found 0}}
func.func @f() attributes {rnn.column_split = 0 : i64} { return }

// -----

// expected-error @+1 {{'rnn.flat_batch' belongs on a function, found on 'builtin.module'}}
module attributes {rnn.flat_batch = 2 : i64} {}

// -----

// expected-error @+1 {{'rnn.flat_batch' must be at least 2, found 1}}
func.func @f() attributes {rnn.flat_batch = 1 : i64} { return }

// -----

// expected-error @+1 {{'rnn.workspace_size' belongs on the module, found on 'func.func'}}
func.func @f() attributes {rnn.workspace_size = 64 : i64} { return }

// -----

// expected-error @+1 {{'rnn.workspace_size' must be at least 0, found -1}}
module attributes {rnn.workspace_size = -1 : i64} {}

// -----

// expected-error @+1 {{'rnn.workspace_alignment' belongs on the module, found on 'func.func'}}
func.func @f() attributes {rnn.workspace_alignment = 64 : i64} { return }

// -----

// expected-error @+1 {{'rnn.workspace_alignment' must be at least 1, found 0}}
module attributes {rnn.workspace_alignment = 0 : i64} {}

// -----

// expected-error @+1 {{'rnn.workspace_alignment' must be a power of two, found 48}}
module attributes {rnn.workspace_alignment = 48 : i64} {}

// -----

// expected-error @+1 {{'rnn.spec_sha256' belongs on the module, found on 'func.func'}}
func.func @f() attributes {rnn.spec_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"} { return }

// -----

// expected-error @+1 {{'rnn.weights_sha256' expects 64 lower-case hex digits or an empty string, found "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"}}
module attributes {rnn.weights_sha256 = "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"} {}

// -----

// expected-error @+1 {{'rnn.spec_sha256' expects 64 lower-case hex digits or an empty string, found 12 : i64}}
module attributes {rnn.spec_sha256 = 12 : i64} {}

// -----


func.func @f(%x: f32) -> f32 {
  // expected-error @+1 {{'rnn.exact_fma' belongs on a math.fma or llvm.intr.fma, found on 'arith.addf'}}
  %0 = arith.addf %x, %x {rnn.exact_fma} : f32
  return %0 : f32
}

// -----

func.func @f(%x: f32) -> f32 {
  // expected-error @+1 {{'rnn.exact_fma' expects a unit attribute, found 1 : i64}}
  %0 = math.fma %x, %x, %x {rnn.exact_fma = 1 : i64} : f32
  return %0 : f32
}

// -----

// expected-error @+1 {{'rnn.name' belongs on a function's arguments or results, found on 'func.func'}}
func.func @f() attributes {rnn.name = "x"} { return }

// -----

// expected-error @+1 {{'rnn.output' belongs on a function's arguments, found on 'func.func'}}
func.func @f() attributes {rnn.output} { return }

// -----

// expected-error @+1 {{unknown attribute 'rnn.fast' (RNNDialect.h lists the rnn attributes)}}
func.func @f() attributes {rnn.fast} { return }

// -----

// expected-error @+1 {{'rnn.name' expects a non-empty string, found ""}}
func.func @f(%x: tensor<2xf32> {rnn.name = ""}) { return }

// -----

// expected-error @+1 {{'rnn.output' expects a unit attribute, found 1 : i64}}
func.func @f(%x: memref<2xf32> {rnn.output = 1 : i64}) { return }

// -----

// expected-error @+1 {{'rnn.workspace' expects a unit attribute, found true}}
func.func @f(%ws: memref<?xi8> {rnn.workspace = true}) { return }

// -----

// expected-error @+1 {{'rnn.workspace' expects a 1-D i8 memref argument, found 'memref<16xf32>'}}
func.func @f(%ws: memref<16xf32> {rnn.workspace}) { return }

// -----

// expected-error @+1 {{'rnn.workspace' expects a 1-D i8 memref argument, found 'tensor<?xi8>'}}
func.func @f(%ws: tensor<?xi8> {rnn.workspace}) { return }

// -----

// expected-error @+1 {{'rnn.workspace' expects one workspace argument, found arguments 0 and 2}}
func.func @f(%a: memref<?xi8> {rnn.workspace}, %y: memref<2xf32> {rnn.output}, %b: memref<?xi8> {rnn.workspace}) { return }

// -----

// expected-error @+1 {{'rnn.time_axis' expects an axis of 'tensor<2x5xf32>', found 2}}
func.func @f(%x: tensor<2x5xf32> {rnn.time_axis = 2 : i64}) { return }

// -----

// expected-error @+1 {{'rnn.batch_axis' expects an integer, found "0"}}
func.func @f(%x: tensor<2x5xf32> {rnn.batch_axis = "0"}) { return }

// -----

// expected-error @+1 {{'rnn.num_steps' is not an attribute of a function's arguments}}
func.func @f(%x: tensor<2x5xf32> {rnn.num_steps = 5 : i64}) { return }

// -----

// expected-error @+1 {{'rnn.name' expects a non-empty string, found 3 : i64}}
func.func private @f() -> (tensor<2xf32> {rnn.name = 3 : i64})

// -----

// expected-error @+1 {{'rnn.time_axis' must be at least 0, found -1}}
func.func private @f() -> (tensor<2x5xf32> {rnn.time_axis = -1 : i64})

// -----

// expected-error @+1 {{'rnn.batch_axis' expects an axis of 'tensor<2xf32>', found 1}}
func.func private @f() -> (tensor<2xf32> {rnn.batch_axis = 1 : i64})

// -----

// expected-error @+1 {{'rnn.workspace' is not an attribute of a function's results}}
func.func private @f() -> (memref<?xi8> {rnn.workspace})
