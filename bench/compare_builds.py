#!/usr/bin/env python3
"""Times the code two rnnc builds generate, in one process, in turns.

  bench/compare_builds.py OLD_RNNC NEW_RNNC [--filter S] [--seconds N]
                          [--grid full|quick|precision|check-only]
                          [--cpu CPU] [--bench RNN_BENCH] [--out DIR]

For a change meant to leave speed alone (a refactor, a new pass that should
not fire): rnn-bench writes the grid's problems (`--dump-only`), both rnnc
binaries compile each one (`a` with OLD, `b` with NEW, for the same
--cpu), and one C program per config calls a_run and b_run in turns, a
block of calls each, for about --seconds, on the problem's own input and
lengths. It prints each config's median time per call for both, the
median of the per-turn ratios NEW/OLD and the ratio of the fastest turns,
then their geometric means and the worst config (a config either build
refuses, e.g. a precision the old one lacks, is listed as such). Pass the same binary
twice to see what the turn order and placement alone make of a config
(an A/A control); numbers are only as quiet as the machine.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

DRIVER = r'''
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "a.h"
#include "b.h"
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int less(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}
static void *buffer(size_t bytes, const char *file) {
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (file) {
    FILE *f = fopen(file, "rb");
    if (!f || fread(p, 1, bytes, f) != bytes) { perror(file); exit(2); }
    fclose(f);
  }
  return p;
}
int main(int argc, char **argv) {
  double seconds = atof(argv[1]);
%(buffers)s
  if (%(call_a)s || %(call_b)s) { fprintf(stderr, "a run failed\n"); return 1; }
  double t0 = now(); (void)%(call_a)s; double one = now() - t0;
  t0 = now(); (void)%(call_b)s; one = (one + now() - t0) / 2;
  int reps = one > 0.02 ? 1 : (int)(0.02 / one) + 1;
  int turns = (int)(seconds / (2 * reps * one));
  turns = turns < 3 ? 3 : turns > 400 ? 400 : turns;
  double *ta = malloc(turns * sizeof(double)), *tb = malloc(turns * sizeof(double));
  double *ratio = malloc(turns * sizeof(double));
  for (int k = 0; k < turns; ++k) {
    double s = now();
    for (int i = 0; i < reps; ++i) (void)%(call_a)s;
    ta[k] = (now() - s) / reps;
    s = now();
    for (int i = 0; i < reps; ++i) (void)%(call_b)s;
    tb[k] = (now() - s) / reps;
    ratio[k] = tb[k] / ta[k];
  }
  qsort(ta, turns, sizeof(double), less);
  qsort(tb, turns, sizeof(double), less);
  qsort(ratio, turns, sizeof(double), less);
  printf("%%.6g %%.6g %%.6g %%.6g %%.6g %%d\n", ta[turns / 2], tb[turns / 2],
         ratio[turns / 2], ta[0], tb[0], turns);
  return 0;
}
'''


def parameters(header, prefix):
    """The run function's parameters: (name, C element type, count)."""
    text = open(header).read()
    args = re.search(r'int32_t %s_run\((.*?)\);' % prefix, text, re.S).group(1)
    names = [re.search(r'(\w+)\s*$', a.strip()).group(1) for a in args.split(',')]
    sizes = {n: (t, math.prod(int(d) for d in re.findall(r'\d+', dims)))
             for n, t, dims in re.findall(r'\*\s+(\w+) (float|int32_t)((?:\[\d+\])+)', text)}
    workspace = int(re.search(r'#define %s_WORKSPACE_SIZE (\d+)' % prefix.upper(), text).group(1))
    out = []
    for name in names:
        if name == 'workspace':
            out.append((name, 'char', workspace))
        else:
            out.append((name,) + sizes[name])
    return out


def write_driver(work, inputs):
    lines, calls = [], {}
    for side in 'ab':
        args = []
        for name, ctype, count in parameters(os.path.join(work, side + '.h'), side):
            size = 4 * count if ctype != 'char' else count
            source = inputs.get(name)
            lines.append('  %s *%s_%s = buffer(%d, %s);' % (
                ctype, side, name, size, '"%s"' % source if source else 'NULL'))
            args.append('%s_%s' % (side, name))
        calls['call_' + side] = '%s_run(%s)' % (side, ', '.join(args))
    with open(os.path.join(work, 'driver.c'), 'w') as f:
        f.write(DRIVER % dict(buffers='\n'.join(lines), **calls))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('old')
    parser.add_argument('new')
    parser.add_argument('--filter', default='', help='only configs whose id contains this')
    parser.add_argument('--exclude', default='', help='leave out configs whose id matches this regex')
    parser.add_argument('--grid', choices=['full', 'quick', 'precision', 'check-only'],
                        default='full', help="rnn-bench's set of configs")
    parser.add_argument('--seconds', type=float, default=4.0)
    parser.add_argument('--cpu', default='', help="rnnc's --cpu (default: this machine's)")
    parser.add_argument('--bench', default=os.path.join(HERE, '..', 'build', 'bin', 'rnn-bench'))
    parser.add_argument('--runtime', default=os.path.join(HERE, '..', 'build', 'lib'),
                        help='where librnnrt.a is')
    parser.add_argument('--out', default=os.path.join(HERE, '..', 'build', 'compare-builds'))
    opts = parser.parse_args()

    problems = os.path.join(opts.out, 'problems')
    shutil.rmtree(opts.out, ignore_errors=True)
    os.makedirs(problems)
    subprocess.run([opts.bench, '--dump-only', '--dump-problems', problems]
                   + (['--' + opts.grid] if opts.grid != 'full' else [])
                   + (['--filter', opts.filter] if opts.filter else []), check=True)
    ids = sorted(f[:-5] for f in os.listdir(problems) if f.endswith('.yaml')
                 and not (opts.exclude and re.search(opts.exclude, f[:-5])))
    rows = []
    print('| config | old (median) | new (median) | new/old, median of turns | new/old, fastest turns |')
    print('|---|---:|---:|---:|---:|')
    for config in ids:
        work = os.path.join(opts.out, config)
        os.makedirs(work)
        spec = open(os.path.join(problems, config + '.yaml')).read()
        refused = None
        for side, rnnc in (('a', opts.old), ('b', opts.new)):
            path = os.path.join(work, side + '.yaml')
            with open(path, 'w') as f:
                f.write(re.sub(r'(?m)^name: .*$', 'name: ' + side, spec))
            done = subprocess.run([rnnc, 'compile', path, '--weights',
                                   os.path.join(problems, config + '.npz'), '-o', work]
                                  + (['--cpu=' + opts.cpu] if opts.cpu else []),
                                  capture_output=True, text=True)
            if done.returncode != 0:
                refused = '%s refuses it: %s' % (rnnc, done.stderr.strip().split('\n')[0])
                break
        if refused:
            print('| %s | %s | | | |' % (config, refused))
            continue
        inputs = {}
        arrays = np.load(os.path.join(problems, config + '_in.npz'))
        for key, name in (('x', 'x'), ('seq_lengths', 'seq_lengths')):
            if key in arrays:
                inputs[name] = os.path.join(work, name + '.bin')
                np.ascontiguousarray(arrays[key]).tofile(inputs[name])
        write_driver(work, inputs)
        subprocess.run(['cc', '-O2', '-o', os.path.join(work, 'driver'),
                        os.path.join(work, 'driver.c'), os.path.join(work, 'a.o'),
                        os.path.join(work, 'b.o'), '-L' + opts.runtime, '-lrnnrt',
                        '-lm', '-lpthread'], check=True)
        out = subprocess.run([os.path.join(work, 'driver'), str(opts.seconds)],
                             check=True, capture_output=True, text=True).stdout.split()
        old, new, ratio, fastest_old, fastest_new = map(float, out[:5])
        rows.append((config, ratio, fastest_new / fastest_old))
        print('| %s | %.4g ms | %.4g ms | %.3f | %.3f |' % (
            config, old * 1e3, new * 1e3, ratio, fastest_new / fastest_old))
        sys.stdout.flush()
    geomean = lambda values: math.exp(sum(map(math.log, values)) / len(values))
    worst = max(rows, key=lambda row: row[1])
    print('\n%d config%s timed: new/old geometric mean %.3f (median of turns), %.3f '
          '(fastest turns); worst %s at %.3f' % (
              len(rows), '' if len(rows) == 1 else 's', geomean([r[1] for r in rows]), geomean([r[2] for r in rows]),
              worst[0], worst[1]))


if __name__ == '__main__':
    main()
