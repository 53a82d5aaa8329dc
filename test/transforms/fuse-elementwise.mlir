// RUN: pipeline-opt %s --split-input-file -p fuse-elementwise | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p fuse-elementwise | filecheck %s --check-prefix=GONE

// fuse-elementwise: a te.compute whose every use is a te.load in another te body is
// replaced, at each load, by its own body evaluated at the load's indices (the
// consumer's block arguments stand for the producer's), and erased. Cost model
// (body_cost: a load or an arith op is 1 unit, math.exp / tanh / ... and divf are
// 8, constants are free): one load site without reuse always fuses; several sites
// (or a site whose indices ignore a loop index of its consumer: a matmul operand,
// read once per output column) fuse only when the body costs at most
// max_recompute = 3. A producer that is returned, or is a te.scatter base (not a
// load), is never inlined.
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
// Not fused: exp(x) (cost 9 > max_recompute) with two consumers stays one buffer
// that both read, rather than being evaluated twice.
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
// CHECK-NEXT:     %e = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %ex = math.exp %v : f32
// CHECK-NEXT:       te.yield %ex : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %a = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0([[I:%i[_0-9]*]]: index, [[J:%j[_0-9]*]]: index):
// CHECK-NEXT:       [[V:%v[_0-9]*]] = te.load %e{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %s = arith.addf [[V]], [[V]] : f32
// CHECK-NEXT:       te.yield %s : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %b = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0([[I2:%i[_0-9]*]]: index, [[J2:%j[_0-9]*]]: index):
// CHECK-NEXT:       [[V2:%v[_0-9]*]] = te.load %e{{\[}}[[I2]], [[J2]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       [[S2:%s[_0-9]*]] = arith.mulf [[V2]], [[V2]] : f32
// CHECK-NEXT:       te.yield [[S2]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @two_expensive(
// GONE:       math.exp
// GONE-NOT:   math.exp

// -----
// Not fused: a producer with two consumers whose body costs 4 units (load, addf,
// mulf, subf), one more than max_recompute.
func.func @four_units(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %s = arith.addf %v, %v : f32
    %m = arith.mulf %s, %v : f32
    %d = arith.subf %m, %v : f32
    te.yield %d : f32
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
    %n = arith.negf %v : f32
    te.yield %n : f32
  }
  func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @four_units(%N: index, %x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %y = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %s = arith.addf %v, %v : f32
// CHECK-NEXT:       %m = arith.mulf %s, %v : f32
// CHECK-NEXT:       %d = arith.subf %m, %v : f32
// CHECK-NEXT:       te.yield %d : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %a = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0([[I:%i[_0-9]*]]: index, [[J:%j[_0-9]*]]: index):
// CHECK-NEXT:       [[V:%v[_0-9]*]] = te.load %y{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %n = arith.negf [[V]] : f32
// CHECK-NEXT:       te.yield %n : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %b = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0([[I2:%i[_0-9]*]]: index, [[J2:%j[_0-9]*]]: index):
// CHECK-NEXT:       [[V2:%v[_0-9]*]] = te.load %y{{\[}}[[I2]], [[J2]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       [[N2:%n[_0-9]*]] = arith.negf [[V2]] : f32
// CHECK-NEXT:       te.yield [[N2]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @four_units(
// GONE:       arith.subf
// GONE-NOT:   arith.subf

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
// (y[i, k] ignores j) or per row (ws[k, j] ignores i): the expensive exp(x) stays
// a buffer, the cheap w * 2 (2 units, one site) is recomputed in the body.
func.func @matmul_reuse(%N: index, %x: tensor<?x3xf32>) -> tensor<?x16xf32> {
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %w = te.weight "w" : tensor<3x16xf32>
  %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %k: index):
    %v = te.load %x[%i, %k] : tensor<?x3xf32> -> f32
    %ex = math.exp %v : f32
    te.yield %ex : f32
  }
  %ws = te.compute [%c3, %c16] : tensor<3x16xf32> {
  ^bb0(%k: index, %j: index):
    %v = te.load %w[%k, %j] : tensor<3x16xf32> -> f32
    %two = arith.constant 2.000000e+00 : f32
    %s = arith.mulf %v, %two : f32
    te.yield %s : f32
  }
  %mm = te.reduce "add" [%N, %c16] over [%c3] : tensor<?x16xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %a = te.load %y[%i, %k] : tensor<?x3xf32> -> f32
    %b = te.load %ws[%k, %j] : tensor<3x16xf32> -> f32
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %mm : tensor<?x16xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @matmul_reuse(%N: index, %x: tensor<?x3xf32>) -> tensor<?x16xf32> {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %c16 = arith.constant 16 : index
// CHECK-NEXT:     %w = te.weight "w" : tensor<3x16xf32>
// CHECK-NEXT:     %y = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %k: index):
// CHECK-NEXT:       %v = te.load %x[%i, %k] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       %ex = math.exp %v : f32
// CHECK-NEXT:       te.yield %ex : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %mm = te.reduce "add" [%N, %c16] over [%c3] : tensor<?x16xf32> {
// CHECK-NEXT:     ^bb0([[I:%i[_0-9]*]]: index, %j: index, [[K:%k[_0-9]*]]: index):
// CHECK-NEXT:       %a = te.load %y{{\[}}[[I]], [[K]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       [[V:%v[_0-9]*]] = te.load %w{{\[}}[[K]], %j] : tensor<3x16xf32> -> f32
// CHECK-NEXT:       %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:       %s = arith.mulf [[V]], %two : f32
// CHECK-NEXT:       %p = arith.mulf %a, %s : f32
// CHECK-NEXT:       te.yield %p : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %mm : tensor<?x16xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @matmul_reuse(
// GONE-NOT:   %ws = te.compute
// GONE-NOT:   te.load %ws
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
