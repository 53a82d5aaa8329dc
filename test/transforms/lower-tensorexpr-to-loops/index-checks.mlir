// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s --check-prefix=GONE

// lower-tensorexpr-to-loops, a te.index into an extent that may be 0. Its check
// clamps an out-of-range index to 0, which is no element when the extent is 0 (pos
// with N = 0 under a loop over E > 0): the read, or a scatter's write, would leave
// the buffer. So no such access ever runs:
// - a check under loops whose extents the entry knows (sizes, arithmetic on them)
//   is tested once, at the entry: %empty_index = some checked extent is 0 while
//   every loop around its check runs. Then the outermost of those loops, E, runs to
//   %E_run = select %empty_index, 0, E (and so does every loop over E, siblings
//   stay fusible), and the function ends storing the first such check's site into
//   status. The loops keep their shape: no test inside them;
// - a check under no loop over a size (a fixed-size index), or into a count
//   computed from data, runs with the rest of its block in an scf.if on the
//   extent's `empty`, which otherwise stores the site (yielding zeros where the
//   block yields: the call fails, nothing reads them);
// - a check into a static extent, or into the extent of a loop around it (N * 3
//   inside a loop over N), needs no test.
// The GONE lines check, over each whole function, what must not be there.

// Gathers of rows of x (N x 3) by the edges (a loop over E, the index checked once
// per edge), a sibling loop over E without index and a loop over N: every loop over
// E runs to %E_run, the loop over N keeps %N; the entry tests N = 0 while E > 0.
func.func @gather(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}, %w: tensor<?xf32> {te.dims = ["E"]}) -> (tensor<?x3xf32>, tensor<?xf32>, tensor<?xf32>) attributes {te.index_sites = ["index_select along dim 0 (index data from argument 'ei')"]} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %g = te.compute [%E, %c3] : tensor<?x3xf32> {
  ^bb0(%e: index, %j: index):
    %r = te.load %ei[%c1, %e] : tensor<2x?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %x[%n, %j] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  %s = te.compute [%E] : tensor<?xf32> {
  ^bb0(%e: index):
    %v = te.load %w[%e] : tensor<?xf32> -> f32
    %d = arith.addf %v, %v : f32
    te.yield %d : f32
  }
  %n2 = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i, %c1] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  func.return %g, %s, %n2 : tensor<?x3xf32>, tensor<?xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @gather(
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: %N_empty = arith.cmpi eq, %N, [[C0]] : index
// CHECK-NEXT: %E_nonzero = arith.cmpi ne, %E, [[C0]] : index
// CHECK-NEXT: %empty_index = arith.andi %N_empty, %E_nonzero : i1
// CHECK-NEXT: %E_run = arith.select %empty_index, [[C0]], %E : index
// CHECK-NEXT: scf.for [[E:%[0-9]+]] = [[C0]] to %E_run step %c1 {
// CHECK-NEXT:   [[ROW:%[0-9]+]] = arith.addi %E, [[E]] : index
// CHECK-NEXT:   [[R:%[0-9]+]] = memref.load %ei{{\[}}[[ROW]]] : memref<?xi64>
// CHECK-NEXT:   [[I:%[0-9]+]] = arith.index_cast [[R]] : i64 to index
// CHECK-NEXT:   [[BAD:%[0-9]+]] = arith.cmpi uge, [[I]], %N : index
// CHECK-NEXT:   scf.if [[BAD]] {
// CHECK-NEXT:     [[SITE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:     [[OLD5:%.*]] = memref.load %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:     [[ZERO5:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:     [[CLEAN5:%.*]] = arith.cmpi eq, [[OLD5]], [[ZERO5]] : i32
// CHECK-NEXT:     [[NEW5:%.*]] = arith.select [[CLEAN5]], [[SITE]], [[OLD5]] : i32
// CHECK-NEXT:     memref.store [[NEW5]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:   }
// CHECK-NEXT:   [[N:%[0-9]+]] = arith.select [[BAD]], [[C0]], [[I]] : index
// CHECK-NEXT:   scf.for [[J:%[0-9]+]] = [[C0]] to %c3 step %c1 {
// CHECK-NEXT:     [[AT:%[0-9]+]] = arith.muli [[N]], %c3 : index
// CHECK-NEXT:     [[AT2:%[0-9]+]] = arith.addi [[AT]], [[J]] : index
// CHECK-NEXT:     [[V:%[0-9]+]] = memref.load %x{{\[}}[[AT2]]] : memref<?xf32>
// CHECK-NEXT:     [[OUT:%[0-9]+]] = arith.muli [[E]], %c3 : index
// CHECK-NEXT:     [[OUT2:%[0-9]+]] = arith.addi [[OUT]], [[J]] : index
// CHECK-NEXT:     memref.store [[V]], %out0{{\[}}[[OUT2]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[E2:%[0-9]+]] = [[C0]] to %E_run step %c1 {
// CHECK-NEXT:   [[W:%[0-9]+]] = memref.load %w{{\[}}[[E2]]] : memref<?xf32>
// CHECK-NEXT:   %d = arith.addf [[W]], [[W]] : f32
// CHECK-NEXT:   memref.store %d, %out1{{\[}}[[E2]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[I2:%[0-9]+]] = [[C0]] to %N step %c1 {
// CHECK-NEXT:   [[AT3:%[0-9]+]] = arith.muli [[I2]], %c3 : index
// CHECK-NEXT:   [[AT4:%[0-9]+]] = arith.addi [[AT3]], %c1 : index
// CHECK-NEXT:   [[V2:%[0-9]+]] = memref.load %x{{\[}}[[AT4]]] : memref<?xf32>
// CHECK-NEXT:   memref.store [[V2]], %out2{{\[}}[[I2]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %empty_index {
// CHECK-NEXT:   [[SITE2:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:   [[OLD6:%.*]] = memref.load %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:   [[ZERO6:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:   [[CLEAN6:%.*]] = arith.cmpi eq, [[OLD6]], [[ZERO6]] : i32
// CHECK-NEXT:   [[NEW6:%.*]] = arith.select [[CLEAN6]], [[SITE2]], [[OLD6]] : i32
// CHECK-NEXT:   memref.store [[NEW6]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// GONE-LABEL: func.func @gather(
// GONE-NOT:   scf.if %N_empty
// GONE-NOT:   scf.if %empty_index ->
// GONE-NOT:   to %N_run
// GONE:       func.return

// -----
// A sum over the edges into 3 columns: the output loop (3) runs for N = E = 0 and
// stores the identity; the check is in the loop over E only, so the entry tests E,
// not the 3 columns.
func.func @sum_over_edges(%N: index, %E: index, %x: tensor<?x3xf64> {te.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %s = te.reduce "add" [%c3] over [%E] : tensor<3xf64> {
  ^bb0(%j: index, %e: index):
    %r = te.load %ei[%c0, %e] : tensor<2x?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %x[%n, %j] : tensor<?x3xf64> -> f64
    te.yield %v : f64
  }
  func.return %s : tensor<3xf64>
}
// CHECK-LABEL: func.func @sum_over_edges(
// CHECK:      %N_empty = arith.cmpi eq, %N, %c0 : index
// CHECK-NEXT: %E_nonzero = arith.cmpi ne, %E, %c0 : index
// CHECK-NEXT: %empty_index = arith.andi %N_empty, %E_nonzero : i1
// CHECK-NEXT: %E_run = arith.select %empty_index, %c0, %E : index
// CHECK-NEXT: scf.for [[J:%[0-9]+]] = %c0 to %c3 step {{%[0-9]+}} {
// CHECK-NEXT:   [[SUM:%[0-9]+]] = scf.for [[E:%[0-9]+]] = %c0 to %E_run step {{%[0-9]+}} iter_args([[ACC:%[0-9]+]] = {{%[0-9]+}}) -> (f64) {
// CHECK-NEXT:     [[R:%[0-9]+]] = memref.load %ei{{\[}}[[E]]] : memref<?xi64>
// CHECK-NEXT:     [[I:%[0-9]+]] = arith.index_cast [[R]] : i64 to index
// CHECK-NEXT:     [[BAD:%[0-9]+]] = arith.cmpi uge, [[I]], %N : index
// CHECK:          [[ROW:%[0-9]+]] = arith.select [[BAD]], %c0, [[I]] : index
// CHECK:          memref.load %x
// CHECK:          scf.yield
// CHECK-NEXT:   }
// CHECK-NEXT:   memref.store [[SUM]], %out0{{\[}}[[J]]] : memref<?xf64>
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %empty_index {
// CHECK:        memref.store {{%[0-9]+}}, %status
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// GONE-LABEL: func.func @sum_over_edges(
// GONE-NOT:   %c3_nonzero
// GONE-NOT:   scf.if %N_empty
// GONE:       func.return

// -----
// Three levels (examples/three_body.py): per triplet t, edge e2 = trip[t] (an index
// into E), its atom k = ei[1, e2] (an index into N), x[k]. Two conditions at the
// entry, both under the loop over T: E = 0 or N = 0 while T > 0; one %T_run; the
// site stored is the first check's whose condition holds (E's: 1, else N's: 2).
func.func @triplets(%N: index, %E: index, %T: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}, %trip: tensor<?xi64> {te.dims = ["T"]}) -> tensor<?x3xf32> attributes {te.index_sites = ["index.Tensor along dim 0 (index data from argument 'trip')", "index.Tensor along dim 0 (index data from argument 'ei')"]} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %g = te.compute [%T, %c3] : tensor<?x3xf32> {
  ^bb0(%t: index, %j: index):
    %r = te.load %trip[%t] : tensor<?xi64> -> i64
    %e2 = te.index %r in %E {site = 1 : i64} : i64
    %a = te.load %ei[%c1, %e2] : tensor<2x?xi64> -> i64
    %k = te.index %a in %N {site = 2 : i64} : i64
    %v = te.load %x[%k, %j] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  func.return %g : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @triplets(
// CHECK:      %E_empty = arith.cmpi eq, %E, [[C0:%[0-9]+]] : index
// CHECK-NEXT: %T_nonzero = arith.cmpi ne, %T, [[C0]] : index
// CHECK-NEXT: [[E_T:%[0-9]+]] = arith.andi %E_empty, %T_nonzero : i1
// CHECK-NEXT: %N_empty = arith.cmpi eq, %N, [[C0]] : index
// CHECK-NEXT: [[N_T:%[0-9]+]] = arith.andi %N_empty, %T_nonzero : i1
// CHECK-NEXT: %empty_index = arith.ori [[E_T]], [[N_T]] : i1
// CHECK-NEXT: %T_run = arith.select %empty_index, [[C0]], %T : index
// CHECK-NEXT: scf.for [[T:%[0-9]+]] = [[C0]] to %T_run step
// CHECK:        arith.cmpi uge, {{%[0-9]+}}, %E : index
// CHECK:        arith.cmpi uge, {{%[0-9]+}}, %N : index
// CHECK:      scf.if %empty_index {
// CHECK-NEXT:   [[TWO:%[0-9]+]] = arith.constant 2 : i32
// CHECK-NEXT:   [[ONE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:   [[SITE:%[0-9]+]] = arith.select [[E_T]], [[ONE]], [[TWO]] : i32
// CHECK-NEXT:   [[OLD7:%.*]] = memref.load %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:   [[ZERO7:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:   [[CLEAN7:%.*]] = arith.cmpi eq, [[OLD7]], [[ZERO7]] : i32
// CHECK-NEXT:   [[NEW7:%.*]] = arith.select [[CLEAN7]], [[SITE]], [[OLD7]] : i32
// CHECK-NEXT:   memref.store [[NEW7]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// GONE-LABEL: func.func @triplets(
// GONE-NOT:   %E_run
// GONE-NOT:   %N_run
// GONE-NOT:   scf.if %E_empty
// GONE-NOT:   scf.if %N_empty
// GONE:       func.return

// -----
// One site (the same index data, `ei`) checked under two loops, over E and over T:
// two conditions at the entry, and the site stored is that one, with no select
// between two equal sites (canonicalize would fold it: the loops stage comes out as
// canonicalize leaves it).
func.func @one_site_two_loops(%N: index, %E: index, %T: index, %x: tensor<?xf32> {te.dims = ["N"]}, %ei: tensor<?xi64> {te.dims = ["E"]}, %et: tensor<?xi64> {te.dims = ["T"]}) -> (tensor<?xf32>, tensor<?xf32>) attributes {te.index_sites = ["index_select along dim 0 (index data from argument 'ei')"]} {
  %a = te.compute [%E] : tensor<?xf32> {
  ^bb0(%e: index):
    %r = te.load %ei[%e] : tensor<?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %x[%n] : tensor<?xf32> -> f32
    te.yield %v : f32
  }
  %b = te.compute [%T] : tensor<?xf32> {
  ^bb0(%t: index):
    %r = te.load %et[%t] : tensor<?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %x[%n] : tensor<?xf32> -> f32
    te.yield %v : f32
  }
  func.return %a, %b : tensor<?xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @one_site_two_loops(
// CHECK:      %empty_index = arith.ori
// CHECK:      scf.if %empty_index {
// CHECK-NEXT:   [[ONE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:   [[OLD:%[0-9]+]] = memref.load %status
// CHECK-NEXT:   [[ZERO:%[0-9]+]] = arith.constant 0 : i32
// CHECK-NEXT:   [[CLEAN:%[0-9]+]] = arith.cmpi eq, [[OLD]], [[ZERO]] : i32
// CHECK-NEXT:   [[NEW:%[0-9]+]] = arith.select [[CLEAN]], [[ONE]], [[OLD]] : i32
// CHECK-NEXT:   memref.store [[NEW]], %status
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// (the CHECK-NEXT lines above: the code the entry test stores is the site constant
// itself, with no select between two equal sites before the first-failure select)

// -----
// A sum over a fixed-size index (4 rows of x picked by idx): no loop over a size
// around the check, so it is guarded where it is, in the loop over the 4: when
// N = 0 the site is stored and the step yields 0.0 instead of reading x.
func.func @fixed(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %idx: tensor<4xi64>) -> tensor<3xf32> attributes {te.index_sites = ["index.Tensor along dim 0 (index data from argument 'idx')"]} {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s = te.reduce "add" [%c3] over [%c4] : tensor<3xf32> {
  ^bb0(%j: index, %i: index):
    %r = te.load %idx[%i] : tensor<4xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %x[%n, %j] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  func.return %s : tensor<3xf32>
}
// CHECK-LABEL: func.func @fixed(
// CHECK:      [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %N_empty = arith.cmpi eq, %N, [[C0:%[0-9]+]] : index
// CHECK-NEXT: scf.for [[J:%[0-9]+]] = [[C0]] to %c3 step
// CHECK-NEXT:   [[SUM:%[0-9]+]] = scf.for [[I:%[0-9]+]] = [[C0]] to %c4 step {{%[0-9]+}} iter_args([[ACC:%[0-9]+]] = [[ZERO]]) -> (f32) {
// CHECK-NEXT:     [[R:%[0-9]+]] = memref.load %idx{{\[}}[[I]]] : memref<?xi64>
// CHECK-NEXT:     [[STEP:%[0-9]+]] = scf.if %N_empty -> (f32) {
// CHECK-NEXT:       [[SITE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:       [[OLD8:%.*]] = memref.load %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:       [[ZERO8:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:       [[CLEAN8:%.*]] = arith.cmpi eq, [[OLD8]], [[ZERO8]] : i32
// CHECK-NEXT:       [[NEW8:%.*]] = arith.select [[CLEAN8]], [[SITE]], [[OLD8]] : i32
// CHECK-NEXT:       memref.store [[NEW8]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:       scf.yield [[ZERO]] : f32
// CHECK-NEXT:     } else {
// CHECK-NEXT:       [[IDX:%[0-9]+]] = arith.index_cast [[R]] : i64 to index
// CHECK:            [[V:%[0-9]+]] = memref.load %x
// CHECK-NEXT:       [[ADD:%[0-9]+]] = arith.addf [[ACC]], [[V]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:       scf.yield [[ADD]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.yield [[STEP]] : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   memref.store [[SUM]], %out0{{\[}}[[J]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// GONE-LABEL: func.func @fixed(
// GONE-NOT:   %empty_index
// GONE-NOT:   _run
// GONE:       func.return

// -----
// The index read once, outside any loop (a one-element index tensor): the nest that
// uses it runs in the scf.if's else; its loop keeps its place for the provenance tag.
func.func @once(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %i: tensor<1xi64>) -> tensor<3xf32> attributes {te.index_sites = ["index.Tensor along dim 0 (index data from argument 'i')"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %g = te.compute [%c3] : tensor<3xf32> {
  ^bb0(%j: index):
    %r = te.load %i[%c0] : tensor<1xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %x[%n, %j] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  func.return %g : tensor<3xf32>
}
// CHECK-LABEL: func.func @once(
// CHECK:      [[R:%[0-9]+]] = memref.load %i{{\[}}%c0] : memref<?xi64>
// CHECK-NEXT: %N_empty = arith.cmpi eq, %N, %c0 : index
// CHECK-NEXT: scf.if %N_empty {
// CHECK-NEXT:   [[SITE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:   [[OLD9:%.*]] = memref.load %status[%c0] : memref<?xi32>
// CHECK-NEXT:   [[ZERO9:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:   [[CLEAN9:%.*]] = arith.cmpi eq, [[OLD9]], [[ZERO9]] : i32
// CHECK-NEXT:   [[NEW9:%.*]] = arith.select [[CLEAN9]], [[SITE]], [[OLD9]] : i32
// CHECK-NEXT:   memref.store [[NEW9]], %status[%c0] : memref<?xi32>
// CHECK-NEXT: } else {
// CHECK-NEXT:   [[IDX:%[0-9]+]] = arith.index_cast [[R]] : i64 to index
// CHECK:        scf.for
// CHECK:          [[V:%[0-9]+]] = memref.load %x
// CHECK-NEXT:     memref.store [[V]], %out0
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// GONE-LABEL: func.func @once(
// GONE-NOT:   %empty_index
// GONE:       func.return

// -----
// An index into the count of a te.compact (known only once the flags are counted,
// so not at the entry): guarded in the loop over E, where it is read.
func.func @counted(%N: index, %E: index, %flags: tensor<?xi1> {te.dims = ["N"]}, %idx: tensor<?xi64> {te.dims = ["E"]}) -> tensor<?xi64> attributes {te.index_sites = ["index.Tensor along dim 0 (index data from argument 'idx')"]} {
  %p, %c = te.compact %flags over %N : tensor<?xi1> -> tensor<?xi64>
  %g = te.compute [%E] : tensor<?xi64> {
  ^bb0(%e: index):
    %r = te.load %idx[%e] : tensor<?xi64> -> i64
    %k = te.index %r in %c {site = 1 : i64} : i64
    %v = te.load %p[%k] : tensor<?xi64> -> i64
    te.yield %v : i64
  }
  func.return %g : tensor<?xi64>
}
// CHECK-LABEL: func.func @counted(
// CHECK:      [[COUNT:%[0-9]+]] = scf.for
// CHECK:      %empty = arith.cmpi eq, [[COUNT]], [[C0:%[0-9]+]] : index
// CHECK-NEXT: scf.for [[E:%[0-9]+]] = [[C0]] to %E step
// CHECK-NEXT:   [[R:%[0-9]+]] = memref.load %idx{{\[}}[[E]]] : memref<?xi64>
// CHECK-NEXT:   scf.if %empty {
// CHECK-NEXT:     [[SITE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:     [[OLD10:%.*]] = memref.load %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:     [[ZERO10:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:     [[CLEAN10:%.*]] = arith.cmpi eq, [[OLD10]], [[ZERO10]] : i32
// CHECK-NEXT:     [[NEW10:%.*]] = arith.select [[CLEAN10]], [[SITE]], [[OLD10]] : i32
// CHECK-NEXT:     memref.store [[NEW10]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:   } else {
// CHECK-NEXT:     [[I:%[0-9]+]] = arith.index_cast [[R]] : i64 to index
// CHECK-NEXT:     [[BAD:%[0-9]+]] = arith.cmpi uge, [[I]], [[COUNT]] : index
// CHECK:          [[V:%[0-9]+]] = memref.load {{%[0-9]+}}
// CHECK-NEXT:     memref.store [[V]], %out0{{\[}}[[E]]] : memref<?xi64>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @counted(
// GONE-NOT:   %empty_index
// GONE-NOT:   _run
// GONE:       func.return

// -----
// No test at all: an index into a static extent (8 rows of a table), and one into
// N inside a loop over N itself.
func.func @no_test(%N: index, %t: tensor<8x3xf32>, %s: tensor<?xi64> {te.dims = ["N"]}, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %a = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %r = te.load %s[%i] : tensor<?xi64> -> i64
    %k = te.index %r in %c8 {site = 1 : i64} : i64
    %v = te.load %t[%k, %j] : tensor<8x3xf32> -> f32
    te.yield %v : f32
  }
  %b = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %r = te.load %s[%i] : tensor<?xi64> -> i64
    %k = te.index %r in %N {site = 2 : i64, wrap} : i64
    %v = te.load %x[%k, %j] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  func.return %a, %b : tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @no_test(
// CHECK:         arith.cmpi uge, {{%[0-9]+}}, %c8 : index
// CHECK:         arith.cmpi uge, {{%[0-9]+}}, %N : index
// CHECK:         func.return
// GONE-LABEL: func.func @no_test(
// GONE-NOT:   empty
// GONE-NOT:   _run
// GONE-NOT:   _nonzero
// GONE:       func.return

// -----
// An extent computed between the nests (N / 2, say a slice): its arithmetic moves
// to the entry, before the test, ahead of the loop over N that came first.
func.func @derived(%N: index, %E: index, %x: tensor<?xf32> {te.dims = ["N"]}, %ei: tensor<?xi64> {te.dims = ["E"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %c2 = arith.constant 2 : index
  %a = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    %d = arith.addf %v, %v : f32
    te.yield %d : f32
  }
  %h = arith.divui %N, %c2 : index
  %g = te.compute [%E] : tensor<?xf32> {
  ^bb0(%e: index):
    %r = te.load %ei[%e] : tensor<?xi64> -> i64
    %k = te.index %r in %h {site = 1 : i64} : i64
    %v = te.load %x[%k] : tensor<?xf32> -> f32
    te.yield %v : f32
  }
  func.return %a, %g : tensor<?xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @derived(
// CHECK:      %c2 = arith.constant 2 : index
// CHECK-NEXT: %h = arith.divui %N, %c2 : index
// CHECK-NEXT: %h_empty = arith.cmpi eq, %h, [[C0:%[0-9]+]] : index
// CHECK-NEXT: %E_nonzero = arith.cmpi ne, %E, [[C0]] : index
// CHECK-NEXT: %empty_index = arith.andi %h_empty, %E_nonzero : i1
// CHECK-NEXT: %E_run = arith.select %empty_index, [[C0]], %E : index
// CHECK-NEXT: scf.for {{%[0-9]+}} = [[C0]] to %N step
// CHECK-NOT:  arith.divui
// CHECK:      scf.for {{%[0-9]+}} = [[C0]] to %E_run step
// CHECK:        arith.cmpi uge, {{%[0-9]+}}, %h : index
// GONE-LABEL: func.func @derived(
// GONE-NOT:   scf.if %h_empty
// GONE:       func.return
