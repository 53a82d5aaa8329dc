// RUN: pipeline-opt %s --split-input-file -p canonicalize | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p canonicalize | filecheck %s --check-prefix=GONE

// The te dialect's canonicalization patterns (dialects/tensorexpr_canonicalization.py):
// DropUnitReductionExtents (reduction extents of 1 read index 0; none left: a
// te.compute) and AssignEverywhereIsCompute (an "assign" scatter writing every
// element of its base where it is: a te.compute of the written value).
// The CHECK lines pin each function's whole output; the GONE lines what must vanish.

// A reduction over one element is that element: the size-1 reduction of a
// broadcast's gradient (1 x 64 weights summed over the 1) becomes a te.compute
// reading index 0; a reduction keeps its other, longer extents.
func.func @unit_reduce(%N: index, %w: tensor<1x64xf32>, %x: tensor<?x1x16xf32>) -> (tensor<?x64xf32>, tensor<?xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = te.reduce "add" [%N, %c64] over [%c1] : tensor<?x64xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %v = te.load %w[%k, %j] : tensor<1x64xf32> -> f32
    te.yield %v : f32
  }
  %s = te.reduce "max" [%N] over [%c1, %c16] : tensor<?xf32> {
  ^bb0(%i: index, %a: index, %b: index):
    %v = te.load %x[%i, %a, %b] : tensor<?x1x16xf32> -> f32
    te.yield %v : f32
  }
  func.return %r, %s : tensor<?x64xf32>, tensor<?xf32>
}
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @unit_reduce(%N: index, %w: tensor<1x64xf32>, %x: tensor<?x1x16xf32>) -> (tensor<?x64xf32>, tensor<?xf32>) {
// CHECK-NEXT:     %c16 = arith.constant 16 : index
// CHECK-NEXT:     %c64 = arith.constant 64 : index
// CHECK-NEXT:     %r = te.compute [%N, %c64] : tensor<?x64xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %k = arith.constant 0 : index
// CHECK-NEXT:       %v = te.load %w[%k, %j] : tensor<1x64xf32> -> f32
// CHECK-NEXT:       te.yield %v : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %s = te.reduce "max" [%N] over [%c16] : tensor<?xf32> {
// CHECK-NEXT:     ^bb0(%i_1: index, %b: index):
// CHECK-NEXT:       %a = arith.constant 0 : index
// CHECK-NEXT:       %v_1 = te.load %x[%i_1, %a, %b] : tensor<?x1x16xf32> -> f32
// CHECK-NEXT:       te.yield %v_1 : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %r, %s : tensor<?x64xf32>, tensor<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @unit_reduce(
// GONE-NOT:   te.reduce "add"
// GONE-NOT:   over {{\[}}%c1{{[],]}}

// -----
// A te.scatter "assign" that writes element p at index p over exactly its base's
// extents overwrites the whole base (a select_scatter into zeros): a te.compute of
// the written value; the zeros are no longer read (canonicalize erases them).
func.func @assign_everywhere(%E: index, %v: tensor<?x1xf32>) -> tensor<?xf32> {
  %z = te.compute [%E] : tensor<?xf32> {
  ^bb0(%e: index):
    %c = arith.constant 0.000000e+00 : f32
    te.yield %c : f32
  }
  %s = te.scatter "assign" %z over [%E] : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%e: index):
    %c0 = arith.constant 0 : index
    %x = te.load %v[%e, %c0] : tensor<?x1xf32> -> f32
    te.update [%e], %x : f32
  }
  func.return %s : tensor<?xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @assign_everywhere(%E: index, %v: tensor<?x1xf32>) -> tensor<?xf32> {
// CHECK-NEXT:     %s = te.compute [%E] : tensor<?xf32> {
// CHECK-NEXT:     ^bb0(%e: index):
// CHECK-NEXT:       %c0 = arith.constant 0 : index
// CHECK-NEXT:       %x = te.load %v[%e, %c0] : tensor<?x1xf32> -> f32
// CHECK-NEXT:       te.yield %x : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %s : tensor<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @assign_everywhere(
// GONE-NOT:   te.scatter
// GONE-NOT:   %z = te.compute

// -----
// Unchanged: an "add" scatter (it accumulates into the base), an "assign" over
// part of the base (a row), and one whose index comes from data.
func.func @kept(%N: index, %E: index, %base: tensor<?x3xf32>, %row: tensor<3xf32>, %idx: tensor<?xi64>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %z = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %c = arith.constant 0.000000e+00 : f32
    te.yield %c : f32
  }
  %a = te.scatter "add" %z over [%N, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %x = te.load %base[%i, %j] : tensor<?x3xf32> -> f32
    te.update [%i, %j], %x : f32
  }
  %b = te.scatter "assign" %z over [%c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%j: index):
    %x = te.load %row[%j] : tensor<3xf32> -> f32
    te.update [%c0, %j], %x : f32
  }
  %c = te.scatter "assign" %z over [%E, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%e: index, %j: index):
    %r = te.load %idx[%e] : tensor<?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %x = te.load %row[%j] : tensor<3xf32> -> f32
    te.update [%n, %j], %x : f32
  }
  func.return %a, %b, %c : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @kept(%N: index, %E: index, %base: tensor<?x3xf32>, %row: tensor<3xf32>, %idx: tensor<?xi64>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %z = te.compute [%N, %c3] : tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %c = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:       te.yield %c : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %a = te.scatter "add" %z over [%N, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%i_1: index, %j_1: index):
// CHECK-NEXT:       %x = te.load %base[%i_1, %j_1] : tensor<?x3xf32> -> f32
// CHECK-NEXT:       te.update [%i_1, %j_1], %x : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %b = te.scatter "assign" %z over [%c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%j_2: index):
// CHECK-NEXT:       %x_1 = te.load %row[%j_2] : tensor<3xf32> -> f32
// CHECK-NEXT:       te.update [%c0, %j_2], %x_1 : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     %c_1 = te.scatter "assign" %z over [%E, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT:     ^bb0(%e: index, %j_3: index):
// CHECK-NEXT:       %r = te.load %idx[%e] : tensor<?xi64> -> i64
// CHECK-NEXT:       %n = te.index %r in %N {site = 1 : i64} : i64
// CHECK-NEXT:       %x_2 = te.load %row[%j_3] : tensor<3xf32> -> f32
// CHECK-NEXT:       te.update [%n, %j_3], %x_2 : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a, %b, %c_1 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @kept(
// GONE-COUNT-3: te.scatter
