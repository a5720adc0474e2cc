// RUN: rnn-opt %s --rnn-emitc-entry-abi --split-input-file --verify-diagnostics

// The header's C types must exist for every parameter.

// expected-error @+1 {{'emitc.func' op cannot name the C type of input 'x', found '!emitc.size_t'}}
emitc.func @m_run(%x: !emitc.ptr<!emitc.size_t> {rnn.name = "x"}) {
  return
}

// -----

// expected-error @+1 {{'emitc.func' op expected a pointer workspace, found 'i64'}}
emitc.func @m_run(%ws: i64 {rnn.workspace}) {
  return
}

// -----

// expected-error @+1 {{'emitc.func' op expects the workspace ('rnn.workspace') as its last argument}}
emitc.func @m_run(%ws: !emitc.ptr<i8> {rnn.workspace},
                  %x: !emitc.ptr<f32> {rnn.name = "x"}) {
  return
}
