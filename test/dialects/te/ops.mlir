// RUN: pipeline-opt %s | pipeline-opt | filecheck %s
// RUN: pipeline-opt %s --print-op-generic | pipeline-opt | filecheck %s

// Round trip of every op of the te dialect (dialects.tensorexpr.TensorExpr), in its
// custom format, over symbolic extents (%N, %E are size symbols). Each CHECK pins the
// printed form of one op, types, properties and block arguments included; CHECK-NEXT
// runs over the whole output so that nothing is added, dropped or reordered.

// CHECK: builtin.module {

// -----------------------------------------------------------------------------
// te.compute and te.load: one element per point of [%N, 3]; a rank-0 compute.

func.func @compute(%N: index, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
// CHECK-LABEL: func.func @compute(%N: index, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c2 = arith.constant 2 : index
  // CHECK-NEXT: %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  // CHECK-NEXT: %c3 = arith.constant 3 : index
  %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %e = math.exp %v : f32
    te.yield %e : f32
  }
  // CHECK-NEXT: %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  // CHECK-NEXT: ^bb0(%i: index, %j: index):
  // CHECK-NEXT:   %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
  // CHECK-NEXT:   %e = math.exp %v : f32
  // CHECK-NEXT:   te.yield %e : f32
  // CHECK-NEXT: }
  %s = te.compute [] : tensor<f32> {
    %o = arith.constant 0 : index
    %a = te.load %y[%o, %o] : tensor<?x3xf32> -> f32
    te.yield %a : f32
  }
  // CHECK-NEXT: %s = te.compute [] : tensor<f32> {
  // CHECK-NEXT:   %o = arith.constant 0 : index
  // CHECK-NEXT:   %a = te.load %y[%o, %o] : tensor<?x3xf32> -> f32
  // CHECK-NEXT:   te.yield %a : f32
  // CHECK-NEXT: }
  %b = te.compute [%N] : tensor<?xi1> {
  ^bb0(%k: index):
    %z = te.load %s[] : tensor<f32> -> f32
    %w = te.load %y[%k, %c2] : tensor<?x3xf32> -> f32
    %lt = arith.cmpf olt, %w, %z : f32
    te.yield %lt : i1
  }
  // CHECK-NEXT: %b = te.compute [%N] : tensor<?xi1> {
  // CHECK-NEXT: ^bb0(%k: index):
  // CHECK-NEXT:   %z = te.load %s[] : tensor<f32> -> f32
  // CHECK-NEXT:   %w = te.load %y[%k, %c2] : tensor<?x3xf32> -> f32
  // CHECK-NEXT:   %lt = arith.cmpf olt, %w, %z : f32
  // CHECK-NEXT:   te.yield %lt : i1
  // CHECK-NEXT: }
  func.return %y : tensor<?x3xf32>
  // CHECK-NEXT: func.return %y : tensor<?x3xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// te.reduce: each kind, the output dims first then the reduction dims; a full
// reduction (no output dims) over two symbolic axes.

func.func @reduce(%N: index, %E: index, %x: tensor<?x3xf32>, %m: tensor<?x?xf64>, %i: tensor<?x3xi64>) -> tensor<?xf32> {
// CHECK-LABEL: func.func @reduce(%N: index, %E: index, %x: tensor<?x3xf32>, %m: tensor<?x?xf64>, %i: tensor<?x3xi64>) -> tensor<?xf32> {
  %c3 = arith.constant 3 : index
  // CHECK-NEXT: %c3 = arith.constant 3 : index
  %add = te.reduce "add" [%N] over [%c3] : tensor<?xf32> {
  ^bb0(%n: index, %r: index):
    %v = te.load %x[%n, %r] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  // CHECK-NEXT: %add = te.reduce "add" [%N] over [%c3] : tensor<?xf32> {
  // CHECK-NEXT: ^bb0(%n: index, %r: index):
  // CHECK-NEXT:   %v = te.load %x[%n, %r] : tensor<?x3xf32> -> f32
  // CHECK-NEXT:   te.yield %v : f32
  // CHECK-NEXT: }
  %mul = te.reduce "mul" [%c3] over [%N] : tensor<3xi64> {
  ^bb0(%j: index, %k: index):
    %w = te.load %i[%k, %j] : tensor<?x3xi64> -> i64
    te.yield %w : i64
  }
  // CHECK-NEXT: %mul = te.reduce "mul" [%c3] over [%N] : tensor<3xi64> {
  // CHECK-NEXT: ^bb0(%j: index, %k: index):
  // CHECK-NEXT:   %w = te.load %i[%k, %j] : tensor<?x3xi64> -> i64
  // CHECK-NEXT:   te.yield %w : i64
  // CHECK-NEXT: }
  %max = te.reduce "max" [%N, %E] over [] : tensor<?x?xf64> {
  ^bb0(%a: index, %b: index):
    %u = te.load %m[%a, %b] : tensor<?x?xf64> -> f64
    te.yield %u : f64
  }
  // CHECK-NEXT: %max = te.reduce "max" [%N, %E] over [] : tensor<?x?xf64> {
  // CHECK-NEXT: ^bb0(%a: index, %b: index):
  // CHECK-NEXT:   %u = te.load %m[%a, %b] : tensor<?x?xf64> -> f64
  // CHECK-NEXT:   te.yield %u : f64
  // CHECK-NEXT: }
  %min = te.reduce "min" [] over [%N, %E] : tensor<f64> {
  ^bb0(%p: index, %q: index):
    %t = te.load %max[%p, %q] : tensor<?x?xf64> -> f64
    te.yield %t : f64
  }
  // CHECK-NEXT: %min = te.reduce "min" [] over [%N, %E] : tensor<f64> {
  // CHECK-NEXT: ^bb0(%p: index, %q: index):
  // CHECK-NEXT:   %t = te.load %max[%p, %q] : tensor<?x?xf64> -> f64
  // CHECK-NEXT:   te.yield %t : f64
  // CHECK-NEXT: }
  func.return %add : tensor<?xf32>
  // CHECK-NEXT: func.return %add : tensor<?xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// te.scatter, te.index and te.update: add accumulates over the E edges into row
// dst (checked, no wrap); assign overwrites, with a wrapped (Python) index.

func.func @scatter(%N: index, %E: index, %x: tensor<?x3xf32>, %ei: tensor<2x?xi64>, %g: tensor<?xi32>) -> tensor<?x3xf32> {
// CHECK-LABEL: func.func @scatter(%N: index, %E: index, %x: tensor<?x3xf32>, %ei: tensor<2x?xi64>, %g: tensor<?xi32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  // CHECK-NEXT: %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK-NEXT: %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // CHECK-NEXT: %c3 = arith.constant 3 : index
  %sum = te.scatter "add" %x over [%E, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%e: index, %j: index):
    %rs = te.load %ei[%c0, %e] : tensor<2x?xi64> -> i64
    %rd = te.load %ei[%c1, %e] : tensor<2x?xi64> -> i64
    %src = te.index %rs in %N {site = 1 : i64} : i64
    %dst = te.index %rd in %N {site = 2 : i64} : i64
    %v = te.load %x[%src, %j] : tensor<?x3xf32> -> f32
    te.update [%dst, %j], %v : f32
  }
  // CHECK-NEXT: %sum = te.scatter "add" %x over [%E, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
  // CHECK-NEXT: ^bb0(%e: index, %j: index):
  // CHECK-NEXT:   %rs = te.load %ei[%c0, %e] : tensor<2x?xi64> -> i64
  // CHECK-NEXT:   %rd = te.load %ei[%c1, %e] : tensor<2x?xi64> -> i64
  // CHECK-NEXT:   %src = te.index %rs in %N {site = 1 : i64} : i64
  // CHECK-NEXT:   %dst = te.index %rd in %N {site = 2 : i64} : i64
  // CHECK-NEXT:   %v = te.load %x[%src, %j] : tensor<?x3xf32> -> f32
  // CHECK-NEXT:   te.update [%dst, %j], %v : f32
  // CHECK-NEXT: }
  %set = te.scatter "assign" %sum over [%N] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%n: index):
    %raw = te.load %g[%n] : tensor<?xi32> -> i32
    %row = te.index %raw in %N {site = 3 : i64, wrap} : i32
    %zero = arith.constant 0.000000e+00 : f32
    te.update [%row, %c0], %zero : f32
  }
  // CHECK-NEXT: %set = te.scatter "assign" %sum over [%N] : tensor<?x3xf32> -> tensor<?x3xf32> {
  // CHECK-NEXT: ^bb0(%n: index):
  // CHECK-NEXT:   %raw = te.load %g[%n] : tensor<?xi32> -> i32
  // CHECK-NEXT:   %row = te.index %raw in %N {site = 3 : i64, wrap} : i32
  // CHECK-NEXT:   %zero = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT:   te.update [%row, %c0], %zero : f32
  // CHECK-NEXT: }
  func.return %set : tensor<?x3xf32>
  // CHECK-NEXT: func.return %set : tensor<?x3xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// te.weight: named constants, the data stays beside the module.

func.func @weights(%N: index, %x: tensor<?x3xf32>) -> tensor<?x16xf32> {
// CHECK-LABEL: func.func @weights(%N: index, %x: tensor<?x3xf32>) -> tensor<?x16xf32> {
  %c3 = arith.constant 3 : index
  // CHECK-NEXT: %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  // CHECK-NEXT: %c16 = arith.constant 16 : index
  %w = te.weight "layers.0.weight" : tensor<3x16xf32>
  // CHECK-NEXT: %w = te.weight "layers.0.weight" : tensor<3x16xf32>
  %b = te.weight "layers.0.bias" : tensor<16xf32>
  // CHECK-NEXT: %b = te.weight "layers.0.bias" : tensor<16xf32>
  %mm = te.reduce "add" [%N, %c16] over [%c3] : tensor<?x16xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %xv = te.load %x[%i, %k] : tensor<?x3xf32> -> f32
    %wv = te.load %w[%k, %j] : tensor<3x16xf32> -> f32
    %p = arith.mulf %xv, %wv : f32
    te.yield %p : f32
  }
  // CHECK-NEXT: %mm = te.reduce "add" [%N, %c16] over [%c3] : tensor<?x16xf32> {
  // CHECK-NEXT: ^bb0(%i: index, %j: index, %k: index):
  // CHECK-NEXT:   %xv = te.load %x[%i, %k] : tensor<?x3xf32> -> f32
  // CHECK-NEXT:   %wv = te.load %w[%k, %j] : tensor<3x16xf32> -> f32
  // CHECK-NEXT:   %p = arith.mulf %xv, %wv : f32
  // CHECK-NEXT:   te.yield %p : f32
  // CHECK-NEXT: }
  %y = te.compute [%N, %c16] : tensor<?x16xf32> {
  ^bb0(%ii: index, %jj: index):
    %m = te.load %mm[%ii, %jj] : tensor<?x16xf32> -> f32
    %bv = te.load %b[%jj] : tensor<16xf32> -> f32
    %s = arith.addf %m, %bv : f32
    te.yield %s : f32
  }
  // CHECK-NEXT: %y = te.compute [%N, %c16] : tensor<?x16xf32> {
  // CHECK-NEXT: ^bb0(%ii: index, %jj: index):
  // CHECK-NEXT:   %m = te.load %mm[%ii, %jj] : tensor<?x16xf32> -> f32
  // CHECK-NEXT:   %bv = te.load %b[%jj] : tensor<16xf32> -> f32
  // CHECK-NEXT:   %s = arith.addf %m, %bv : f32
  // CHECK-NEXT:   te.yield %s : f32
  // CHECK-NEXT: }
  func.return %y : tensor<?x16xf32>
  // CHECK-NEXT: func.return %y : tensor<?x16xf32>
}
// CHECK-NEXT: }

// te.compact: the nonzero positions of a 1-d tensor and their count (a size).
func.func @compact(%N: index, %m: tensor<?xi1>) -> tensor<?xi64> {
  // CHECK: func.func @compact(%N: index, %m: tensor<?xi1>) -> tensor<?xi64> {
  %p, %c = te.compact %m over %N : tensor<?xi1> -> tensor<?xi64>
  // CHECK-NEXT: %p, %c = te.compact %m over %N : tensor<?xi1> -> tensor<?xi64>
  func.return %p : tensor<?xi64>
  // CHECK-NEXT: func.return %p : tensor<?xi64>
}
// CHECK-NEXT: }

// te.scan: a prefix sum along one dim.
func.func @scan(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  // CHECK: func.func @scan(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %s = te.scan "add" %x {dim = 0 : i64} : tensor<?x3xf64> -> tensor<?x3xf64>
  // CHECK-NEXT: %s = te.scan "add" %x {dim = 0 : i64} : tensor<?x3xf64> -> tensor<?x3xf64>
  func.return %s : tensor<?x3xf64>
  // CHECK-NEXT: func.return %s : tensor<?x3xf64>
}
// CHECK-NEXT: }

// te.check: a run-time assertion with its error site.
func.func @check(%ok: tensor<i1>) {
  // CHECK: func.func @check(%ok: tensor<i1>) {
  te.check %ok {site = 2 : i64} : tensor<i1>
  // CHECK-NEXT: te.check %ok {site = 2 : i64} : tensor<i1>
  func.return
  // CHECK-NEXT: func.return
}
// CHECK-NEXT: }
// CHECK-NEXT: }
