// RUN: pipeline-opt %s --split-input-file -p 'schedule{vector_bits=512}' | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p 'schedule{vector_bits=512}' | filecheck %s --check-prefix=GONE

// schedule: the loop order (te.order, the body's arguments outermost first, set
// only when it is not the argument order) and the parallel loop (te.parallel = the
// smallest chunk of outermost iterations worth a thread: 20000 cost units over the
// body's cost times the static extents of the inner loops) of each te op.
// A te.reduce whose last output dim is static and >= 8, whose reduction is not a
// short static one, and whose loads run along that dim at least as often as along
// a reduction dim accumulates: loops (dynamic output dims, reduction dims, static
// output dims). The outermost loop goes parallel when it is an output dim sized by
// a symbol; a te.scatter instead splits its base along a data-indexed, symbol-sized
// dim (te.partition) among threads, unless iteration i of its outermost loop
// updates row i only (a slice assignment): then that loop goes parallel as well. An accumulating te.reduce whose values along
// its row J are loads along J and float arithmetic keeps register tiles of its
// outputs in vector registers: te.vector = the widest lane count dividing J (here
// for 512-bit registers: 16 x f32), te.tile = [rows, vectors] of one tile, the
// best multiply-adds per load with rows x vectors + vectors + 1 <= 32 registers.

// x @ B (loads along j and along k, once each): e, k, j; tiles of 8 rows x the 32
// outputs of a row in two vectors of 16; e parallel in chunks of
// ceil(20000 / (3 units * 64 * 32)) = 4 rows, one tile.
func.func @x_b(%E: index, %x: tensor<?x64xf32>, %b: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %y = te.reduce "add" [%E, %c32] over [%c64] : tensor<?x32xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x64xf32> -> f32
    %w = te.load %b[%k, %j] : tensor<64x32xf32> -> f32
    %p = arith.mulf %a, %w : f32
    te.yield %p : f32
  }
  func.return %y : tensor<?x32xf32>
}
// CHECK-LABEL: func.func @x_b(
// CHECK:       te.reduce "add" [%E, %c32] over [%c64] {te.order = array<i64: 0, 2, 1>, te.vector = 16 : i64, te.tile = array<i64: 8, 2>, te.parallel = 1 : i64} : tensor<?x32xf32> {

// -----
// A measured choice (`te.tuned`, set by pipeline/tune.py with the order and tile it
// timed) is kept: 4 x 1 tiles of 8 lanes where the heuristic takes 8 x 2 of 16;
// only the parallel loop is chosen, in tiles of 4 rows: ceil(4 / 4) = 1.
func.func @tuned(%E: index, %x: tensor<?x64xf32>, %b: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %y = te.reduce "add" [%E, %c32] over [%c64] {te.order = array<i64: 0, 2, 1>, te.vector = 8 : i64, te.tile = array<i64: 4, 1>, te.tuned} : tensor<?x32xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x64xf32> -> f32
    %w = te.load %b[%k, %j] : tensor<64x32xf32> -> f32
    %p = arith.mulf %a, %w : f32
    te.yield %p : f32
  }
  // A measured "no register tile": the order alone, no te.vector added; chunks of
  // ceil(20000 / (3 units * 64 * 32)) = 4 rows.
  %z = te.reduce "add" [%E, %c32] over [%c64] {te.order = array<i64: 0, 2, 1>, te.tuned} : tensor<?x32xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x64xf32> -> f32
    %w = te.load %b[%k, %j] : tensor<64x32xf32> -> f32
    %p = arith.mulf %a, %w : f32
    te.yield %p : f32
  }
  func.return %y : tensor<?x32xf32>
}
// CHECK-LABEL: func.func @tuned(
// CHECK:       %y = te.reduce "add" [%E, %c32] over [%c64] {te.order = array<i64: 0, 2, 1>, te.vector = 8 : i64, te.tile = array<i64: 4, 1>, te.tuned, te.parallel = 1 : i64}
// CHECK:       %z = te.reduce "add" [%E, %c32] over [%c64] {te.order = array<i64: 0, 2, 1>, te.tuned, te.parallel = 4 : i64}
// GONE-LABEL:  func.func @tuned(
// GONE-NOT:    te.vector = 16
// GONE-NOT:    te.tile = array<i64: 8, 2>
// GONE:        %z = te.reduce
// GONE-NOT:    te.vector
// GONE:        func.return

// -----
// x @ W.T (both loads along k): a dot product per output, in argument order.
func.func @x_wt(%E: index, %x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %y = te.reduce "add" [%E, %c32] over [%c64] : tensor<?x32xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x64xf32> -> f32
    %v = te.load %w[%j, %k] : tensor<32x64xf32> -> f32
    %p = arith.mulf %a, %v : f32
    te.yield %p : f32
  }
  func.return %y : tensor<?x32xf32>
}
// CHECK-LABEL: func.func @x_wt(
// CHECK:       te.reduce "add" [%E, %c32] over [%c64] {te.parallel = 4 : i64} : tensor<?x32xf32> {
// GONE-LABEL:  func.func @x_wt(
// GONE-NOT:    te.order

// -----
// A column sum (16 outputs over E): the reduction over E outside, the 16 columns
// inside, as one vector of 16 sums (a tile of one row: no loop outside the
// reduction); the outermost loop is a reduction, so no thread may take a share.
func.func @column_sum(%E: index, %x: tensor<?x16xf32>) -> tensor<16xf32> {
  %c16 = arith.constant 16 : index
  %s = te.reduce "add" [%c16] over [%E] : tensor<16xf32> {
  ^bb0(%j: index, %e: index):
    %v = te.load %x[%e, %j] : tensor<?x16xf32> -> f32
    te.yield %v : f32
  }
  func.return %s : tensor<16xf32>
}
// CHECK-LABEL: func.func @column_sum(
// CHECK:       te.reduce "add" [%c16] over [%E] {te.order = array<i64: 1, 0>, te.vector = 16 : i64, te.tile = array<i64: 1, 1>} : tensor<16xf32> {
// GONE-LABEL:  func.func @column_sum(
// GONE-NOT:    te.parallel

// -----
// A norm over xyz (a short static reduction) stays a sum per row, on one thread: an
// iteration costs 2 units * 3, and ceil(20000 / 6) = 3334 rows per thread is more
// than MAX_CHUNK = 512 (too light for a parallel loop). A compute over static
// extents only (a transposed weight) stays sequential. The scatter's updates land
// at rows read from data (te.index into N): threads split its base along dim 0
// (te.partition), each scanning at least ceil(20000 / (20 units * 3)) = 334 edges.
func.func @norm(%N: index, %E: index, %x: tensor<?x3xf32>, %w: tensor<20x32xf32>, %dst: tensor<?xi64>) -> (tensor<?xf32>, tensor<32x20xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %c20 = arith.constant 20 : index
  %c32 = arith.constant 32 : index
  %s = te.reduce "add" [%N] over [%c3] : tensor<?xf32> {
  ^bb0(%n: index, %k: index):
    %v = te.load %x[%n, %k] : tensor<?x3xf32> -> f32
    %q = arith.mulf %v, %v : f32
    te.yield %q : f32
  }
  %t = te.compute [%c32, %c20] : tensor<32x20xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %w[%j, %i] : tensor<20x32xf32> -> f32
    te.yield %v : f32
  }
  %a = te.scatter "add" %x over [%E, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%e: index, %j: index):
    %r = te.load %dst[%e] : tensor<?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %x[%n, %j] : tensor<?x3xf32> -> f32
    %m = math.exp %v : f32
    %m2 = math.exp %m : f32
    %p = arith.mulf %m, %m2 : f32
    te.update [%n, %j], %p : f32
  }
  func.return %s, %t, %a : tensor<?xf32>, tensor<32x20xf32>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @norm(
// CHECK:       te.reduce "add" [%N] over [%c3] : tensor<?xf32> {
// CHECK:       te.compute [%c32, %c20] : tensor<32x20xf32> {
// CHECK:       te.scatter "add" %x over [%E, %c3] {te.parallel = 334 : i64, te.partition = 0 : i64} : tensor<?x3xf32> -> tensor<?x3xf32> {
// GONE-LABEL:  func.func @norm(
// GONE-NOT:    te.order

// -----
// A row of 20 outputs: five vectors of 4 lanes (16 and 8 do not divide 20), in
// tiles of 5 rows x 5 vectors (31 registers), chunks of ceil(11 / 5) = 3 tiles. A
// body with an exp along the row is not register-blocked; an exp of x (the same
// for the whole row) is: it is computed once per row and broadcast.
func.func @rows(%E: index, %x: tensor<?x32xf32>, %b: tensor<32x20xf32>) -> (tensor<?x20xf32>, tensor<?x20xf32>, tensor<?x20xf32>) {
  %c20 = arith.constant 20 : index
  %c32 = arith.constant 32 : index
  %y = te.reduce "add" [%E, %c20] over [%c32] : tensor<?x20xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x32xf32> -> f32
    %w = te.load %b[%k, %j] : tensor<32x20xf32> -> f32
    %p = arith.mulf %a, %w : f32
    te.yield %p : f32
  }
  %z = te.reduce "add" [%E, %c20] over [%c32] : tensor<?x20xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x32xf32> -> f32
    %w = te.load %b[%k, %j] : tensor<32x20xf32> -> f32
    %x2 = math.exp %w : f32
    %p = arith.mulf %a, %x2 : f32
    te.yield %p : f32
  }
  %u = te.reduce "add" [%E, %c20] over [%c32] : tensor<?x20xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x32xf32> -> f32
    %x2 = math.exp %a : f32
    %w = te.load %b[%k, %j] : tensor<32x20xf32> -> f32
    %p = arith.mulf %x2, %w : f32
    te.yield %p : f32
  }
  func.return %y, %z, %u : tensor<?x20xf32>, tensor<?x20xf32>, tensor<?x20xf32>
}
// CHECK-LABEL: func.func @rows(
// CHECK:       %y = te.reduce "add" [%E, %c20] over [%c32] {te.order = array<i64: 0, 2, 1>, te.vector = 4 : i64, te.tile = array<i64: 5, 5>, te.parallel = 3 : i64} : tensor<?x20xf32> {
// CHECK:       %z = te.reduce "add" [%E, %c20] over [%c32] {te.order = array<i64: 0, 2, 1>, te.parallel = 3 : i64} : tensor<?x20xf32> {
// CHECK:       %u = te.reduce "add" [%E, %c20] over [%c32] {te.order = array<i64: 0, 2, 1>, te.vector = 4 : i64, te.tile = array<i64: 5, 5>, te.parallel = 1 : i64} : tensor<?x20xf32> {
// GONE-LABEL: func.func @rows(

// -----
// A slice assignment (concatenation: out[e, j + 32] = x[e, j] * y[e]) updates row e
// at iteration e only: the loop over e goes parallel with no te.partition, in chunks
// of ceil(20000 / (4 units: two loads, a multiply, an add * 96)) = 53 rows. A scatter whose rows at iteration e are
// other rows (out[e + 1, j], the outermost loop not the row) stays sequential.
func.func @slice_assign(%E: index, %base: tensor<?x128xf64>, %x: tensor<?x96xf64>, %y: tensor<?xf64>) -> (tensor<?x128xf64>, tensor<?x128xf64>) {
  %c96 = arith.constant 96 : index
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %a = te.scatter "assign" %base over [%E, %c96] : tensor<?x128xf64> -> tensor<?x128xf64> {
  ^bb0(%e: index, %j: index):
    %v = te.load %x[%e, %j] : tensor<?x96xf64> -> f64
    %w = te.load %y[%e] : tensor<?xf64> -> f64
    %p = arith.mulf %v, %w : f64
    %col = arith.addi %j, %c32 : index
    te.update [%e, %col], %p : f64
  }
  %b = te.scatter "assign" %base over [%E, %c96] : tensor<?x128xf64> -> tensor<?x128xf64> {
  ^bb0(%e: index, %j: index):
    %v = te.load %x[%e, %j] : tensor<?x96xf64> -> f64
    %row = arith.addi %e, %c1 : index
    te.update [%row, %j], %v : f64
  }
  func.return %a, %b : tensor<?x128xf64>, tensor<?x128xf64>
}
// CHECK-LABEL: func.func @slice_assign(
// CHECK:       te.scatter "assign" %base over [%E, %c96] {te.parallel = 53 : i64} : tensor<?x128xf64> -> tensor<?x128xf64> {
// CHECK:       te.scatter "assign" %base over [%E, %c96] : tensor<?x128xf64> -> tensor<?x128xf64> {
// GONE-LABEL:  func.func @slice_assign(
// GONE-NOT:    te.partition
