// RUN: pipeline-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of the aten dialect, one per chunk. With --verify-diagnostics
// pipeline-opt prints the message of the first error of each chunk (then the chunk,
// annotated) and goes on, with a separator line between chunks. Each CHECK-NEXT pins
// the message as the first line printed for its chunk, so a chunk that verifies, or
// that fails for another reason, fails the test. The separator is matched as
// {{^// -{5}$}}: the literal text would split the input there.

// Broadcasting: 3 against 4.
func.func @broadcast_mismatch(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.add.Tensor %a, %b : tensor<3xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: {{^}}shapes 3, 4 do not broadcast

// -----

// The same with a symbolic leading dim: ?x3 against ?x4.
func.func @broadcast_mismatch_dynamic(%a: tensor<?x3xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = aten.mul.Tensor %a, %b : tensor<?x3xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: shapes ?x3, ?x4 do not broadcast

// -----

// clamp_min.Tensor broadcasts its bound as a binary op does: ?x3 against 4.
func.func @clamp_min_broadcast(%a: tensor<?x3xf32>, %b: tensor<4xf32>) -> tensor<?x3xf32> {
  %0 = aten.clamp_min.Tensor %a, %b : tensor<?x3xf32>, tensor<4xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: shapes ?x3, 4 do not broadcast

// -----

// Elementwise result of the wrong shape.
func.func @elementwise_result_shape(%x: tensor<?x3xf32>) -> tensor<?x4xf32> {
  %0 = aten.neg %x : tensor<?x3xf32> -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.neg: result shape ?x4 does not match the inferred shape ?x3

// -----

// Elementwise result of the wrong rank: ?x3 + 3 is ?x3, not 3.
func.func @elementwise_result_rank(%x: tensor<?x3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = aten.sub.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.sub.Tensor: result shape 3 does not match the inferred shape ?x3

// -----

func.func @comparison_not_i1(%x: tensor<?x3xf32>, %y: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = aten.eq.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.eq.Tensor: result must be a tensor of i1

// -----

func.func @comparison_scalar_not_i1(%x: tensor<?x3xf32>) -> tensor<?x3xi64> {
  %c = arith.constant 0.000000e+00 : f64
  %0 = aten.lt.Scalar %x, %c : tensor<?x3xf32>, f64 -> tensor<?x3xi64>
  func.return %0 : tensor<?x3xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.lt.Scalar: result must be a tensor of i1

// -----

func.func @where_condition_not_i1(%c: tensor<?x3xf32>, %x: tensor<?x3xf32>, %y: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = aten.where.self %c, %x, %y : tensor<?x3xf32>, tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.where.self: condition must be a tensor of i1

// -----

func.func @mm_not_matrix(%x: tensor<?x3xf32>, %v: tensor<3xf32>) -> tensor<?xf32> {
  %0 = aten.mm %x, %v : tensor<?x3xf32>, tensor<3xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.mm: operands must be matrices

// -----

func.func @mm_inner_dims(%x: tensor<?x3xf32>, %w: tensor<4x16xf32>) -> tensor<?x16xf32> {
  %0 = aten.mm %x, %w : tensor<?x3xf32>, tensor<4x16xf32> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.mm: inner dims 3, 4 differ

// -----

// Matrix products do not broadcast: an inner dim of 1 does not match 3.
func.func @mm_inner_dim_one(%x: tensor<?x1xf32>, %w: tensor<3x16xf32>) -> tensor<?x16xf32> {
  %0 = aten.mm %x, %w : tensor<?x1xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.mm: inner dims 1, 3 differ

// -----

func.func @addmm_inner_dims(%b: tensor<16xf32>, %x: tensor<?x3xf32>, %w: tensor<1x16xf32>) -> tensor<?x16xf32> {
  %0 = aten.addmm %b, %x, %w : tensor<16xf32>, tensor<?x3xf32>, tensor<1x16xf32> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.addmm: inner dims 3, 1 differ

// -----

func.func @bmm_rank(%a: tensor<?x3xf32>, %b: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  %0 = aten.bmm %a, %b : tensor<?x3xf32>, tensor<?x3x4xf32> -> tensor<?x3x4xf32>
  func.return %0 : tensor<?x3x4xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.bmm: operands must be rank 3

// -----

// bmm does not broadcast its batch dim either.
func.func @bmm_batch_dims(%a: tensor<1x2x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  %0 = aten.bmm %a, %b : tensor<1x2x3xf32>, tensor<4x3x5xf32> -> tensor<4x2x5xf32>
  func.return %0 : tensor<4x2x5xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.bmm: batch dims 1, 4 differ

// -----

func.func @reduction_dim_out_of_range(%x: tensor<?x3xf32>) -> tensor<?xf32> {
  %0 = aten.sum.dim_IntList %x {dim = array<i64: 2>} : tensor<?x3xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.sum.dim_IntList: dim 2 out of range for rank 2

// -----

// keepdim keeps the reduced dim as 1: the result is ?x1, of rank 2.
func.func @keepdim_result_rank(%x: tensor<?x3xf32>) -> tensor<?xf32> {
  %0 = aten.amax %x {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.amax: result shape ? does not match the inferred shape ?x1

// -----

// Without keepdim the reduced dim is dropped.
func.func @no_keepdim_result_rank(%x: tensor<?x3xf32>) -> tensor<1x3xf32> {
  %0 = aten.mean.dim %x {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<1x3xf32>
  func.return %0 : tensor<1x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.mean.dim: result shape 1x3 does not match the inferred shape 3

// -----

func.func @permute_not_permutation(%x: tensor<?x3xf32>) -> tensor<?x?xf32> {
  %0 = aten.permute %x {dims = array<i64: 0, -2>} : tensor<?x3xf32> -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.permute: dims [0, 0] is not a permutation

// -----

// The new dim of unsqueeze goes in [-3, 3) for a rank 2 input (rank 3 output).
func.func @unsqueeze_dim_out_of_range(%x: tensor<?x3xf32>) -> tensor<?x3x1xf32> {
  %0 = aten.unsqueeze %x {dim = 3 : i64} : tensor<?x3xf32> -> tensor<?x3x1xf32>
  func.return %0 : tensor<?x3x1xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.unsqueeze: dim 3 out of range for rank 3

// -----

func.func @select_dim_out_of_range(%x: tensor<?x3xf32>, %i: index) -> tensor<?xf32> {
  %0 = aten.select.int %x, %i {dim = -3 : i64} : tensor<?x3xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.select.int: dim -3 out of range for rank 2

// -----

func.func @select_scatter_dim_out_of_range(%x: tensor<?x3xf32>, %y: tensor<3xf32>, %i: index) -> tensor<?x3xf32> {
  %0 = aten.select_scatter %x, %y, %i {dim = 2 : i64} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.select_scatter: dim 2 out of range for rank 2

// -----

func.func @slice_scatter_dim_out_of_range(%x: tensor<?x3xf32>, %s: tensor<?x3xf32>, %i: index) -> tensor<?x3xf32> {
  %0 = aten.slice_scatter %x, %s start %i {dim = 5 : i64} : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.slice_scatter: dim 5 out of range for rank 2

// -----

// view to rank 2 with a single size.
func.func @view_size_count(%x: tensor<?x3xf32>, %n: index) -> tensor<?x3xf32> {
  %0 = aten.view %x, [%n] : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.view: 1 sizes for a result of rank 2

// -----

func.func @full_size_count(%n: index) -> tensor<?x3xf32> {
  %c = arith.constant 0.000000e+00 : f64
  %0 = aten.full [%n], %c : f64 -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.full: 1 sizes for a result of rank 2

// -----

func.func @expand_lower_rank(%x: tensor<2x?x3xf32>, %n: index) -> tensor<?xf32> {
  %0 = aten.expand %x, [%n] : tensor<2x?x3xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.expand: cannot expand to a lower rank

// -----

// cat does not broadcast the dims it does not concatenate along.
func.func @cat_other_dims(%a: tensor<?x1xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = aten.cat [%a, %b] : [tensor<?x1xf32>, tensor<?x4xf32>] -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.cat: dim 1 sizes 1, 4 differ

// -----

func.func @index_select_float_index(%x: tensor<?x3xf32>, %i: tensor<?xf32>) -> tensor<?x3xf32> {
  %0 = aten.index_select %x, %i {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.index_select: index must be an integer tensor

// -----

func.func @gather_rank(%x: tensor<?x3xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  %0 = aten.gather %x, %i {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.gather: index must have the rank of self

// -----

func.func @embedding_weight_not_matrix(%w: tensor<10xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  %0 = aten.embedding %w, %i : tensor<10xf32>, tensor<?xi64> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.embedding: weight must be a matrix

// -----

func.func @sqrt_integer_result(%x: tensor<?x3xi64>) -> tensor<?x3xi64> {
  %0 = aten.sqrt %x : tensor<?x3xi64> -> tensor<?x3xi64>
  func.return %0 : tensor<?x3xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.sqrt: result must be floating point

// -----

func.func @sym_size_dim_out_of_range(%x: tensor<?x3xf32>) -> index {
  %0 = aten.sym_size.int %x {dim = 2 : i64} : tensor<?x3xf32>
  func.return %0 : index
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.sym_size.int: dim 2 out of range for rank 2

// -----

// Two index tensors but one indexed dim.
func.func @index_indexed_dims_count(%x: tensor<?x3xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  %0 = aten.index.Tensor %x [%i, %i] {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>, tensor<?xi64>] -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.index.Tensor: one indexed dim per index tensor

// -----

// indexed_dims are positions in [0, rank), in increasing order.
func.func @index_negative_indexed_dim(%x: tensor<?x3xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  %0 = aten.index.Tensor %x [%i, %i] {indexed_dims = array<i64: -1, 0>} : tensor<?x3xf32>, [tensor<?xi64>, tensor<?xi64>] -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.index.Tensor: bad indexed_dims [-1, 0]

// -----

func.func @index_put_float_indices(%x: tensor<?x3xf32>, %i: tensor<?xf32>, %v: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = aten.index_put %x [%i], %v {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xf32>], tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.index_put: indices must be integer tensors

// -----

func.func @arange_not_1d(%n: index) -> tensor<?x1xi64> {
  %c = arith.constant 0 : i64
  %0 = aten.arange.start_step %c, %n : i64, index -> tensor<?x1xi64>
  func.return %0 : tensor<?x1xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.arange.start_step: result must be 1-d

// -----

func.func @nonzero_not_i64(%x: tensor<?x3xf32>) -> tensor<?x2xi32> {
  %0 = aten.nonzero %x : tensor<?x3xf32> -> tensor<?x2xi32>
  func.return %0 : tensor<?x2xi32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.nonzero: the result must be a tensor of i64

// -----

func.func @nonzero_rank(%x: tensor<?x3xf32>) -> tensor<?x3xi64> {
  %0 = aten.nonzero %x : tensor<?x3xf32> -> tensor<?x3xi64>
  func.return %0 : tensor<?x3xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.nonzero: result shape ?x3 does not match the inferred shape ?x2

// -----

func.func @scatter_reduce_kind(%x: tensor<?x3xf32>, %i: tensor<?x3xi64>) -> tensor<?x3xf32> {
  %0 = aten.scatter_reduce.two %x, %i, %x {dim = 0 : i64, reduce = "median"} : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.scatter_reduce.two: reduce must be sum, prod, mean, amax or amin

// -----

func.func @diagonal_same_dims(%x: tensor<?x3x3xf32>) -> tensor<?x3xf32> {
  %0 = aten.diagonal %x {dim1 = 1 : i64, dim2 = 1 : i64} : tensor<?x3x3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.diagonal: dim1 and dim2 must differ

// -----

func.func @div_mode(%x: tensor<?x3xf32>, %y: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = aten.div.Tensor_mode %x, %y {rounding_mode = "ceil"} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.div.Tensor_mode: rounding_mode must be trunc or floor

// -----

func.func @split_count(%x: tensor<?x3xf32>, %a: index) -> tensor<?x1xf32> {
  %0 = aten.split_with_sizes %x, [%a, %a] {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x1xf32>
  func.return %0 : tensor<?x1xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.split_with_sizes: one result per split size

// -----

func.func @searchsorted_side(%s: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?xi64> {
  %0 = aten.searchsorted.Tensor %s, %v {side = "middle"} : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.searchsorted.Tensor: side must be left or right

// -----

func.func @searchsorted_opposites(%s: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?xi64> {
  %0 = aten.searchsorted.Tensor %s, %v {side = "left", right = true} : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.searchsorted.Tensor: side and right can't be set to opposites

// -----

func.func @searchsorted_int32(%s: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?xi64> {
  %0 = aten.searchsorted.Tensor %s, %v {out_int32 = true} : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.searchsorted.Tensor: the result must be a tensor of i32

// -----

func.func @searchsorted_leading(%s: tensor<4x?xf32>, %v: tensor<3x?xf32>) -> tensor<3x?xi64> {
  %0 = aten.searchsorted.Tensor %s, %v : tensor<4x?xf32>, tensor<3x?xf32> -> tensor<3x?xi64>
  func.return %0 : tensor<3x?xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.searchsorted.Tensor: leading dims 0 4, 3 differ

// -----

func.func @searchsorted_sorter(%s: tensor<?xf32>, %v: tensor<?xf32>, %k: tensor<?x2xi64>) -> tensor<?xi64> {
  %0 = aten.searchsorted.Tensor %s, %v sorter %k : tensor<?x2xi64> : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.searchsorted.Tensor: sorter must have sorted_sequence's shape

// -----

func.func @searchsorted_scalar_rank(%s: tensor<?x4xf32>, %f: f64) -> tensor<i64> {
  %0 = aten.searchsorted.Scalar %s, %f : tensor<?x4xf32>, f64 -> tensor<i64>
  func.return %0 : tensor<i64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.searchsorted.Scalar: a scalar value needs a 1-d sorted_sequence

// -----

func.func @repeat_interleave_rank(%r: tensor<?x2xi64>) -> tensor<?xi64> {
  %0 = aten.repeat_interleave.Tensor %r : tensor<?x2xi64> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.repeat_interleave.Tensor: repeats must be a 1-d integer tensor

// -----

func.func @repeat_interleave_dtype(%r: tensor<?xi64>) -> tensor<?xi32> {
  %0 = aten.repeat_interleave.Tensor %r : tensor<?xi64> -> tensor<?xi32>
  func.return %0 : tensor<?xi32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: aten.repeat_interleave.Tensor: the result has repeats' element type
