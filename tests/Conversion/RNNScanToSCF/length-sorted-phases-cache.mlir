// RUN: rnn-opt %s --convert-rnn-scan-to-scf="row-phase-cache-bytes=32" --split-input-file | FileCheck %s --check-prefix=WHOLE
// RUN: rnn-opt %s --convert-rnn-scan-to-scf="row-phase-cache-bytes=64" --split-input-file | FileCheck %s --check-prefix=PHASES

/// Phases of fewer rows in a length-sorted block sweep the recurrent
/// weights for fewer rows each; they run only where those weights (here
/// 4 x 4 f32, 64 bytes) fit the cache named. Beyond it, each block of 4
/// sorted rows runs whole until its longest row ends.

// WHOLE-LABEL: func.func @phases_follow_the_cache
// WHOLE: scf.for {{.*}} -> (tensor<4x4xf32>, tensor<4x6x4xf32>, tensor<4x4xf32>)
// WHOLE:   rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<4x3xf32>, tensor<4x4xf32>
// WHOLE-NOT: tensor<3x6x4xf32>
// WHOLE: return

// PHASES-LABEL: func.func @phases_follow_the_cache
// PHASES: scf.for {{.*}} -> (tensor<4x4xf32>, tensor<4x6x4xf32>, tensor<4x4xf32>)
// PHASES: scf.for {{.*}} -> (tensor<3x4xf32>, tensor<3x6x4xf32>, tensor<3x4xf32>)
// PHASES: scf.for {{.*}} -> (tensor<1x4xf32>, tensor<1x6x4xf32>, tensor<1x4xf32>)
func.func @phases_follow_the_cache(%x: tensor<8x6x3xf32>, %len: tensor<8xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> (tensor<8x6x4xf32>, tensor<8x4xf32>) {
  %y, %hT = rnn.scan %x lengths(%len : tensor<8xi32>) zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<8x6x3xf32> -> tensor<8x6x4xf32>, tensor<8x4xf32> {
  ^bb0(%h: tensor<8x4xf32>, %xt: tensor<8x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<8x3xf32>, tensor<8x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<8x4xf32>) output(%h1 : tensor<8x4xf32>)
  }
  return %y, %hT : tensor<8x6x4xf32>, tensor<8x4xf32>
}

// -----

/// An int8 kernel counts its i8 storage: 4 x 4 bytes fit 32, so the block
/// runs in phases.

// PHASES-LABEL: func.func @int8_storage_counts
// PHASES: scf.for {{.*}} -> (tensor<3x4xf32>, tensor<3x6x4xf32>, tensor<3x4xf32>)
// WHOLE-LABEL: func.func @int8_storage_counts
// WHOLE: scf.for {{.*}} -> (tensor<3x4xf32>, tensor<3x6x4xf32>, tensor<3x4xf32>)
func.func @int8_storage_counts(%x: tensor<8x6x3xf32>, %len: tensor<8xi32>,
    %wi: tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>>,
    %wh: tensor<4x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>>) -> tensor<8x6x4xf32> {
  %y, %hT = rnn.scan %x lengths(%len : tensor<8xi32>) zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<8x6x3xf32> -> tensor<8x6x4xf32>, tensor<8x4xf32> {
  ^bb0(%h: tensor<8x4xf32>, %xt: tensor<8x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<8x3xf32>, tensor<8x4xf32>, tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>>, tensor<4x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>>
    rnn.yield carry(%h1 : tensor<8x4xf32>) output(%h1 : tensor<8x4xf32>)
  }
  return %y : tensor<8x6x4xf32>
}
