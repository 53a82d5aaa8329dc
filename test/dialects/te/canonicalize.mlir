// RUN: pipeline-opt %s --split-input-file -p canonicalize | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p canonicalize | filecheck %s --check-prefix=GONE

// The te dialect's canonicalization patterns (dialects/tensorexpr_canonicalization.py):
// DropUnitReductionExtents (reduction extents of 1 read index 0; none left: a
// te.compute) and AssignEverywhereIsCompute (an "assign" scatter writing every
// element of its base where it is: a te.compute of the written value), CopyIsItsSource
// (a te.compute yielding its source at the same indices, over the extents the source
// was defined with, is the source) and AddOfPaddedBlockIsScatterAdd (x + zeros with a
// block assigned: the block added into x).
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

// -----
// The gradient of two slices of a row (x[:, :2] and x[:, 2:] both used): autograd
// sums two zero-padded blocks. Each sum with a padded block becomes a scatter "add" of
// the block into the other term (in place: the first padded block's buffer), over the
// block only; the full-size padded tensors and the fused sum that kept them all alive
// are gone.
func.func @padded_sum(%E: index, %g: tensor<?x2xf64>, %h: tensor<?x3xf64>) -> tensor<?x5xf64> {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %z = te.compute [%E, %c5] : tensor<?x5xf64> {
  ^bb0(%e: index, %j: index):
    %c = arith.constant 0.000000e+00 : f64
    te.yield %c : f64
  }
  %p = te.scatter "assign" %z over [%E, %c2] : tensor<?x5xf64> -> tensor<?x5xf64> {
  ^bb0(%e: index, %j: index):
    %v = te.load %g[%e, %j] : tensor<?x2xf64> -> f64
    te.update [%e, %j], %v : f64
  }
  %q = te.scatter "assign" %z over [%E, %c3] : tensor<?x5xf64> -> tensor<?x5xf64> {
  ^bb0(%e: index, %j: index):
    %k = arith.addi %j, %c2 : index
    %v = te.load %h[%e, %j] : tensor<?x3xf64> -> f64
    te.update [%e, %k], %v : f64
  }
  %s = te.compute [%E, %c5] : tensor<?x5xf64> {
  ^bb0(%e: index, %j: index):
    %a = te.load %p[%e, %j] : tensor<?x5xf64> -> f64
    %b = te.load %q[%e, %j] : tensor<?x5xf64> -> f64
    %r = arith.addf %a, %b : f64
    te.yield %r : f64
  }
  func.return %s : tensor<?x5xf64>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @padded_sum(%E: index, %g: tensor<?x2xf64>, %h: tensor<?x3xf64>) -> tensor<?x5xf64> {
// CHECK-NEXT:     %c2 = arith.constant 2 : index
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %c5 = arith.constant 5 : index
// CHECK-NEXT:     %z = te.compute [%E, %c5] : tensor<?x5xf64> {
// CHECK-NEXT:     ^bb0(%e: index, %j: index):
// CHECK-NEXT:       %c = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:       te.yield %c : f64
// CHECK-NEXT:     }
// CHECK-NEXT:     %p = te.scatter "assign" %z over [%E, %c2] : tensor<?x5xf64> -> tensor<?x5xf64> {
// CHECK-NEXT:     ^bb0(%e_1: index, %j_1: index):
// CHECK-NEXT:       %v = te.load %g[%e_1, %j_1] : tensor<?x2xf64> -> f64
// CHECK-NEXT:       te.update [%e_1, %j_1], %v : f64
// CHECK-NEXT:     }
// CHECK-NEXT:     %s = te.scatter "add" %p over [%E, %c3] : tensor<?x5xf64> -> tensor<?x5xf64> {
// CHECK-NEXT:     ^bb0(%e_2: index, %j_2: index):
// CHECK-NEXT:       %k = arith.addi %j_2, %c2 : index
// CHECK-NEXT:       %v_1 = te.load %h[%e_2, %j_2] : tensor<?x3xf64> -> f64
// CHECK-NEXT:       te.update [%e_2, %k], %v_1 : f64
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %s : tensor<?x5xf64>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @padded_sum(
// GONE-NOT:   arith.addf
// GONE-NOT:   %q = te.scatter

// -----
// Kept: a sum with a block assigned into a base that is not zeros (x[:, 1:] = g, then
// + y: outside the block the base's values count), a block assigned at indices from
// data (not a block: two updates may land on one element, where "assign" keeps one and
// "add" would sum both).
func.func @padded_kept(%E: index, %N: index, %x: tensor<?x3xf64>, %y: tensor<?x3xf64>, %g: tensor<?x2xf64>, %idx: tensor<?xi64>) -> (tensor<?x3xf64>, tensor<?x3xf64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %p = te.scatter "assign" %x over [%E, %c2] : tensor<?x3xf64> -> tensor<?x3xf64> {
  ^bb0(%e: index, %j: index):
    %k = arith.addi %j, %c1 : index
    %v = te.load %g[%e, %j] : tensor<?x2xf64> -> f64
    te.update [%e, %k], %v : f64
  }
  %s = te.compute [%E, %c3] : tensor<?x3xf64> {
  ^bb0(%e: index, %j: index):
    %a = te.load %y[%e, %j] : tensor<?x3xf64> -> f64
    %b = te.load %p[%e, %j] : tensor<?x3xf64> -> f64
    %r = arith.addf %a, %b : f64
    te.yield %r : f64
  }
  %z = te.compute [%N, %c3] : tensor<?x3xf64> {
  ^bb0(%i: index, %j: index):
    %c = arith.constant 0.000000e+00 : f64
    te.yield %c : f64
  }
  %q = te.scatter "assign" %z over [%E, %c2] : tensor<?x3xf64> -> tensor<?x3xf64> {
  ^bb0(%e: index, %j: index):
    %r = te.load %idx[%e] : tensor<?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %g[%e, %j] : tensor<?x2xf64> -> f64
    te.update [%n, %j], %v : f64
  }
  %t = te.compute [%N, %c3] : tensor<?x3xf64> {
  ^bb0(%i: index, %j: index):
    %a = te.load %y[%i, %j] : tensor<?x3xf64> -> f64
    %b = te.load %q[%i, %j] : tensor<?x3xf64> -> f64
    %r = arith.addf %a, %b : f64
    te.yield %r : f64
  }
  func.return %s, %t : tensor<?x3xf64>, tensor<?x3xf64>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @padded_kept(
// CHECK:          %s = te.compute [%E, %c3] : tensor<?x3xf64> {
// CHECK:            arith.addf
// CHECK:          %t = te.compute [%N, %c3] : tensor<?x3xf64> {
// CHECK:            arith.addf
// GONE-LABEL: func.func @padded_kept(
// GONE-NOT:   te.scatter "add"

// -----
// A copy over the extents its source was defined with is the source (the aten op it
// computed now counts in the source's origin); a prefix copy (x[:n] of a tensor of N
// rows, the same type) is kept.
func.func @copies(%N: index, %n: index, %x: tensor<?x3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>) {
  %c3 = arith.constant 3 : index
  %a = te.compute [%N, %c3] : tensor<?x3xf64> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf64> -> f64
    %w = math.exp %v : f64
    te.yield %w : f64
  }
  %b = te.compute [%N, %c3] : tensor<?x3xf64> {
  ^bb0(%i: index, %j: index):
    %v = te.load %a[%i, %j] : tensor<?x3xf64> -> f64
    te.yield %v : f64
  }
  %c = te.compute [%n, %c3] : tensor<?x3xf64> {
  ^bb0(%i: index, %j: index):
    %v = te.load %a[%i, %j] : tensor<?x3xf64> -> f64
    te.yield %v : f64
  }
  func.return %b, %c : tensor<?x3xf64>, tensor<?x3xf64>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @copies(%N: index, %n: index, %x: tensor<?x3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>) {
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %a = te.compute [%N, %c3] : tensor<?x3xf64> {
// CHECK-NEXT:     ^bb0(%i: index, %j: index):
// CHECK-NEXT:       %v = te.load %x[%i, %j] : tensor<?x3xf64> -> f64
// CHECK-NEXT:       %w = math.exp %v : f64
// CHECK-NEXT:       te.yield %w : f64
// CHECK-NEXT:     }
// CHECK-NEXT:     %c = te.compute [%n, %c3] : tensor<?x3xf64> {
// CHECK-NEXT:     ^bb0(%i_1: index, %j_1: index):
// CHECK-NEXT:       %v_1 = te.load %a[%i_1, %j_1] : tensor<?x3xf64> -> f64
// CHECK-NEXT:       te.yield %v_1 : f64
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return %a, %c : tensor<?x3xf64>, tensor<?x3xf64>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @copies(
// GONE-NOT:   %b = te.compute
