// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s --check-prefix=GONE

// lower-tensorexpr-to-loops, a te.reduce with te.sparse (set by sparse-contractions):
// the output dims not in te.sparse_dims are loops; inside, every point of the unrolled
// output dims is the sum of the body at its nonzero terms, in straight-line code, with
// index arithmetic on constants folded. A structural constant's load at constant
// indices is its value (the te.weight's `values`), and a constant read only there is
// no argument of the function: the code reads no constant.

// y = x @ U over the 3 nonzeros of U: y[n, 0] = 3.0 x[n, 3], y[n, 1] = 0.5 x[n, 0],
// y[n, 2] = -2.0 x[n, 1].
func.func @x_u(%N: index, %x: tensor<?x4xf64> {te.dims = ["N", 4 : i64]}) -> (tensor<?x3xf64> {te.dims = ["N", 3 : i64]}) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 1, 5, 9>, values = array<f64: 0.5, -2.0, 3.0>} : tensor<4x3xf64>
  %y = te.reduce "add" [%N, %c3] over [%c4] {te.sparse_dims = array<i64: 1, 2>, te.sparse = array<i64: 0, 3, 1, 0, 2, 1>} : tensor<?x3xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %w = te.load %u[%k, %j] : tensor<4x3xf64> -> f64
    %p = arith.mulf %a, %w : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x3xf64>
}
// CHECK-LABEL: func.func @x_u(%N: index, %x: memref<?xf64> {te.dims = ["N", 4 : i64]}, %out0: memref<?xf64>
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:   %[[THREE:.*]] = arith.constant 3.000000e+00 : f64
// CHECK-DAG:   %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-DAG:   %[[M2:.*]] = arith.constant -2.000000e+00 : f64
// CHECK:       scf.for %[[N:.*]] = %{{.*}} to %N step %{{.*}} {
// CHECK:         %[[R:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK:         %[[X3:.*]] = memref.load %x[%{{.*}}] : memref<?xf64>
// CHECK:         %[[T0:.*]] = arith.mulf %[[X3]], %[[THREE]] : f64
// CHECK:         memref.store %[[T0]], %out0[%{{.*}}] : memref<?xf64>
// CHECK:         %[[X0:.*]] = memref.load %x[%[[R]]] : memref<?xf64>
// CHECK:         %[[T1:.*]] = arith.mulf %[[X0]], %[[HALF]] : f64
// CHECK:         memref.store %[[T1]]
// CHECK:         arith.mulf %{{.*}}, %[[M2]] : f64
// CHECK:         memref.store
// CHECK-NEXT:  }
// GONE-LABEL:  func.func @x_u(
// GONE-NOT:    loops.weight
// GONE-NOT:    scf.for {{.*}} to %c4
// GONE:        func.return

// -----
// A transposed copy of the constant (autograd's U.T) is folded through: no nest
// computes it. Outputs without a term store zero; terms of one output are summed.
func.func @transposed(%N: index, %g: tensor<?x3xf64> {te.dims = ["N", 3 : i64]}) -> (tensor<?x4xf64> {te.dims = ["N", 4 : i64]}) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 1, 5, 9, 10>, values = array<f64: 0.5, -2.0, 3.0, 4.0>} : tensor<4x3xf64>
  %ut = te.compute [%c3, %c4] : tensor<3x4xf64> {
  ^bb0(%j: index, %k: index):
    %w = te.load %u[%k, %j] : tensor<4x3xf64> -> f64
    te.yield %w : f64
  }
  %y = te.reduce "add" [%N, %c4] over [%c3] {te.sparse_dims = array<i64: 1, 2>, te.sparse = array<i64: 0, 1, 1, 2, 3, 0, 3, 1>} : tensor<?x4xf64> {
  ^bb0(%n: index, %k: index, %j: index):
    %a = te.load %g[%n, %j] : tensor<?x3xf64> -> f64
    %w = te.load %ut[%j, %k] : tensor<3x4xf64> -> f64
    %p = arith.mulf %a, %w : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x4xf64>
}
// CHECK-LABEL: func.func @transposed(
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:   %[[FOUR:.*]] = arith.constant 4.000000e+00 : f64
// CHECK:       scf.for
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK:         memref.store
// CHECK:         memref.store %{{.*}}, %out0
// CHECK:         memref.store %[[ZERO]], %out0
// CHECK:         %[[A:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK:         %[[B:.*]] = arith.mulf %{{.*}}, %[[FOUR]] : f64
// CHECK:         arith.addf %[[A]], %[[B]] fastmath<reassoc,contract> : f64
// GONE-LABEL:  func.func @transposed(
// GONE-NOT:    loops.weight
// GONE-NOT:    scf.for {{.*}} to %c3
// GONE:        func.return
