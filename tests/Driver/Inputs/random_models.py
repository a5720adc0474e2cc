#!/usr/bin/env python3
"""Random models through `rnnc run`, on both code paths, against the numpy
model of Flax in examples/flax_numpy.py (written from the semantics
reference, sharing no code with rnnc).

Usage: random_models.py RNNC SRC_ROOT SEED COUNT [--large | --whole]

With --whole, each case is a random whole model over the spec language
(random_whole.py: every cell, RNN option, Bidirectional merge, stacks and
the layers around them), within 1e-4 + 1e-3 * |expected| (stacks, LayerNorm
and softmax carry float32 rounding further). Otherwise each case draws a cell (LSTMCell, GRUCell), an RNN (reverse, keep_order)
or a Bidirectional layer, batch, time, sizes, lengths (or none),
`padded_outputs: zeros` (outputs masked past each length), time-major
layout, unroll and initial carries. `--large` draws sequences long enough
for blocked time loops. Every output and final carry must be within
1e-5 + 1e-4 * |expected|. Prints one line per failure, then a summary;
exits 1 on any failure.
"""
import os, subprocess, sys, tempfile
import numpy as np

RNNC, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, 'examples'))
import flax_numpy as fn
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_whole

rng = np.random.default_rng(int(sys.argv[3]))
N = int(sys.argv[4])
LARGE = '--large' in sys.argv[5:]
WHOLE = '--whole' in sys.argv[5:]

def check(sp, wp, ip, want, desc, tmp, valid={}, atol=1e-5, rtol=1e-4):
    """Runs the model on both code paths; every output must be within
    atol + rtol * |expected| where `valid` (a mask per output) allows."""
    worst = 0.0
    for path in ['llvm', 'c']:
        op = os.path.join(tmp, 'out.npz')
        r = subprocess.run([RNNC, 'run', sp, '--weights', wp, '--inputs', ip, '--output', op, f'--emit-path={path}'], capture_output=True, text=True)
        if r.returncode != 0:
            print('FAIL run', path, desc, r.stderr[:500]); return False, 0
        got = np.load(op)
        for k, v in want.items():
            if k not in got.files:
                print('FAIL missing', k, path, desc, got.files); return False, 0
            if got[k].shape != np.shape(v):
                print('FAIL shape', k, path, desc, got[k].shape, np.shape(v)); return False, 0
            err = np.abs(got[k] - v); tol = atol + rtol * np.abs(v)
            if k in valid:
                err = np.where(valid[k], err, 0.0)
            if not (err <= tol).all():
                print('FAIL', k, path, desc, 'max err', err.max()); return False, 0
            worst = max(worst, float(err.max()) if err.size else 0.0)
    return True, worst

def one_whole(case, tmp):
    text, weights, inputs, want, valid, desc = random_whole.draw(rng, case)
    sp = os.path.join(tmp, f'wz{case}.yaml'); open(sp, 'w').write(text)
    wp = os.path.join(tmp, 'w.npz'); np.savez(wp, **weights)
    ip = os.path.join(tmp, 'in.npz'); np.savez(ip, **inputs)
    good, worst = check(sp, wp, ip, want, desc, tmp, valid, atol=1e-4, rtol=1e-3)
    if not good:
        print('  spec:\n    ' + text.replace('\n', '\n    '))
    return good, worst

def one(case, tmp):
    cell = rng.choice(['LSTMCell', 'GRUCell'])
    bidi = rng.random() < 0.35
    if LARGE:  # outputs above 2 MiB: blocks of time steps
        B, T = int(rng.choice([16, 24])), int(rng.integers(300, 360))
        I, H = int(rng.choice([16, 32])), 128
    else:  # batches of 4 and more run in length-sorted row blocks
        B = int(rng.choice([1, 2, 3, 4, 5, 7, 8, 12, 16, 18]))
        T = int(rng.integers(1, 25))
        I = int(rng.choice([1, 3, 8, 16]))
        H = int(rng.choice([2, 5, 8, 16, 24, 32]))
    lengths = rng.random() < 0.75
    zeros = lengths and rng.random() < 0.6
    time_major = rng.random() < 0.3
    unroll = int(rng.integers(1, 5))
    init = rng.random() < 0.4
    reverse = (not bidi) and rng.random() < 0.5
    keep_order = reverse and rng.random() < 0.6
    step = fn.lstm_step if cell == 'LSTMCell' else fn.gru_step
    mkp = fn.lstm_params if cell == 'LSTMCell' else fn.gru_params
    names = ['c', 'h'] if cell == 'LSTMCell' else ['h']
    spec = ['rnnc: 1', f'name: fz{case}']
    if zeros:
        spec.append('padded_outputs: zeros')
    spec.append(f'input: {{batch: [{B}], time: {T}, features: {I}, time_major: {str(time_major).lower()}, seq_lengths: {str(lengths).lower()}}}')
    spec.append('layers:')
    weights = {}; inputs = {}
    x = rng.uniform(-1, 1, (B, T, I)).astype(np.float32)
    L = rng.integers(0, T + 1, B).astype(np.int32) if lengths else np.full(B, T, np.int32)
    if lengths:
        L[0] = T
    inputs['x'] = np.transpose(x, (1, 0, 2)).copy() if time_major else x
    if lengths:
        inputs['seq_lengths'] = L
    opt = f'unroll: {unroll}'
    if bidi:
        pf = mkp(rng, I, H); pb = mkp(rng, I, H)
        weights.update({'l0/forward_rnn/cell/' + k: v for k, v in pf.items()})
        weights.update({'l0/backward_rnn/cell/' + k: v for k, v in pb.items()})
        spec += ['  - type: Bidirectional', '    name: l0',
                 f'    forward_rnn: {{cell: {{type: {cell}, features: {H}}}, {opt}}}',
                 f'    backward_rnn: {{cell: {{type: {cell}, features: {H}}}, {opt}}}',
                 '    merge_fn: concat', '    return_carry: true']
        cf = tuple(np.zeros((B, H)) for _ in names); cb = tuple(np.zeros((B, H)) for _ in names)
        if init:
            spec.append('    initial_carry: input')
            cf = tuple(rng.uniform(-1, 1, (B, H)).astype(np.float32) for _ in names)
            cb = tuple(rng.uniform(-1, 1, (B, H)).astype(np.float32) for _ in names)
            for n, v in zip(names, cf): inputs[f'initial_carry/l0/forward/{n}'] = v
            for n, v in zip(names, cb): inputs[f'initial_carry/l0/backward/{n}'] = v
        y, fc, bc = fn.bidirectional(step, pf, step, pb, x, cf, cb, L)
        want = {f'carry/l0/forward/{n}': v for n, v in zip(names, fc)}
        want.update({f'carry/l0/backward/{n}': v for n, v in zip(names, bc)})
    else:
        p = mkp(rng, I, H)
        weights.update({'l0/cell/' + k: v for k, v in p.items()})
        spec += ['  - type: RNN', '    name: l0', f'    cell: {{type: {cell}, features: {H}}}',
                 f'    reverse: {str(reverse).lower()}', f'    keep_order: {str(keep_order).lower()}',
                 f'    {opt}', '    return_carry: true']
        c0 = tuple(np.zeros((B, H)) for _ in names)
        if init:
            spec.append('    initial_carry: input')
            c0 = tuple(rng.uniform(-1, 1, (B, H)).astype(np.float32) for _ in names)
            for n, v in zip(names, c0): inputs[f'initial_carry/l0/{n}'] = v
        y, fc = fn.rnn(step, p, x, c0, L, reverse, keep_order)
        want = {f'carry/l0/{n}': v for n, v in zip(names, fc)}
    if zeros:
        mask = (np.arange(T)[None, :] < L[:, None])[..., None]
        y = np.where(mask, y, 0.0)
    want['y'] = np.transpose(y, (1, 0, 2)) if time_major else y
    sp = os.path.join(tmp, f'fz{case}.yaml'); open(sp, 'w').write('\n'.join(spec) + '\n')
    wp = os.path.join(tmp, 'w.npz'); np.savez(wp, **weights)
    ip = os.path.join(tmp, 'in.npz'); np.savez(ip, **inputs)
    desc = f'{cell} bidi={bidi} B={B} T={T} I={I} H={H} len={lengths} zeros={zeros} tm={time_major} unroll={unroll} init={init} rev={reverse} keep={keep_order}'
    return check(sp, wp, ip, want, desc, tmp)

ok = 0; worst = 0.0
with tempfile.TemporaryDirectory() as tmp:
    for case in range(N):
        good, w = (one_whole if WHOLE else one)(case, tmp)
        ok += good; worst = max(worst, w)
print(f'{ok} of {N} random models match the numpy model, worst abs error {worst:.2e}')
sys.exit(0 if ok == N else 1)
