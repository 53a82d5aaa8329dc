// RUN: pipeline-opt %s --split-input-file -p fuse-elementwise | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p fuse-elementwise | filecheck %s --check-prefix=GONE

// fuse-elementwise: a te.compute whose every use is a te.load in another te body is
// replaced, at each load, by its own body evaluated at the load's indices (the
// consumer's block arguments stand for the producer's), and erased. Cost model
// (body_cost: a load or an arith op is 1 unit, math.exp / tanh / ... and divf are
// 8, constants are free): a body of one read (a constant, a view, a broadcast)
// always fuses; one load site without reuse always fuses; several sites (at most
// max_consumers = 4) fuse when the extra evaluations cost at most max_recompute =
// 32 units; a site whose indices ignore a loop index of its consumer (a matmul
// operand, read once per output column; loops of extent 1 do not count) takes
// only such a one-read body. A producer that
// is returned, or is a te.scatter base (not a load), is never inlined.
//
// The CHECK lines pin each function's whole output; the GONE lines, over each whole
// function (between two GONE-LABELs), what must vanish or must not be duplicated.

// An elementwise chain exp(x) -> * 2 -> + x collapses into the last te.compute:
// the intermediates %a and %b (and their loads) vanish, the single-use exp fuses
// whatever its cost.
func.func @chain(%N: index, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c3 = arith.constant 3 : index
  %a = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %e = math.exp %v : f32
    te.yield %e : f32
  }
  %b = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %a[%i, %j] : tensor<?x3xf32> -> f32
    %two = arith.constant 2.000000e+00 : f32
    %m = arith.mulf %v, %two : f32
    te.yield %m : f32
  }
  %c = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %b[%i, %j] : tensor<?x3xf32> -> f32
    %w = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %s = arith.addf %v, %w : f32
    te.yield %s : f32
  }
  func.return %c : tensor<?x3xf32>
}
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @chain(%N: index, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %c = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %e = math.exp %v : f32
// CHECK-NEXT:       %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:       %m = arith.mulf %e, %two : f32
// CHECK-NEXT:       %w = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %s = arith.addf %m, %w : f32
// CHECK-NEXT:       te.yield %s : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %c : tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @chain(
// GONE-NOT:   %a = te.compute
// GONE-NOT:   %b = te.compute
// GONE-NOT:   te.load %a
// GONE-NOT:   te.load %b

// -----
// A producer feeding a te.reduce body (x * x summed over xyz) fuses into it: the
// N x 3 squares are never written.
func.func @reduce(%N: index, %x: tensor<?x3xf32>) -> tensor<?xf32> {
  %c3 = arith.constant 3 : index
  %sq = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %p = arith.mulf %v, %v : f32
    te.yield %p : f32
  }
  %n = te.reduce "add" [%N] over [%c3] : tensor<?xf32> {
  ^bb0(%i: index, %k: index):
    %v = te.load %sq[%i, %k] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  func.return %n : tensor<?xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @reduce(%N: index, %x: tensor<?x3xf32>) -> tensor<?xf32> {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %n = te.reduce "add" [%N] over [%c3] : tensor<?xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %k: index):
// CHECK-NEXT:       %v = te.load %x[%i, %k] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %p = arith.mulf %v, %v : f32
// CHECK-NEXT:       te.yield %p : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %n : tensor<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @reduce(
// GONE-NOT:   %sq = te.compute
// GONE-NOT:   te.load %sq

// -----
// Message passing: gather h[src] per edge -> tanh(.) * filter -> scatter-add into
// dst. The E x 16 gather %g and per-edge %m vanish into the scatter's loop over
// edges (their te.index site 1 moves with them); the N x 16 zeros stay, being the
// scatter's base.
func.func @message(%N: index, %E: index, %h: tensor<?x16xf32>, %ei: tensor<2x?xi64>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %w = te.weight "filter" : tensor<16xf32>
  %zero = te.compute [%N, %c16] : tensor<?x16xf32> {
  ^bb0(%i: index, %j: index):
    %z = arith.constant 0.000000e+00 : f32
    te.yield %z : f32
  }
  %g = te.compute [%E, %c16] : tensor<?x16xf32> {
  ^bb0(%e: index, %j: index):
    %rs = te.load %ei[%c0, %e] : tensor<2x?xi64> -> i64
    %src = te.index %rs in %N {site = 1 : i64} : i64
    %v = te.load %h[%src, %j] : tensor<?x16xf32> -> f32
    te.yield %v : f32
  }
  %m = te.compute [%E, %c16] : tensor<?x16xf32> {
  ^bb0(%e: index, %j: index):
    %v = te.load %g[%e, %j] : tensor<?x16xf32> -> f32
    %f = te.load %w[%j] : tensor<16xf32> -> f32
    %t = math.tanh %v : f32
    %p = arith.mulf %t, %f : f32
    te.yield %p : f32
  }
  %s = te.scatter "add" %zero over [%E, %c16] : tensor<?x16xf32> -> tensor<?x16xf32> {
  ^bb0(%e: index, %j: index):
    %rd = te.load %ei[%c1, %e] : tensor<2x?xi64> -> i64
    %dst = te.index %rd in %N {site = 2 : i64} : i64
    %v = te.load %m[%e, %j] : tensor<?x16xf32> -> f32
    te.update [%dst, %j], %v : f32
  }
  func.return %s : tensor<?x16xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @message(%N: index, %E: index, %h: tensor<?x16xf32>, %ei: tensor<2x?xi64>) -> tensor<?x16xf32> {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %c16 = arith.constant 16 : index
// CHECK-NEXT:     %w = te.weight "filter" : tensor<16xf32>
// CHECK-NEXT:     %zero = te.compute [%N, %c16] : tensor<?x16xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:       te.yield %z : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %s = te.scatter "add" %zero over [%E, %c16] : tensor<?x16xf32> -> tensor<?x16xf32> {
// CHECK-NEXT:     ^bb0(%e: index, [[J:%j[_0-9]*]]: index):
// CHECK-NEXT:       %rd = te.load %ei[%c1, %e] : tensor<2x?xi64> -> i64
// CHECK-NEXT:       %dst = te.index %rd in %N {site = 2 : i64} : i64
// CHECK-NEXT:       %rs = te.load %ei[%c0, %e] : tensor<2x?xi64> -> i64
// CHECK-NEXT:       %src = te.index %rs in %N {site = 1 : i64} : i64
// CHECK-NEXT:       %v = te.load %h[%src, [[J]]] : tensor<?x16xf32> -> f32
// CHECK-NEXT:       %f = te.load %w{{\[}}[[J]]] : tensor<16xf32> -> f32
// CHECK-NEXT:       %t = math.tanh %v : f32
// CHECK-NEXT:       %p = arith.mulf %t, %f : f32
// CHECK-NEXT:       te.update [%dst, [[J]]], %p : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %s : tensor<?x16xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @message(
// GONE-NOT:   %g = te.compute
// GONE-NOT:   %m = te.compute
// GONE-NOT:   te.load %g
// GONE-NOT:   te.load %m
// GONE-NOT:   te.compute [%E

// -----
// Fused: exp(x) with two consumers costs 9 units (load, exp); evaluating it once
// more is within max_recompute = 32, cheaper than a buffer written and read twice.
func.func @two_expensive(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %e = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %ex = math.exp %v : f32
    te.yield %ex : f32
  }
  %a = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %e[%i, %j] : tensor<?x3xf32> -> f32
    %s = arith.addf %v, %v : f32
    te.yield %s : f32
  }
  %b = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %e[%i, %j] : tensor<?x3xf32> -> f32
    %s = arith.mulf %v, %v : f32
    te.yield %s : f32
  }
  func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @two_expensive(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %a = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %ex = math.exp %v : f32
// CHECK-NEXT:       %s = arith.addf %ex, %ex : f32
// CHECK-NEXT:       te.yield %s : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %b = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i_1: index, %j_1: index):
// CHECK-NEXT:       %v_1 = te.load %x[%i_1, %j_1] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %ex_1 = math.exp %v_1 : f32
// CHECK-NEXT:       %s_1 = arith.mulf %ex_1, %ex_1 : f32
// CHECK-NEXT:       te.yield %s_1 : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @two_expensive(
// GONE-NOT:   %e = te.compute
// GONE-NOT:   te.load %e

// -----
// Not fused: a body of 33 units (load, four exp) with two consumers: one extra
// evaluation would cost more than max_recompute = 32.
func.func @too_expensive(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %e = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %e1 = math.exp %v : f32
    %e2 = math.exp %e1 : f32
    %e3 = math.exp %e2 : f32
    %e4 = math.exp %e3 : f32
    te.yield %e4 : f32
  }
  %a = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %e[%i, %j] : tensor<?x3xf32> -> f32
    %s = arith.addf %v, %v : f32
    te.yield %s : f32
  }
  %b = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %e[%i, %j] : tensor<?x3xf32> -> f32
    %s = arith.mulf %v, %v : f32
    te.yield %s : f32
  }
  func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @too_expensive(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %e = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %e1 = math.exp %v : f32
// CHECK-NEXT:       %e2 = math.exp %e1 : f32
// CHECK-NEXT:       %e3 = math.exp %e2 : f32
// CHECK-NEXT:       %e4 = math.exp %e3 : f32
// CHECK-NEXT:       te.yield %e4 : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %a = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i_1: index, %j_1: index):
// CHECK-NEXT:       %v_1 = te.load %e[%i_1, %j_1] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %s = arith.addf %v_1, %v_1 : f32
// CHECK-NEXT:       te.yield %s : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %b = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i_2: index, %j_2: index):
// CHECK-NEXT:       %v_2 = te.load %e[%i_2, %j_2] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %s_1 = arith.mulf %v_2, %v_2 : f32
// CHECK-NEXT:       te.yield %s_1 : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @too_expensive(
// GONE:       math.exp %e3
// GONE-NOT:   math.exp %e3

// -----
// Not fused: a cheap body (2 units) read at five sites, more than max_consumers = 4.
func.func @five_consumers(%N: index, %x: tensor<?xf32>) -> tensor<?xf32> {
  %y = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    %n = arith.negf %v : f32
    te.yield %n : f32
  }
  %z = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %a = te.load %y[%i] : tensor<?xf32> -> f32
    %b = te.load %y[%i] : tensor<?xf32> -> f32
    %c = te.load %y[%i] : tensor<?xf32> -> f32
    %d = te.load %y[%i] : tensor<?xf32> -> f32
    %e = te.load %y[%i] : tensor<?xf32> -> f32
    %s1 = arith.addf %a, %b : f32
    %s2 = arith.addf %s1, %c : f32
    %s3 = arith.addf %s2, %d : f32
    %s4 = arith.addf %s3, %e : f32
    te.yield %s4 : f32
  }
  func.return %z : tensor<?xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @five_consumers(%N: index, %x: tensor<?xf32>) -> tensor<?xf32> {
// CHECK-NEXT:     %y = te.compute [%N] : tensor<?xf32> {
// CHECK-NEXT:     ^bb0(%i: index):
// CHECK-NEXT:       %v = te.load %x[%i] : tensor<?xf32> -> f32
// CHECK-NEXT:       %n = arith.negf %v : f32
// CHECK-NEXT:       te.yield %n : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %z = te.compute [%N] : tensor<?xf32> {
// CHECK-NEXT:     ^bb0(%i_1: index):
// CHECK-NEXT:       %a = te.load %y[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:       %b = te.load %y[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:       %c = te.load %y[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:       %d = te.load %y[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:       %e = te.load %y[%i_1] : tensor<?xf32> -> f32
// CHECK-NEXT:       %s1 = arith.addf %a, %b : f32
// CHECK-NEXT:       %s2 = arith.addf %s1, %c : f32
// CHECK-NEXT:       %s3 = arith.addf %s2, %d : f32
// CHECK-NEXT:       %s4 = arith.addf %s3, %e : f32
// CHECK-NEXT:       te.yield %s4 : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %z : tensor<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @five_consumers(
// GONE:       arith.negf
// GONE-NOT:   arith.negf

// -----
// A loop of extent 1 is no reuse: the per-edge Gaussians g (E x 16) read by two
// reductions over 16 into E x 1 vanish into both (the loads ignore only the
// output dim of size 1); the 0-d constant, a body of one constant, fuses into
// every reader even where it is read once per element of a reduction.
func.func @unit_dim(%E: index, %r: tensor<?xf32>, %mu: tensor<16xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %gamma = te.compute [] : tensor<f32> {
    %k = arith.constant -4.500000e+00 : f32
    te.yield %k : f32
  }
  %g = te.compute [%E, %c16] : tensor<?x16xf32> {
  ^bb0(%e: index, %k: index):
    %v = te.load %r[%e] : tensor<?xf32> -> f32
    %m = te.load %mu[%k] : tensor<16xf32> -> f32
    %d = arith.subf %v, %m : f32
    %s = te.load %gamma[] : tensor<f32> -> f32
    %p = arith.mulf %d, %s : f32
    %x = math.exp %p : f32
    te.yield %x : f32
  }
  %a = te.reduce "add" [%E, %c1] over [%c16] : tensor<?x1xf32> {
  ^bb0(%e: index, %o: index, %k: index):
    %v = te.load %g[%e, %k] : tensor<?x16xf32> -> f32
    te.yield %v : f32
  }
  %b = te.reduce "add" [%E, %c1] over [%c16] : tensor<?x1xf32> {
  ^bb0(%e: index, %o: index, %k: index):
    %v = te.load %g[%e, %k] : tensor<?x16xf32> -> f32
    %s = te.load %gamma[] : tensor<f32> -> f32
    %p = arith.mulf %v, %s : f32
    te.yield %p : f32
  }
  func.return %a, %b : tensor<?x1xf32>, tensor<?x1xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @unit_dim(%E: index, %r: tensor<?xf32>, %mu: tensor<16xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %c16 = arith.constant 16 : index
// CHECK-NEXT:     %a = te.reduce "add" [%E, %c1] over [%c16] : tensor<?x1xf32> {
// CHECK-NEXT:     ^bb0(%e: index, %o: index, %k: index):
// CHECK-NEXT:       %v = te.load %r[%e] : tensor<?xf32> -> f32
// CHECK-NEXT:       %m = te.load %mu[%k] : tensor<16xf32> -> f32
// CHECK-NEXT:       %d = arith.subf %v, %m : f32
// CHECK-NEXT:       %k_1 = arith.constant -4.500000e+00 : f32
// CHECK-NEXT:       %p = arith.mulf %d, %k_1 : f32
// CHECK-NEXT:       %x = math.exp %p : f32
// CHECK-NEXT:       te.yield %x : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %b = te.reduce "add" [%E, %c1] over [%c16] : tensor<?x1xf32> {
// CHECK-NEXT:     ^bb0(%e_1: index, %o_1: index, %k_2: index):
// CHECK-NEXT:       %v_1 = te.load %r[%e_1] : tensor<?xf32> -> f32
// CHECK-NEXT:       %m_1 = te.load %mu[%k_2] : tensor<16xf32> -> f32
// CHECK-NEXT:       %d_1 = arith.subf %v_1, %m_1 : f32
// CHECK-NEXT:       %k_3 = arith.constant -4.500000e+00 : f32
// CHECK-NEXT:       %p_1 = arith.mulf %d_1, %k_3 : f32
// CHECK-NEXT:       %x_1 = math.exp %p_1 : f32
// CHECK-NEXT:       %k_4 = arith.constant -4.500000e+00 : f32
// CHECK-NEXT:       %p_2 = arith.mulf %x_1, %k_4 : f32
// CHECK-NEXT:       te.yield %p_2 : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a, %b : tensor<?x1xf32>, tensor<?x1xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @unit_dim(
// GONE-NOT:   te.compute
// GONE-NOT:   te.load %g
// GONE-NOT:   te.load %gamma

// -----
// Not fused: a producer that is returned keeps its buffer (the output), and its
// consumer keeps reading it, even though the producer is cheap and read once.
func.func @returned(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %n = arith.negf %v : f32
    te.yield %n : f32
  }
  %z = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %y[%i, %j] : tensor<?x3xf32> -> f32
    %s = arith.addf %v, %v : f32
    te.yield %s : f32
  }
  func.return %y, %z : tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @returned(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %y = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %n = arith.negf %v : f32
// CHECK-NEXT:       te.yield %n : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %z = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0([[I:%i[_0-9]*]]: index, [[J:%j[_0-9]*]]: index):
// CHECK-NEXT:       [[V:%v[_0-9]*]] = te.load %y{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %s = arith.addf [[V]], [[V]] : f32
// CHECK-NEXT:       te.yield %s : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %y, %z : tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @returned(
// GONE:       arith.negf
// GONE-NOT:   arith.negf

// -----
// Not fused: a producer used as a te.scatter base (and also loaded by another
// compute) keeps its buffer; the load stays a load.
func.func @scatter_base(%N: index, %E: index, %x: tensor<?x3xf32>, %dst: tensor<?xi64>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %n = arith.negf %v : f32
    te.yield %n : f32
  }
  %z = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %y[%i, %j] : tensor<?x3xf32> -> f32
    %s = arith.addf %v, %v : f32
    te.yield %s : f32
  }
  %s = te.scatter "add" %y over [%E, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%e: index, %j: index):
    %r = te.load %dst[%e] : tensor<?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %one = arith.constant 1.000000e+00 : f32
    te.update [%n, %j], %one : f32
  }
  func.return %z, %s : tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @scatter_base(%N: index, %E: index, %x: tensor<?x3xf32>, %dst: tensor<?xi64>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %y = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %n = arith.negf %v : f32
// CHECK-NEXT:       te.yield %n : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %z = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0([[I:%i[_0-9]*]]: index, [[J:%j[_0-9]*]]: index):
// CHECK-NEXT:       [[V:%v[_0-9]*]] = te.load %y{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       [[S:%s[_0-9]*]] = arith.addf [[V]], [[V]] : f32
// CHECK-NEXT:       te.yield [[S]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     [[SC:%s[_0-9]*]] = te.scatter "add" %y over [%E, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%e: index, [[J3:%j[_0-9]*]]: index):
// CHECK-NEXT:       %r = te.load %dst[%e] : tensor<?xi64> -> i64
// CHECK-NEXT:       [[N3:%n[_0-9]*]] = te.index %r in %N {site = 1 : i64} : i64
// CHECK-NEXT:       %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:       te.update {{\[}}[[N3]], [[J3]]], %one : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %z, [[SC]] : tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @scatter_base(
// GONE:       arith.negf
// GONE-NOT:   arith.negf

// -----
// A matmul-like te.reduce reads each element of its operands once per column
// (y[i, k] ignores j) or per row (ws[k, j] ignores i): a body recomputed there runs
// once per read, so only a body of one read (a view: the transposed vt) fuses; the
// expensive exp(x) and even the cheap w * 2 (2 units) stay buffers.
func.func @matmul_reuse(%N: index, %x: tensor<?x3xf32>, %v: tensor<16x3xf32>) -> tensor<?x16xf32> {
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %w = te.weight "w" : tensor<3x16xf32>
  %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %k: index):
    %e = te.load %x[%i, %k] : tensor<?x3xf32> -> f32
    %ex = math.exp %e : f32
    te.yield %ex : f32
  }
  %ws = te.compute [%c3, %c16] : tensor<3x16xf32> {
  ^bb0(%k: index, %j: index):
    %e = te.load %w[%k, %j] : tensor<3x16xf32> -> f32
    %two = arith.constant 2.000000e+00 : f32
    %s = arith.mulf %e, %two : f32
    te.yield %s : f32
  }
  %vt = te.compute [%c3, %c16] : tensor<3x16xf32> {
  ^bb0(%k: index, %j: index):
    %e = te.load %v[%j, %k] : tensor<16x3xf32> -> f32
    te.yield %e : f32
  }
  %mm = te.reduce "add" [%N, %c16] over [%c3] : tensor<?x16xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %a = te.load %y[%i, %k] : tensor<?x3xf32> -> f32
    %b = te.load %ws[%k, %j] : tensor<3x16xf32> -> f32
    %c = te.load %vt[%k, %j] : tensor<3x16xf32> -> f32
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %c : f32
    te.yield %q : f32
  }
  func.return %mm : tensor<?x16xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @matmul_reuse(%N: index, %x: tensor<?x3xf32>, %v: tensor<16x3xf32>) -> tensor<?x16xf32> {
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: %w = te.weight "w" : tensor<3x16xf32>
// CHECK-NEXT: %y = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0(%i: index, %k: index):
// CHECK-NEXT:   %e = te.load %x[%i, %k] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   %ex = math.exp %e : f32
// CHECK-NEXT:   te.yield %ex : f32
// CHECK-NEXT: }
// CHECK-NEXT: %ws = te.compute [%c3, %c16] : tensor<3x16xf32> {
// CHECK-NEXT: ^bb0(%k_1: index, %j: index):
// CHECK-NEXT:   %e_1 = te.load %w[%k_1, %j] : tensor<3x16xf32> -> f32
// CHECK-NEXT:   %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:   %s = arith.mulf %e_1, %two : f32
// CHECK-NEXT:   te.yield %s : f32
// CHECK-NEXT: }
// CHECK-NEXT: %mm = te.reduce "add" [%N, %c16] over [%c3] : tensor<?x16xf32> {
// CHECK-NEXT: ^bb0(%i_1: index, %j_1: index, %k_2: index):
// CHECK-NEXT:   %a = te.load %y[%i_1, %k_2] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   %b = te.load %ws[%k_2, %j_1] : tensor<3x16xf32> -> f32
// CHECK-NEXT:   %e_2 = te.load %v[%j_1, %k_2] : tensor<16x3xf32> -> f32
// CHECK-NEXT:   %p = arith.mulf %a, %b : f32
// CHECK-NEXT:   %q = arith.mulf %p, %e_2 : f32
// CHECK-NEXT:   te.yield %q : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return %mm : tensor<?x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @matmul_reuse(
// GONE-NOT:   %vt = te.compute
// GONE-NOT:   te.load %vt
// GONE:       math.exp
// GONE-NOT:   math.exp

// -----
// Fused: a producer costing 3 units (load, addf, mulf; the constant is free) is
// duplicated into both of its consumers and vanishes.
func.func @two_cheap(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %one = arith.constant 1.000000e+00 : f32
    %s = arith.addf %v, %one : f32
    %m = arith.mulf %s, %s : f32
    te.yield %m : f32
  }
  %a = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %y[%i, %j] : tensor<?x3xf32> -> f32
    %n = arith.negf %v : f32
    te.yield %n : f32
  }
  %b = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %y[%i, %j] : tensor<?x3xf32> -> f32
    %w = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %p = arith.mulf %v, %w : f32
    te.yield %p : f32
  }
  func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @two_cheap(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %a = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:       %s = arith.addf %v, %one : f32
// CHECK-NEXT:       %m = arith.mulf %s, %s : f32
// CHECK-NEXT:       %n = arith.negf %m : f32
// CHECK-NEXT:       te.yield %n : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %b = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0([[I:%i[_0-9]*]]: index, [[J:%j[_0-9]*]]: index):
// CHECK-NEXT:       [[V:%v[_0-9]*]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       [[ONE:%one[_0-9]*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:       [[S:%s[_0-9]*]] = arith.addf [[V]], [[ONE]] : f32
// CHECK-NEXT:       [[M:%m[_0-9]*]] = arith.mulf [[S]], [[S]] : f32
// CHECK-NEXT:       %w = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %p = arith.mulf [[M]], %w : f32
// CHECK-NEXT:       te.yield %p : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  {{.}}
// GONE-LABEL: func.func @two_cheap(
// GONE-NOT:   %y = te.compute
// GONE-NOT:   te.load %y
