// RUN: pipeline-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of the te dialect, one per chunk. With --verify-diagnostics
// pipeline-opt prints the message of the first error of each chunk, then the chunk
// in generic form with the failing op annotated, and goes on, with a separator line
// between chunks. Each chunk pins (1) the message as the first line printed for its
// chunk (CHECK-NEXT after the separator), so a chunk that verifies, or that fails for
// another reason, fails the test, and (2) where te's own verifier is at fault, the op
// the annotation is attached to. The separator is matched as {{^// -{5}$}}: the
// literal text would split the input there.

// te.compute: one extent per dim of the result; here 1 for rank 2.
func.func @compute_extents(%N: index) -> tensor<?x3xf32> {
  %0 = te.compute [%N] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %c = arith.constant 0.000000e+00 : f32
    te.yield %c : f32
  }
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^}}te.compute: 1 extents for rank 2
// CHECK: %0 = "te.compute"(%N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.compute: 1 extents for rank 2

// -----

// te.compute: the body takes one index per dim; here 1 for rank 2.
func.func @compute_body_args(%N: index) -> tensor<?x3xf32> {
  %c3 = arith.constant 3 : index
  %0 = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index):
    %c = arith.constant 0.000000e+00 : f32
    te.yield %c : f32
  }
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.compute: body must take 2 index arguments (one per dim)
// CHECK: %0 = "te.compute"(%N, %c3)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body must take 2 index arguments (one per dim)

// -----

// te.compute: the body arguments are index, not i64.
func.func @compute_body_arg_type(%N: index) -> tensor<?xf32> {
  %0 = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: i64):
    %c = arith.constant 0.000000e+00 : f32
    te.yield %c : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.compute: body must take 1 index arguments (one per dim)
// CHECK: %0 = "te.compute"(%N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body must take 1 index arguments (one per dim)

// -----

// te.compute: the body yields the element type (f32), not f64.
func.func @compute_yield_type(%N: index) -> tensor<?xf32> {
  %0 = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %c = arith.constant 0.000000e+00 : f64
    te.yield %c : f64
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.compute: body yields f64, the element type is f32
// CHECK: %0 = "te.compute"(%N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body yields f64, the element type is f32

// -----

// te.compute: a body without a terminator (caught by xDSL's single-block check).
func.func @compute_no_yield(%N: index) -> tensor<?xf32> {
  %0 = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %c = arith.constant 0.000000e+00 : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: Operation arith.constant terminates block in single-block region but is not a terminator

// -----

// te.compute: a body ending with another terminator (te.update) instead of te.yield.
func.func @compute_ends_with_update(%N: index) -> tensor<?xf32> {
  %0 = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %c = arith.constant 0.000000e+00 : f32
    te.update [%i], %c : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.compute: body must end with te.yield
// CHECK: %0 = "te.compute"(%N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body must end with te.yield

// -----

// te.reduce: kind is add, mul, max or min; "sum" is not one.
func.func @reduce_kind(%N: index, %x: tensor<?xf32>) -> tensor<f32> {
  %0 = te.reduce "sum" [] over [%N] : tensor<f32> {
  ^bb0(%r: index):
    %v = te.load %x[%r] : tensor<?xf32> -> f32
    te.yield %v : f32
  }
  func.return %0 : tensor<f32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.reduce: kind must be one of add, mul, max, min
// CHECK: %0 = "te.reduce"(%N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.reduce: kind must be one of add, mul, max, min

// -----

// te.reduce: output extents are one per dim of the result (rank 0 here).
func.func @reduce_extents(%N: index, %x: tensor<?xf32>) -> tensor<f32> {
  %0 = te.reduce "add" [%N] over [%N] : tensor<f32> {
  ^bb0(%i: index, %r: index):
    %v = te.load %x[%r] : tensor<?xf32> -> f32
    te.yield %v : f32
  }
  func.return %0 : tensor<f32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.reduce: 1 extents for rank 0
// CHECK: %0 = "te.reduce"(%N, %N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.reduce: 1 extents for rank 0

// -----

// te.reduce: the body takes the output dims then the reduction dims; here the
// reduction index is missing.
func.func @reduce_body_args(%N: index, %x: tensor<?x3xf32>) -> tensor<?xf32> {
  %c3 = arith.constant 3 : index
  %0 = te.reduce "add" [%N] over [%c3] : tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i, %i] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.reduce: body must take 2 index arguments (output dims, then reduction dims)
// CHECK: %0 = "te.reduce"(%N, %c3)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.reduce: body must take 2 index arguments (output dims, then reduction dims)

// -----

// te.reduce: the body yields the element type of the result (f64), not f32.
func.func @reduce_yield_type(%N: index, %x: tensor<?xf32>) -> tensor<f64> {
  %0 = te.reduce "max" [] over [%N] : tensor<f64> {
  ^bb0(%r: index):
    %v = te.load %x[%r] : tensor<?xf32> -> f32
    te.yield %v : f32
  }
  func.return %0 : tensor<f64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.reduce: body yields f32, the element type is f64
// CHECK: %0 = "te.reduce"(%N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.reduce: body yields f32, the element type is f64

// -----

// te.scatter: kind is add, mul, max, min or assign; "xor" is not one.
func.func @scatter_kind(%N: index, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = te.scatter "xor" %x over [%N] : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    te.update [%i], %v : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.scatter: kind must be one of add, mul, max, min, assign
// CHECK: %0 = "te.scatter"(%x, %N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.scatter: kind must be one of add, mul, max, min, assign

// -----

// te.scatter: the result has the type of the base.
func.func @scatter_result_type(%N: index, %x: tensor<?xf32>) -> tensor<?xf64> {
  %0 = te.scatter "add" %x over [%N] : tensor<?xf32> -> tensor<?xf64> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    te.update [%i], %v : f32
  }
  func.return %0 : tensor<?xf64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.scatter: result type must be the base type
// CHECK: %0 = "te.scatter"(%x, %N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.scatter: result type must be the base type

// -----

// te.scatter: the body takes one index per dim of the update space (2 here).
func.func @scatter_body_args(%N: index, %E: index, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = te.scatter "add" %x over [%N, %E] : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    te.update [%i], %v : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.scatter: body must take 2 index arguments (one per dim of the update space)
// CHECK: %0 = "te.scatter"(%x, %N, %E)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.scatter: body must take 2 index arguments (one per dim of the update space)

// -----

// te.scatter: the body ends with te.update, not te.yield.
func.func @scatter_ends_with_yield(%N: index, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = te.scatter "add" %x over [%N] : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    te.yield %v : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.scatter: body must end with te.update
// CHECK: %0 = "te.scatter"(%x, %N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.scatter: body must end with te.update

// -----

// te.update: one index per dim of the base (2 here), whatever the update space.
func.func @update_index_count(%N: index, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = te.scatter "assign" %x over [%N] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i, %i] : tensor<?x3xf32> -> f32
    te.update [%i], %v : f32
  }
  func.return %0 : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.scatter: te.update needs 2 indices
// CHECK: %0 = "te.scatter"(%x, %N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.scatter: te.update needs 2 indices

// -----

// te.update: the value has the element type of the base (f32), not i32.
func.func @update_value_type(%N: index, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = te.scatter "assign" %x over [%N] : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%i: index):
    %v = arith.constant 1 : i32
    te.update [%i], %v : i32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.scatter: te.update value must be f32
// CHECK: %0 = "te.scatter"(%x, %N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.scatter: te.update value must be f32

// -----

// te.update: the terminator of its block, not followed by anything.
func.func @update_not_last(%N: index, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = te.scatter "add" %x over [%N] : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    te.update [%i], %v : f32
    te.update [%i], %v : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: 'te.update' must be the last operation in its parent block

// -----

// te.load: one index per dim of the tensor (2 here).
func.func @load_index_count(%N: index, %x: tensor<?x3xf32>) -> tensor<?xf32> {
  %0 = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?x3xf32> -> f32
    te.yield %v : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.load: 1 indices for rank 2
// CHECK: %v = "te.load"(%x, %i)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.load: 1 indices for rank 2

// -----

// te.load: the result is the element type (f32); a load does not convert.
func.func @load_result_type(%N: index, %x: tensor<?xf32>) -> tensor<?xf64> {
  %0 = te.compute [%N] : tensor<?xf64> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f64
    te.yield %v : f64
  }
  func.return %0 : tensor<?xf64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.load: result must be the element type f32
// CHECK: %v = "te.load"(%x, %i)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: te.load: result must be the element type f32

// -----

// te.load: indices are index values (generic form: the custom one cannot even
// spell an i64 index).
func.func @load_index_type(%N: index, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %c = arith.constant 0 : i64
    %v = "te.load"(%x, %c) : (tensor<?xf32>, i64) -> f32
    te.yield %v : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: operand 'indices' at position 1 does not verify:
// CHECK-NEXT: i64 should be of base attribute index
// CHECK: %v = "te.load"(%x, %c)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: operand 'indices' at position 1 does not verify:
// CHECK-NEXT: | i64 should be of base attribute index

// -----

// te.index: the value is an integer read from data, not a float (generic form: the
// custom one rejects the type while parsing).
func.func @index_of_float(%N: index, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = te.compute [%N] : tensor<?xf32> {
  ^bb0(%i: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    %k = "te.index"(%v, %N) <{site = 1 : i64}> : (f32, index) -> index
    %w = te.load %x[%k] : tensor<?xf32> -> f32
    te.yield %w : f32
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: operand 'value' at position 0 does not verify:
// CHECK-NEXT: f32 should be of base attribute integer_type
// CHECK: %k = "te.index"(%v, %N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: operand 'value' at position 0 does not verify:
// CHECK-NEXT: | f32 should be of base attribute integer_type

// -----

// te.index: the site (what a run-time range error reports) is required.
func.func @index_without_site(%N: index, %g: tensor<?xi64>) -> tensor<?xi64> {
  %0 = te.compute [%N] : tensor<?xi64> {
  ^bb0(%i: index):
    %v = te.load %g[%i] : tensor<?xi64> -> i64
    %k = te.index %v in %N : i64
    %w = te.load %g[%k] : tensor<?xi64> -> i64
    te.yield %w : i64
  }
  func.return %0 : tensor<?xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: property 'site' expected in operation 'te.index'
// CHECK: %k = "te.index"(%v, %N)
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: property 'site' expected in operation 'te.index'

// -----

// te.weight: a weight is a tensor (generic form, as above).
func.func @weight_not_tensor() -> f32 {
  %w = "te.weight"() <{weight_name = "w"}> : () -> f32
  func.return %w : f32
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: result 'result' at position 0 does not verify:
// CHECK-NEXT: f32 should be of base attribute tensor
// CHECK: %w = "te.weight"()
// CHECK-NEXT: {{\^+-+$}}
// CHECK-NEXT: | Operation does not verify: result 'result' at position 0 does not verify:
// CHECK-NEXT: | f32 should be of base attribute tensor

// -----

// te.compute: a constant extent must agree with the static dim it sizes.
func.func @extent_contradicts_type(%N: index) -> tensor<?x3xf32> {
  %c4 = arith.constant 4 : index
  %y = te.compute [%N, %c4] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %z = arith.constant 0.0 : f32
    te.yield %z : f32
  }
  func.return %y : tensor<?x3xf32>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.compute: extent 4 of dim 1 contradicts the static size 3 of tensor<?x3xf32>

// -----

// te.index: site 0 is the status of success, so a check site counts from 1.
func.func @site_zero(%N: index, %v: i64) -> index {
  %k = te.index %v in %N {site = 0 : i64} : i64
  func.return %k : index
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.index: site must be >= 1 (0 means no error)

// -----

// te.compact: the flags are one-dimensional.
func.func @compact_rank(%N: index, %m: tensor<?x3xi1>) -> tensor<?xi64> {
  %p, %c = te.compact %m over %N : tensor<?x3xi1> -> tensor<?xi64>
  func.return %p : tensor<?xi64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.compact: flags must be a 1-d integer (or i1) tensor

// -----

// te.check: the condition is one value.
func.func @check_rank(%ok: tensor<3xi1>) {
  te.check %ok {site = 1 : i64} : tensor<3xi1>
  func.return
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.check: the condition must be a 0-d integer (or i1) tensor

// -----

// te.scan: the dim is one of the input's.
func.func @scan_dim(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %s = te.scan "add" %x {dim = 2 : i64} : tensor<?x3xf64> -> tensor<?x3xf64>
  func.return %s : tensor<?x3xf64>
}
// CHECK: {{^// -{5}$}}
// CHECK-NEXT: te.scan: dim 2 out of range for rank 2
