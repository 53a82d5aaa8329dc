// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s
// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s --check-prefix=NOCOPY
// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr,lower-tensorexpr-to-loops | filecheck %s --check-prefix=LOOPS

// lower-aten-to-tensorexpr, views: permute, unsqueeze, squeeze.dims, select.int,
// slice.Tensor, expand, view and alias are index maps, never copies. Each view here
// feeds one elementwise consumer (neg); the consumer's te.load reads the base
// argument at the mapped indices, index arithmetic inlined into its body (bounds and
// extents computed once, outside). No te.compute of the view itself is left.
//
// The LOOPS run follows the checked selects to loops (see @select_checked).
//
// The NOCOPY run proves the last point on its own: in every function, every
// te.compute is a consumer whose body loads the base argument and then negates;
// a compute whose body is just a load (a copy) fails it.

// CHECK: builtin.module {
// CHECK-NOT: aten.

// permute [1, 0]: result [i, j] reads x[j, i].
// NOCOPY-LABEL: func.func @permute(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @permute(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> tensor<3x?xf32> {
  %0 = aten.permute %x {dims = array<i64: 1, 0>} : tensor<?x3xf32> -> tensor<3x?xf32>
  %1 = aten.neg %0 : tensor<3x?xf32> -> tensor<3x?xf32>
  func.return %1 : tensor<3x?xf32>
}
// CHECK-LABEL: func.func @permute(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> tensor<3x?xf32> {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[C3]], %N] : tensor<3x?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[J]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<3x?xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// unsqueeze at 1: the new unit index is dropped.
// NOCOPY-LABEL: func.func @unsqueeze(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @unsqueeze(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> tensor<?x1x3xf32> {
  %0 = aten.unsqueeze %x {dim = -2 : i64} : tensor<?x3xf32> -> tensor<?x1x3xf32>
  %1 = aten.neg %0 : tensor<?x1x3xf32> -> tensor<?x1x3xf32>
  func.return %1 : tensor<?x1x3xf32>
}
// CHECK-LABEL: func.func @unsqueeze(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> tensor<?x1x3xf32> {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C1]], [[C3]]] : tensor<?x1x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[K]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x1x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// squeeze.dims [1, -1]: only dim 1 has size 1; it is read at index 0.
// NOCOPY-LABEL: func.func @squeeze(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @squeeze(%N: index, %x: tensor<?x1x3xf32> {aten.dims = ["N", 1 : i64, 3 : i64]}) -> tensor<?x3xf32> {
  %0 = aten.squeeze.dims %x {dim = array<i64: 1, -1>} : tensor<?x1x3xf32> -> tensor<?x3xf32>
  %1 = aten.neg %0 : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %1 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @squeeze(%N: index, %x: tensor<?x1x3xf32> {te.dims = ["N", 1 : i64, 3 : i64]}) -> tensor<?x3xf32> {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[C0]], [[J]]] : tensor<?x1x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// select.int into a static dim with a constant index: no check (torch checked it when
// it traced). A constant index is used as is; -1 becomes 1 (folded at compile time,
// outside the body). No te.index, no te.index_sites.
// NOCOPY-LABEL: func.func @select(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %ei
// NOCOPY-NEXT: arith.constant 0 : i64
// NOCOPY-NEXT: arith.subi
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @select(%N: index, %E: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]}) -> (tensor<?xf32>, tensor<?xi64>) {
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : index
  %0 = aten.select.int %x, %c1 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?xf32>
  %1 = aten.neg %0 : tensor<?xf32> -> tensor<?xf32>
  %2 = aten.select.int %ei, %m1 {dim = 0 : i64} : tensor<2x?xi64> -> tensor<?xi64>
  %3 = aten.neg %2 : tensor<?xi64> -> tensor<?xi64>
  func.return %1, %3 : tensor<?xf32>, tensor<?xi64>
}
// CHECK-LABEL: func.func @select(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}) -> (tensor<?xf32>, tensor<?xi64>) {
// CHECK-NOT: te.index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %m1 = arith.constant -1 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], %c1] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %ei{{\[}}[[C1]], [[I]]] : tensor<2x?xi64> -> i64
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:   [[SUBI:%[0-9]+]] = arith.subi [[CST]], [[LOAD_2]] : i64
// CHECK-NEXT:   te.yield [[SUBI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<?xf32>, tensor<?xi64>
// CHECK-NEXT: }
// CHECK-NOT: te.index
// CHECK-NOT: aten.
// LOOPS-LABEL: func.func @select(
// LOOPS-NOT: te.index_sites
// LOOPS-NOT: scf.if
// LOOPS-NOT: %status[
// LOOPS: func.return

// select.int into a dim that is not static (x[0], x[-1] with N = 0; y[:, 3] of an
// [E, T] tensor with T <= 3), or with a symbolic index (ei[k]): the index may be out of
// range at run time, so it is a te.index into the dim's extent (`wrap` for a negative
// or symbolic index: torch counts it from the end), checked as a gather's index is by
// lower-tensorexpr-to-loops (for every size, 0 included). One site per select, naming
// the op, the index, the dim, its size and the argument indexed; every consumer that
// reads the view checks it (here the reduction and the elementwise op both read x[0]).
// NOCOPY-LABEL: func.func @select_checked(
// NOCOPY: te.reduce
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %y
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %ei
// NOCOPY-NEXT: arith.constant 0 : i64
// NOCOPY-NEXT: arith.subi
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @select_checked(%N: index, %E: index, %T: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %y: tensor<?x?xf32> {aten.dims = ["E", "T"]}, %ei: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]}, %k: index) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %m1 = arith.constant -1 : index
  %c3 = arith.constant 3 : index
  %0 = aten.select.int %x, %c0 {dim = 0 : i64} : tensor<?x3xf32> -> tensor<3xf32>
  %1 = aten.sum.dim_IntList %0 {dim = array<i64>} : tensor<3xf32> -> tensor<f32>
  %2 = aten.neg %0 : tensor<3xf32> -> tensor<3xf32>
  %3 = aten.select.int %x, %m1 {dim = 0 : i64} : tensor<?x3xf32> -> tensor<3xf32>
  %4 = aten.neg %3 : tensor<3xf32> -> tensor<3xf32>
  %5 = aten.select.int %y, %c3 {dim = 1 : i64} : tensor<?x?xf32> -> tensor<?xf32>
  %6 = aten.neg %5 : tensor<?xf32> -> tensor<?xf32>
  %7 = aten.select.int %ei, %k {dim = 0 : i64} : tensor<2x?xi64> -> tensor<?xi64>
  %8 = aten.neg %7 : tensor<?xi64> -> tensor<?xi64>
  func.return %1, %2, %4, %6, %8 : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<?xf32>, tensor<?xi64>
}
// CHECK-LABEL: func.func @select_checked(
// CHECK-SAME: attributes {te.index_sites = ["select.int: index 0 into dim 0 of size N of argument 'x'", "select.int: index -1 into dim 0 of size N of argument 'x'", "select.int: index 3 into dim 1 of size T of argument 'y'", "select.int: index k into dim 0 of size 2 of argument 'ei'"]} {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %m1 = arith.constant -1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [] over {{\[}}[[C3]]] : tensor<f32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[K:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:   [[AT:%[0-9]+]] = te.index [[K]] in %N {site = 1 : i64} : i64
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[AT]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[C3]]] : tensor<3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[K:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:   [[AT:%[0-9]+]] = te.index [[K]] in %N {site = 1 : i64} : i64
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[AT]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute {{\[}}[[C3]]] : tensor<3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[K:%[0-9]+]] = arith.constant -1 : i64
// CHECK-NEXT:   [[AT:%[0-9]+]] = te.index [[K]] in %N {site = 2 : i64, wrap} : i64
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[AT]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%E] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[K:%[0-9]+]] = arith.constant 3 : i64
// CHECK-NEXT:   [[AT:%[0-9]+]] = te.index [[K]] in %T {site = 3 : i64} : i64
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %y{{\[}}[[I]], [[AT]]] : tensor<?x?xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[K:%[0-9]+]] = arith.index_cast %k : index to i64
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[AT:%[0-9]+]] = te.index [[K]] in [[C2]] {site = 4 : i64, wrap} : i64
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %ei{{\[}}[[AT]], [[I]]] : tensor<2x?xi64> -> i64
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:   [[SUBI:%[0-9]+]] = arith.subi [[CST]], [[LOAD]] : i64
// CHECK-NEXT:   te.yield [[SUBI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[R]], [[T]], [[T_2]], [[T_3]], [[T_4]] : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<?xf32>, tensor<?xi64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// In loops each check runs once per nest, before its loops (its operands are
// outside them), and when the dim is empty (N = 0, T = 0) the nest does not run at
// all: the site is stored instead, whatever the other extents (E) are.
// LOOPS-LABEL: func.func @select_checked(
// LOOPS:      %N_empty = arith.cmpi eq, %N, %c0 : index
// LOOPS-NEXT: scf.if %N_empty {
// LOOPS-NEXT:   [[SITE:%[0-9]+]] = arith.constant 1 : i32
// LOOPS-NEXT:   [[OLD:%[0-9]+]] = memref.load %status[%c0] : memref<?xi32>
// LOOPS-NEXT:   [[ZERO:%[0-9]+]] = arith.constant 0 : i32
// LOOPS-NEXT:   [[CLEAN:%[0-9]+]] = arith.cmpi eq, [[OLD]], [[ZERO]] : i32
// LOOPS-NEXT:   [[NEW:%[0-9]+]] = arith.select [[CLEAN]], [[SITE]], [[OLD]] : i32
// LOOPS-NEXT:   memref.store [[NEW]], %status[%c0] : memref<?xi32>
// LOOPS-NEXT: } else {
// LOOPS-NEXT:   [[I:%[0-9]+]] = arith.index_cast {{%[0-9]+}} : i64 to index
// LOOPS-NEXT:   [[BAD:%[0-9]+]] = arith.cmpi uge, [[I]], %N : index
// LOOPS-NEXT:   scf.if [[BAD]] {
// LOOPS-NEXT:     [[SITE2:%[0-9]+]] = arith.constant 1 : i32
// LOOPS-NEXT:     [[OLD2:%[0-9]+]] = memref.load %status[%c0] : memref<?xi32>
// LOOPS-NEXT:     [[ZERO2:%[0-9]+]] = arith.constant 0 : i32
// LOOPS-NEXT:     [[CLEAN2:%[0-9]+]] = arith.cmpi eq, [[OLD2]], [[ZERO2]] : i32
// LOOPS-NEXT:     [[NEW2:%[0-9]+]] = arith.select [[CLEAN2]], [[SITE2]], [[OLD2]] : i32
// LOOPS-NEXT:     memref.store [[NEW2]], %status[%c0] : memref<?xi32>
// LOOPS-NEXT:   }
// LOOPS-NEXT:   [[AT:%[0-9]+]] = arith.select [[BAD]], %c0, [[I]] : index
// LOOPS-NEXT:   scf.for
// LOOPS:      scf.if %N_empty {
// LOOPS:      scf.if %N_empty {
// LOOPS-NEXT:   [[SITE:%[0-9]+]] = arith.constant 2 : i32
// LOOPS:        [[NEG:%[0-9]+]] = arith.cmpi slt, [[I:%[0-9]+]], %c0 : index
// LOOPS-NEXT:   [[WRAPPED:%[0-9]+]] = arith.addi [[I]], %N : index
// LOOPS-NEXT:   [[J:%[0-9]+]] = arith.select [[NEG]], [[WRAPPED]], [[I]] : index
// LOOPS-NEXT:   [[BAD:%[0-9]+]] = arith.cmpi uge, [[J]], %N : index
// LOOPS:      %T_empty = arith.cmpi eq, %T, %c0 : index
// LOOPS-NEXT: scf.if %T_empty {
// LOOPS-NEXT:   [[SITE3:%[0-9]+]] = arith.constant 3 : i32
// LOOPS-NEXT:   [[OLD3:%[0-9]+]] = memref.load %status[%c0] : memref<?xi32>
// LOOPS-NEXT:   [[ZERO3:%[0-9]+]] = arith.constant 0 : i32
// LOOPS-NEXT:   [[CLEAN3:%[0-9]+]] = arith.cmpi eq, [[OLD3]], [[ZERO3]] : i32
// LOOPS-NEXT:   [[NEW3:%[0-9]+]] = arith.select [[CLEAN3]], [[SITE3]], [[OLD3]] : i32
// LOOPS-NEXT:   memref.store [[NEW3]], %status[%c0] : memref<?xi32>
// LOOPS-NEXT: } else {
// LOOPS:        [[BAD:%[0-9]+]] = arith.cmpi uge, {{%[0-9]+}}, %T : index
// LOOPS:        scf.for {{%[0-9]+}} = %c0 to %E step
// LOOPS:      [[BAD:%[0-9]+]] = arith.cmpi uge, {{%[0-9]+}}, {{%[0-9a-z]+}} : index
// LOOPS-NEXT: scf.if [[BAD]] {
// LOOPS-NEXT:   [[SITE:%[0-9]+]] = arith.constant 4 : i32
// LOOPS:      scf.for {{%[0-9]+}} = %c0 to %E step
// LOOPS:      func.return

// slice.Tensor, Python semantics: [0:INT64_MAX] is the whole dim (the extent is N,
// normalized and clamped); [1:N:2] has ceil((N - 1) / 2) rows read at 2 * i + 1;
// [:2] along dim 1 has extent min(2, 3), folded to 2; [-1:] starts at N - 1.
// NOCOPY-LABEL: func.func @slice(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @slice(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m1 = arith.constant -1 : index
  %big = arith.constant 9223372036854775807 : index
  %0 = aten.slice.Tensor %x start %c0 end %big : tensor<?x3xf32> -> tensor<?x3xf32>
  %1 = aten.neg %0 : tensor<?x3xf32> -> tensor<?x3xf32>
  %2 = aten.slice.Tensor %x start %c1 end %N step %c2 : tensor<?x3xf32> -> tensor<?x3xf32>
  %3 = aten.neg %2 : tensor<?x3xf32> -> tensor<?x3xf32>
  %4 = aten.slice.Tensor %x end %c2 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x?xf32>
  %5 = aten.neg %4 : tensor<?x?xf32> -> tensor<?x?xf32>
  %6 = aten.slice.Tensor %x start %m1 : tensor<?x3xf32> -> tensor<?x3xf32>
  %7 = aten.neg %6 : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %1, %3, %5, %7 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @slice(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x3xf32>) {
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %m1 = arith.constant -1 : index
// CHECK-NEXT: %big = arith.constant 9223372036854775807 : index
// CHECK-NEXT: [[CMPI:%[0-9]+]] = arith.cmpi slt, %N, [[C0]] : index
// CHECK-NEXT: [[ADDI:%[0-9]+]] = arith.addi %N, %N : index
// CHECK-NEXT: [[SELECT:%[0-9]+]] = arith.select [[CMPI]], [[ADDI]], %N : index
// CHECK-NEXT: [[MAXSI:%[0-9]+]] = arith.maxsi [[SELECT]], [[C0]] : index
// CHECK-NEXT: [[MINSI:%[0-9]+]] = arith.minsi [[MAXSI]], %N : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[MINSI]], [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[MAXSI_2:%[0-9]+]] = arith.maxsi %c1, [[C0]] : index
// CHECK-NEXT: [[MINSI_2:%[0-9]+]] = arith.minsi [[MAXSI_2]], %N : index
// CHECK-NEXT: [[CMPI_2:%[0-9]+]] = arith.cmpi slt, %N, [[C0]] : index
// CHECK-NEXT: [[ADDI_2:%[0-9]+]] = arith.addi %N, %N : index
// CHECK-NEXT: [[SELECT_2:%[0-9]+]] = arith.select [[CMPI_2]], [[ADDI_2]], %N : index
// CHECK-NEXT: [[MAXSI_3:%[0-9]+]] = arith.maxsi [[SELECT_2]], [[C0]] : index
// CHECK-NEXT: [[MINSI_3:%[0-9]+]] = arith.minsi [[MAXSI_3]], %N : index
// CHECK-NEXT: [[SUBI:%[0-9]+]] = arith.subi [[MINSI_3]], [[MINSI_2]] : index
// CHECK-NEXT: [[MAXSI_4:%[0-9]+]] = arith.maxsi [[SUBI]], [[C0]] : index
// CHECK-NEXT: [[CEILDIVSI:%[0-9]+]] = arith.ceildivsi [[MAXSI_4]], %c2 : index
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute {{\[}}[[CEILDIVSI]], [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[MULI:%[0-9]+]] = arith.muli [[I]], %c2 : index
// CHECK-NEXT:   [[ADDI_3:%[0-9]+]] = arith.addi [[MULI]], [[MINSI_2]] : index
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %x{{\[}}[[ADDI_3]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF_2:%[0-9]+]] = arith.negf [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[NEGF_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%N, [[C2]]] : tensor<?x?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF_3:%[0-9]+]] = arith.negf [[LOAD_3]] : f32
// CHECK-NEXT:   te.yield [[NEGF_3]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[ADDI_4:%[0-9]+]] = arith.addi %N, %m1 : index
// CHECK-NEXT: [[MAXSI_6:%[0-9]+]] = arith.maxsi [[ADDI_4]], [[C0]] : index
// CHECK-NEXT: [[MINSI_5:%[0-9]+]] = arith.minsi [[MAXSI_6]], %N : index
// CHECK-NEXT: [[CMPI_3:%[0-9]+]] = arith.cmpi slt, %N, [[C0]] : index
// CHECK-NEXT: [[ADDI_5:%[0-9]+]] = arith.addi %N, %N : index
// CHECK-NEXT: [[SELECT_3:%[0-9]+]] = arith.select [[CMPI_3]], [[ADDI_5]], %N : index
// CHECK-NEXT: [[MAXSI_7:%[0-9]+]] = arith.maxsi [[SELECT_3]], [[C0]] : index
// CHECK-NEXT: [[MINSI_6:%[0-9]+]] = arith.minsi [[MAXSI_7]], %N : index
// CHECK-NEXT: [[SUBI_2:%[0-9]+]] = arith.subi [[MINSI_6]], [[MINSI_5]] : index
// CHECK-NEXT: [[MAXSI_8:%[0-9]+]] = arith.maxsi [[SUBI_2]], [[C0]] : index
// CHECK-NEXT: [[CEILDIVSI_2:%[0-9]+]] = arith.ceildivsi [[MAXSI_8]], [[C1]] : index
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute {{\[}}[[CEILDIVSI_2]], [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[ADDI_6:%[0-9]+]] = arith.addi [[I]], [[MINSI_5]] : index
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %x{{\[}}[[ADDI_6]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF_4:%[0-9]+]] = arith.negf [[LOAD_4]] : f32
// CHECK-NEXT:   te.yield [[NEGF_4]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]], [[T_3]], [[T_4]] : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// expand: [2, -1, 16] of ?x1 (a new leading dim, -1 keeps N, the unit dim read at
// 0); a rank-0 tensor expanded to [N, 1] is loaded with no indices.
// NOCOPY-LABEL: func.func @expand(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %s
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @expand(%N: index, %x: tensor<?x1xf32> {aten.dims = ["N", 1 : i64]}, %s: tensor<f32> {aten.dims = []}) -> (tensor<2x?x16xf32>, tensor<?x1xf32>) {
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %m1 = arith.constant -1 : index
  %c1 = arith.constant 1 : index
  %0 = aten.expand %x, [%c2, %m1, %c16] : tensor<?x1xf32> -> tensor<2x?x16xf32>
  %1 = aten.neg %0 : tensor<2x?x16xf32> -> tensor<2x?x16xf32>
  %2 = aten.expand %s, [%N, %c1] : tensor<f32> -> tensor<?x1xf32>
  %3 = aten.neg %2 : tensor<?x1xf32> -> tensor<?x1xf32>
  func.return %1, %3 : tensor<2x?x16xf32>, tensor<?x1xf32>
}
// CHECK-LABEL: func.func @expand(%N: index, %x: tensor<?x1xf32> {te.dims = ["N", 1 : i64]}, %s: tensor<f32> {te.dims = []}) -> (tensor<2x?x16xf32>, tensor<?x1xf32>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: %m1 = arith.constant -1 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[C2]], %N, [[C16]]] : tensor<2x?x16xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[J]], [[C0]]] : tensor<?x1xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C1]]] : tensor<?x1xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %s[] : tensor<f32> -> f32
// CHECK-NEXT:   [[NEGF_2:%[0-9]+]] = arith.negf [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[NEGF_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<2x?x16xf32>, tensor<?x1xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// view: flattening ?x3 to [3N] reads x[f / 3, f % 3]; [N, 3, 1] keeps the leading
// dims and drops the unit one; [-1] infers N * 3 / 1; [-1, 3] infers N * 3 / 3 and,
// the extents no longer being the same values, goes through the flat index.
// NOCOPY-LABEL: func.func @view(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @view(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> (tensor<?xf32>, tensor<?x3x1xf32>, tensor<?xf32>, tensor<?x3xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %m1 = arith.constant -1 : index
  %n3 = arith.muli %N, %c3 : index
  %0 = aten.view %x, [%n3] : tensor<?x3xf32> -> tensor<?xf32>
  %1 = aten.neg %0 : tensor<?xf32> -> tensor<?xf32>
  %2 = aten.view %x, [%N, %c3, %c1] : tensor<?x3xf32> -> tensor<?x3x1xf32>
  %3 = aten.neg %2 : tensor<?x3x1xf32> -> tensor<?x3x1xf32>
  %4 = aten.view %x, [%m1] : tensor<?x3xf32> -> tensor<?xf32>
  %5 = aten.neg %4 : tensor<?xf32> -> tensor<?xf32>
  %6 = aten.view %x, [%m1, %c3] : tensor<?x3xf32> -> tensor<?x3xf32>
  %7 = aten.neg %6 : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %1, %3, %5, %7 : tensor<?xf32>, tensor<?x3x1xf32>, tensor<?xf32>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @view(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<?xf32>, tensor<?x3x1xf32>, tensor<?xf32>, tensor<?x3xf32>) {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: %m1 = arith.constant -1 : index
// CHECK-NEXT: %n3 = arith.muli %N, %c3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%n3] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[REMUI:%[0-9]+]] = arith.remui [[I]], [[C3]] : index
// CHECK-NEXT:   [[DIVUI:%[0-9]+]] = arith.divui [[I]], [[C3]] : index
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[DIVUI]], [[REMUI]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C3]], [[C1]]] : tensor<?x3x1xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF_2:%[0-9]+]] = arith.negf [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[NEGF_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[MULI:%[0-9]+]] = arith.muli %N, [[C3]] : index
// CHECK-NEXT: [[DIVUI_2:%[0-9]+]] = arith.divui [[MULI]], [[C1]] : index
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute {{\[}}[[DIVUI_2]]] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[REMUI_2:%[0-9]+]] = arith.remui [[I]], [[C3]] : index
// CHECK-NEXT:   [[DIVUI_3:%[0-9]+]] = arith.divui [[I]], [[C3]] : index
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %x{{\[}}[[DIVUI_3]], [[REMUI_2]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF_3:%[0-9]+]] = arith.negf [[LOAD_3]] : f32
// CHECK-NEXT:   te.yield [[NEGF_3]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[MULI_2:%[0-9]+]] = arith.muli %N, [[C3]] : index
// CHECK-NEXT: [[DIVUI_4:%[0-9]+]] = arith.divui [[MULI_2]], %c3 : index
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute {{\[}}[[DIVUI_4]], [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[MULI_3:%[0-9]+]] = arith.muli [[I]], [[C3]] : index
// CHECK-NEXT:   [[ADDI:%[0-9]+]] = arith.addi [[MULI_3]], [[J]] : index
// CHECK-NEXT:   [[REMUI_3:%[0-9]+]] = arith.remui [[ADDI]], [[C3]] : index
// CHECK-NEXT:   [[DIVUI_5:%[0-9]+]] = arith.divui [[ADDI]], [[C3]] : index
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %x{{\[}}[[DIVUI_5]], [[REMUI_3]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF_4:%[0-9]+]] = arith.negf [[LOAD_4]] : f32
// CHECK-NEXT:   te.yield [[NEGF_4]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]], [[T_3]], [[T_4]] : tensor<?xf32>, tensor<?x3x1xf32>, tensor<?xf32>, tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// alias (and clone, of the same type) is the operand itself.
// NOCOPY-LABEL: func.func @alias(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @alias(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> tensor<?x3xf32> {
  %0 = aten.alias %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %1 = aten.clone %0 : tensor<?x3xf32> -> tensor<?x3xf32>
  %2 = aten.neg %1 : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %2 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @alias(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> tensor<?x3xf32> {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// A chain of views composes into one index map: unsqueeze, permute, permute,
// squeeze gives result [c, n] = x[n, c]; the unused select.int leaves nothing.
// NOCOPY-LABEL: func.func @chain(
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %x
// NOCOPY-NEXT: arith.negf
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @chain(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> tensor<3x?xf32> {
  %c1 = arith.constant 1 : index
  %0 = aten.unsqueeze %x {dim = 0 : i64} : tensor<?x3xf32> -> tensor<1x?x3xf32>
  %1 = aten.permute %0 {dims = array<i64: 2, 1, 0>} : tensor<1x?x3xf32> -> tensor<3x?x1xf32>
  %2 = aten.select.int %1, %c1 {dim = 0 : i64} : tensor<3x?x1xf32> -> tensor<?x1xf32>
  %3 = aten.permute %1 {dims = array<i64: 0, 2, 1>} : tensor<3x?x1xf32> -> tensor<3x1x?xf32>
  %4 = aten.squeeze.dims %3 {dim = array<i64: 1>} : tensor<3x1x?xf32> -> tensor<3x?xf32>
  %5 = aten.neg %4 : tensor<3x?xf32> -> tensor<3x?xf32>
  func.return %5 : tensor<3x?xf32>
}
// CHECK-LABEL: func.func @chain(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> tensor<3x?xf32> {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[C3]], %N] : tensor<3x?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[J]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<3x?xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.
// CHECK: {{^}}}
