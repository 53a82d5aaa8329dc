// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s

// lower-aten-to-tensorexpr, indexing: gathers (index_select, embedding, gather,
// index.Tensor) are a te.compute whose body loads the index data, turns it into an
// index with te.index (checked against the extent of the indexed dim at run time)
// and loads the source there; scatters (index_put, scatter_add, index_add,
// slice_scatter, select_scatter) and cat are te.scatter over the update space, the
// target indices in te.update. Each te.index has a site, numbered from 1 in the
// function, whose message is in the function attribute te.index_sites (the op, the
// dim, and the argument the index data comes from, through views).

// CHECK: builtin.module {
// CHECK-NOT: aten.

// index_select along dim 0 with the row of edge_index taken by select.int: the view
// is read in place, edge_index[1, e]; the site names the argument 'edge_index'.
func.func @index_select(%N: index, %E: index, %pos: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %edge_index: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]}) -> (tensor<?x3xf32> {aten.dims = ["E", 3 : i64]}) {
  %c1 = arith.constant 1 : index
  %0 = aten.select.int %edge_index, %c1 {dim = 0 : i64} : tensor<2x?xi64> -> tensor<?xi64>
  %1 = aten.index_select %pos, %0 {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64> -> tensor<?x3xf32>
  func.return %1 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @index_select(%N: index, %E: index, %pos: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %edge_index: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}) -> (tensor<?x3xf32> {te.dims = ["E", 3 : i64]}) attributes {te.index_sites = ["index_select along dim 0 (index data from argument 'edge_index')"]} {
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%E, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %edge_index[%c1, [[I]]] : tensor<2x?xi64> -> i64
// CHECK-NEXT:   [[INDEX:%[0-9]+]] = te.index [[LOAD]] in %N {site = 1 : i64} : i64
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %pos{{\[}}[[INDEX]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// embedding: the row of a weight, checked against its 10 rows.
func.func @embedding(%N: index, %types: tensor<?xi64> {aten.dims = ["N"]}) -> tensor<?x16xf32> {
  %emb = aten.weight "embedding.weight" : tensor<10x16xf32>
  %0 = aten.embedding %emb, %types : tensor<10x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK-LABEL: func.func @embedding(%N: index, %types: tensor<?xi64> {te.dims = ["N"]}) -> tensor<?x16xf32> attributes {te.index_sites = ["embedding row (index data from argument 'types')"]} {
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: [[C10:%[0-9]+]] = arith.constant 10 : index
// CHECK-NEXT: %emb = te.weight "embedding.weight" : tensor<10x16xf32>
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C16]]] : tensor<?x16xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %types{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[INDEX:%[0-9]+]] = te.index [[LOAD]] in [[C10]] {site = 1 : i64} : i64
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %emb{{\[}}[[INDEX]], [[J]]] : tensor<10x16xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x16xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// gather along dim 1: the index tensor has the result's shape.
// (Whether te.index wraps negative indices is not pinned for gather, scatter_add
// and index_add: torch rejects negative indices there.)
func.func @gather(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %gi: tensor<?x3xi64> {aten.dims = ["N", 3 : i64]}) -> tensor<?x3xf32> {
  %0 = aten.gather %x, %gi {dim = 1 : i64} : tensor<?x3xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @gather(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %gi: tensor<?x3xi64> {te.dims = ["N", 3 : i64]}) -> tensor<?x3xf32> attributes {te.index_sites = ["gather along dim 1 (index data from argument 'gi')"]} {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %gi{{\[}}[[I]], [[J]]] : tensor<?x3xi64> -> i64
// CHECK-NEXT:   [[INDEX:%[0-9]+]] = te.index [[LOAD]] in [[C3]] {site = 1 : i64{{(, wrap)?}}} : i64
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %x{{\[}}[[I]], [[INDEX]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// index.Tensor (advanced indexing, negative indices wrap): x[idx]; x[:, idx]
// (the index dim stays in place); z[col, :, row] with non-adjacent indexed dims
// (the broadcast index dims, E x 4, go first) and index tensors broadcast against
// each other (col is Ex1: read at [e, 0]).
func.func @index_tensor(%N: index, %E: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %z: tensor<?x3x4xf32> {aten.dims = ["N", 3 : i64, 4 : i64]}, %idx: tensor<?xi64> {aten.dims = ["E"]}, %col: tensor<?x1xi64> {aten.dims = ["E", 1 : i64]}, %row: tensor<4xi64> {aten.dims = [4 : i64]}) -> (tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x4x3xf32>) {
  %0 = aten.index.Tensor %x [%idx] {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>] -> tensor<?x3xf32>
  %1 = aten.index.Tensor %x [%idx] {indexed_dims = array<i64: 1>} : tensor<?x3xf32>, [tensor<?xi64>] -> tensor<?x?xf32>
  %2 = aten.index.Tensor %z [%col, %row] {indexed_dims = array<i64: 0, 2>} : tensor<?x3x4xf32>, [tensor<?x1xi64>, tensor<4xi64>] -> tensor<?x4x3xf32>
  func.return %0, %1, %2 : tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x4x3xf32>
}
// CHECK-LABEL: func.func @index_tensor(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %z: tensor<?x3x4xf32> {te.dims = ["N", 3 : i64, 4 : i64]}, %idx: tensor<?xi64> {te.dims = ["E"]}, %col: tensor<?x1xi64> {te.dims = ["E", 1 : i64]}, %row: tensor<4xi64> {te.dims = [4 : i64]}) -> (tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x4x3xf32>) attributes {te.index_sites = ["index.Tensor along dim 0 (index data from argument 'idx')", "index.Tensor along dim 1 (index data from argument 'idx')", "index.Tensor along dim 0 (index data from argument 'col')", "index.Tensor along dim 2 (index data from argument 'row')"]} {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C4:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%E, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %idx{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[INDEX:%[0-9]+]] = te.index [[LOAD]] in %N {site = 1 : i64, wrap} : i64
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %x{{\[}}[[INDEX]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, %E] : tensor<?x?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %idx{{\[}}[[J]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[INDEX_2:%[0-9]+]] = te.index [[LOAD_3]] in [[C3]] {site = 2 : i64, wrap} : i64
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %x{{\[}}[[I]], [[INDEX_2]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD_4]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%E, [[C4]], [[C3]]] : tensor<?x4x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load %col{{\[}}[[I]], [[C0]]] : tensor<?x1xi64> -> i64
// CHECK-NEXT:   [[INDEX_3:%[0-9]+]] = te.index [[LOAD_5]] in %N {site = 3 : i64, wrap} : i64
// CHECK-NEXT:   [[LOAD_6:%[0-9]+]] = te.load %row{{\[}}[[J]]] : tensor<4xi64> -> i64
// CHECK-NEXT:   [[INDEX_4:%[0-9]+]] = te.index [[LOAD_6]] in [[C4]] {site = 4 : i64, wrap} : i64
// CHECK-NEXT:   [[LOAD_7:%[0-9]+]] = te.load %z{{\[}}[[INDEX_3]], [[K]], [[INDEX_4]]] : tensor<?x3x4xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD_7]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]], [[T_3]] : tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x4x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// index_put, assign and accumulate: a te.scatter over the space of the values,
// writing x[idx[e], j]; a rank-0 value is broadcast (loaded with no indices).
func.func @index_put(%N: index, %E: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %idx: tensor<?xi64> {aten.dims = ["E"]}, %src: tensor<?x3xf32> {aten.dims = ["E", 3 : i64]}, %v: tensor<f32> {aten.dims = []}) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = aten.index_put %x [%idx], %src {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>], tensor<?x3xf32> -> tensor<?x3xf32>
  %1 = aten.index_put %x [%idx], %src {accumulate = true, indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>], tensor<?x3xf32> -> tensor<?x3xf32>
  %2 = aten.index_put %x [%idx], %v {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>], tensor<f32> -> tensor<?x3xf32>
  func.return %0, %1, %2 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @index_put(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %idx: tensor<?xi64> {te.dims = ["E"]}, %src: tensor<?x3xf32> {te.dims = ["E", 3 : i64]}, %v: tensor<f32> {te.dims = []}) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) attributes {te.index_sites = ["index_put along dim 0 (index data from argument 'idx')", "index_put along dim 0 (index data from argument 'idx')", "index_put along dim 0 (index data from argument 'idx')"]} {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[S:%[0-9]+]] = te.scatter "assign" %x over [%E, [[C3]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %src{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %idx{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[INDEX:%[0-9]+]] = te.index [[LOAD_2]] in %N {site = 1 : i64, wrap} : i64
// CHECK-NEXT:   te.update {{\[}}[[INDEX]], [[J]]], [[LOAD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[S_2:%[0-9]+]] = te.scatter "add" %x over [%E, [[C3]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %src{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %idx{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[INDEX_2:%[0-9]+]] = te.index [[LOAD_4]] in %N {site = 2 : i64, wrap} : i64
// CHECK-NEXT:   te.update {{\[}}[[INDEX_2]], [[J]]], [[LOAD_3]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[S_3:%[0-9]+]] = te.scatter "assign" %x over [%E, [[C3]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load %v[] : tensor<f32> -> f32
// CHECK-NEXT:   [[LOAD_6:%[0-9]+]] = te.load %idx{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[INDEX_3:%[0-9]+]] = te.index [[LOAD_6]] in %N {site = 3 : i64, wrap} : i64
// CHECK-NEXT:   te.update {{\[}}[[INDEX_3]], [[J]]], [[LOAD_5]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[S]], [[S_2]], [[S_3]] : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// scatter_add along dim 0: over the index's space, x[gi[i, j], j] += src[i, j].
func.func @scatter_add(%N: index, %E: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %gi: tensor<?x3xi64> {aten.dims = ["E", 3 : i64]}, %src: tensor<?x3xf32> {aten.dims = ["E", 3 : i64]}) -> tensor<?x3xf32> {
  %0 = aten.scatter_add %x, %gi, %src {dim = 0 : i64} : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @scatter_add(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %gi: tensor<?x3xi64> {te.dims = ["E", 3 : i64]}, %src: tensor<?x3xf32> {te.dims = ["E", 3 : i64]}) -> tensor<?x3xf32> attributes {te.index_sites = ["scatter_add along dim 0 (index data from argument 'gi')"]} {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[S:%[0-9]+]] = te.scatter "add" %x over [%E, [[C3]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %gi{{\[}}[[I]], [[J]]] : tensor<?x3xi64> -> i64
// CHECK-NEXT:   [[INDEX:%[0-9]+]] = te.index [[LOAD]] in %N {site = 1 : i64{{(, wrap)?}}} : i64
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %src{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.update {{\[}}[[INDEX]], [[J]]], [[LOAD_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[S]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// index_add along dim 0 with alpha: x[idx[e], j] += src[e, j] * alpha, over the
// source's space.
func.func @index_add(%N: index, %E: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %idx: tensor<?xi64> {aten.dims = ["E"]}, %src: tensor<?x3xf32> {aten.dims = ["E", 3 : i64]}) -> tensor<?x3xf32> {
  %f2 = arith.constant 2.000000e+00 : f64
  %0 = aten.index_add %x, %idx, %src alpha %f2 : f64 {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @index_add(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %idx: tensor<?xi64> {te.dims = ["E"]}, %src: tensor<?x3xf32> {te.dims = ["E", 3 : i64]}) -> tensor<?x3xf32> attributes {te.index_sites = ["index_add along dim 0 (index data from argument 'idx')"]} {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %f2 = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: [[S:%[0-9]+]] = te.scatter "add" %x over [%E, [[C3]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %idx{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[INDEX:%[0-9]+]] = te.index [[LOAD]] in %N {site = 1 : i64{{(, wrap)?}}} : i64
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %src{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf %f2 : f64 to f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD_2]], [[TRUNCF]] : f32
// CHECK-NEXT:   te.update {{\[}}[[INDEX]], [[J]]], [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[S]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// slice_scatter and select_scatter into a static dim: the target index is computed
// (1 + j) or constant (-1 along dim 1 of size 3 is 2, folded as the start 1 is);
// no te.index, so no te.index_sites.
func.func @slice_scatter(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %src: tensor<?x2xf32> {aten.dims = ["N", 2 : i64]}, %y: tensor<?xf32> {aten.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : index
  %0 = aten.slice_scatter %x, %src start %c1 {dim = 1 : i64} : tensor<?x3xf32>, tensor<?x2xf32> -> tensor<?x3xf32>
  %1 = aten.select_scatter %x, %y, %m1 {dim = 1 : i64} : tensor<?x3xf32>, tensor<?xf32> -> tensor<?x3xf32>
  func.return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @slice_scatter(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %src: tensor<?x2xf32> {te.dims = ["N", 2 : i64]}, %y: tensor<?xf32> {te.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
// CHECK-NOT: te.index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %m1 = arith.constant -1 : index
// CHECK-NEXT: [[S:%[0-9]+]] = te.scatter "assign" %x over [%N, [[C2]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[ADDI:%[0-9]+]] = arith.addi [[J]], [[C1]] : index
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %src{{\[}}[[I]], [[J]]] : tensor<?x2xf32> -> f32
// CHECK-NEXT:   te.update {{\[}}[[I]], [[ADDI]]], [[LOAD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[S_2:%[0-9]+]] = te.scatter "assign" %x over [%N] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %y{{\[}}[[I]]] : tensor<?xf32> -> f32
// CHECK-NEXT:   te.update {{\[}}[[I]], [[C2]]], [[LOAD_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[S]], [[S_2]] : tensor<?x3xf32>, tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: te.index
// CHECK-NOT: arith.maxsi
// CHECK-NOT: aten.

// select_scatter into a dim that is not static (x[1] = y, x with N rows; what
// functionalization makes of an in-place row assignment): the target row is a
// te.index of the constant into N, checked at run time like select.int's, its site
// naming the op, the index, the dim, its size and the argument written into.
func.func @select_scatter_checked(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %y: tensor<3xf32> {aten.dims = [3 : i64]}) -> tensor<?x3xf32> {
  %c1 = arith.constant 1 : index
  %0 = aten.select_scatter %x, %y, %c1 {dim = 0 : i64} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @select_scatter_checked(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %y: tensor<3xf32> {te.dims = [3 : i64]}) -> tensor<?x3xf32> attributes {te.index_sites = ["select_scatter: index 1 into dim 0 of size N of argument 'x'"]} {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: [[S:%[0-9]+]] = te.scatter "assign" %x over {{\[}}[[C3]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[K:%[0-9]+]] = arith.constant 1 : i64
// CHECK-NEXT:   [[AT:%[0-9]+]] = te.index [[K]] in %N {site = 1 : i64} : i64
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %y{{\[}}[[I]]] : tensor<3xf32> -> f32
// CHECK-NEXT:   te.update {{\[}}[[AT]], [[I]]], [[LOAD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[S]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// cat: a zero-filled te.compute of the total extent (N + E along dim 0), then one
// assigning te.scatter per piece at its offset (0, then N); along dim -1 the
// extent is static (6) and the second piece lands at column j + 3.
func.func @cat(%N: index, %E: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %y: tensor<?x3xf32> {aten.dims = ["E", 3 : i64]}) -> (tensor<?x3xf32>, tensor<?x6xf32>) {
  %0 = aten.cat [%x, %y] : [tensor<?x3xf32>, tensor<?x3xf32>] -> tensor<?x3xf32>
  %1 = aten.cat [%x, %x] {dim = -1 : i64} : [tensor<?x3xf32>, tensor<?x3xf32>] -> tensor<?x6xf32>
  func.return %0, %1 : tensor<?x3xf32>, tensor<?x6xf32>
}
// CHECK-LABEL: func.func @cat(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %y: tensor<?x3xf32> {te.dims = ["E", 3 : i64]}) -> (tensor<?x3xf32>, tensor<?x6xf32>) {
// CHECK-NEXT: [[C6:%[0-9]+]] = arith.constant 6 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[ADDI:%[0-9]+]] = arith.addi %N, %E : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[ADDI]], [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   te.yield [[CST]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[S:%[0-9]+]] = te.scatter "assign" [[T]] over [%N, [[C3]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.update {{\[}}[[I]], [[J]]], [[LOAD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[S_2:%[0-9]+]] = te.scatter "assign" [[S]] over [%E, [[C3]]] : tensor<?x3xf32> -> tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[ADDI_2:%[0-9]+]] = arith.addi [[I]], %N : index
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %y{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.update {{\[}}[[ADDI_2]], [[J]]], [[LOAD_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[ADDI_3:%[0-9]+]] = arith.addi [[C3]], [[C3]] : index
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C6]]] : tensor<?x6xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[CST_2:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   te.yield [[CST_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[S_3:%[0-9]+]] = te.scatter "assign" [[T_2]] over [%N, [[C3]]] : tensor<?x6xf32> -> tensor<?x6xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.update {{\[}}[[I]], [[J]]], [[LOAD_3]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[S_4:%[0-9]+]] = te.scatter "assign" [[S_3]] over [%N, [[C3]]] : tensor<?x6xf32> -> tensor<?x6xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[ADDI_4:%[0-9]+]] = arith.addi [[J]], [[C3]] : index
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.update {{\[}}[[I]], [[ADDI_4]]], [[LOAD_4]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[S_2]], [[S_4]] : tensor<?x3xf32>, tensor<?x6xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.
// CHECK: {{^}}}
