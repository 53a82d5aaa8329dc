// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s
// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s --check-prefix=NOCOPY

// lower-aten-to-tensorexpr, views: permute, unsqueeze, squeeze.dims, select.int,
// slice.Tensor, expand, view and alias are index maps, never copies. Each view here
// feeds one elementwise consumer (neg); the consumer's te.load reads the base
// argument at the mapped indices, index arithmetic inlined into its body (bounds and
// extents computed once, outside). No te.compute of the view itself is left.
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

// select.int: a constant index is used as is; -1 becomes 2 + -1 (computed once,
// outside the body); a symbolic index is normalized with a compare and select.
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
// NOCOPY: te.compute
// NOCOPY-NOT: te.compute
// NOCOPY: te.load %ei
// NOCOPY-NEXT: arith.constant 0 : i64
// NOCOPY-NEXT: arith.subi
// NOCOPY-NEXT: te.yield
// NOCOPY-NOT: te.compute
func.func @select(%N: index, %E: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]}, %k: index) -> (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) {
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : index
  %0 = aten.select.int %x, %c1 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?xf32>
  %1 = aten.neg %0 : tensor<?xf32> -> tensor<?xf32>
  %2 = aten.select.int %ei, %m1 {dim = 0 : i64} : tensor<2x?xi64> -> tensor<?xi64>
  %3 = aten.neg %2 : tensor<?xi64> -> tensor<?xi64>
  %4 = aten.select.int %ei, %k {dim = 0 : i64} : tensor<2x?xi64> -> tensor<?xi64>
  %5 = aten.neg %4 : tensor<?xi64> -> tensor<?xi64>
  func.return %1, %3, %5 : tensor<?xf32>, tensor<?xi64>, tensor<?xi64>
}
// CHECK-LABEL: func.func @select(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}, %k: index) -> (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) {
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
// CHECK-NEXT: [[ADDI:%[0-9]+]] = arith.addi [[C2]], %m1 : index
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %ei{{\[}}[[ADDI]], [[I]]] : tensor<2x?xi64> -> i64
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:   [[SUBI:%[0-9]+]] = arith.subi [[CST]], [[LOAD_2]] : i64
// CHECK-NEXT:   te.yield [[SUBI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[CMPI:%[0-9]+]] = arith.cmpi slt, %k, [[C0]] : index
// CHECK-NEXT: [[ADDI_2:%[0-9]+]] = arith.addi [[C2]], %k : index
// CHECK-NEXT: [[SELECT:%[0-9]+]] = arith.select [[CMPI]], [[ADDI_2]], %k : index
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %ei{{\[}}[[SELECT]], [[I]]] : tensor<2x?xi64> -> i64
// CHECK-NEXT:   [[CST_2:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:   [[SUBI_2:%[0-9]+]] = arith.subi [[CST_2]], [[LOAD_3]] : i64
// CHECK-NEXT:   te.yield [[SUBI_2]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]], [[T_3]] : tensor<?xf32>, tensor<?xi64>, tensor<?xi64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// slice.Tensor, Python semantics: [0:INT64_MAX] is the whole dim (the extent is N,
// normalized and clamped); [1:N:2] has ceil((N - 1) / 2) rows read at 2 * i + 1;
// [:2] along dim 1 has extent min(2, 3); [-1:] starts at N - 1.
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
// CHECK-NEXT: [[MAXSI_5:%[0-9]+]] = arith.maxsi %c2, [[C0]] : index
// CHECK-NEXT: [[MINSI_4:%[0-9]+]] = arith.minsi [[MAXSI_5]], [[C3]] : index
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%N, [[MINSI_4]]] : tensor<?x?xf32> {
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
