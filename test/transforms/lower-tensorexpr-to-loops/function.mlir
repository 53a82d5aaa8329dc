// RUN: pipeline-opt %s -p lower-tensorexpr-to-loops | filecheck %s

// lower-tensorexpr-to-loops: each te op becomes a loop nest over a flat buffer.
// The function takes the size symbols and inputs (in their order, tensors now flat
// memref<?xT> keeping te.dims), then one buffer per te.weight (loops.weight), one
// per result (loops.output, te.dims of the result kept), the status buffer
// (loops.status, memref<?xi32>) and the thread count (loops.num_threads), and
// returns nothing. A te.compute / te.reduce is an scf.for nest over its extents
// storing at the row-major linear index ((i * e1) + j); a te.reduce carries its
// accumulator in iter_args from the kind's identity; a te.scatter copies its base,
// then loads, combines and stores at the te.update's linear index. Each op of a
// body is emitted in the outermost loop where its operands exist (the index check
// of a scatter runs once per edge, outside the loop over xyz). Constants are made
// once per value, at the top of the function, and index arithmetic on constants is
// folded (x + 0, x * 1, 2 * 3), as canonicalize would leave them. A te.index is an index_cast, (with wrap) a select of i + extent for i < 0,
// one unsigned compare against the extent, and in an scf.if the store of its site
// into status[0]; an index into N under a loop over E is tested once, at the entry
// (%empty_index: N = 0 while E > 0, no row to clamp to): the loops over E run to
// %E_run (0 then) and the function ends storing the site (see
// index-checks.mlir). A returned te result is computed straight into its output
// buffer; a returned argument or weight is copied; every other tensor is a
// memref.alloc, deallocated at the end. No te op is left.

// CHECK: builtin.module {
// CHECK-NOT: {{(= |^ *)te\.}}

// exp(x) into a temporary (alloc N * 3), a matmul with a weight into %out0, an
// index_add-like scatter of x rows into a copy of exp(x) written into %out1, and
// the argument x itself returned (copied into %out2).
func.func @f(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}) -> (tensor<?x16xf32> {te.dims = ["N", 16 : i64]}, tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, tensor<?x3xf32>) attributes {te.index_sites = ["index_add along dim 0 (index data from argument 'ei')"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %w = te.weight "layers.0.weight" : tensor<3x16xf32>
  %y = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x3xf32> -> f32
    %e = math.exp %v : f32
    te.yield %e : f32
  }
  %mm = te.reduce "add" [%N, %c16] over [%c3] : tensor<?x16xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %a = te.load %y[%i, %k] : tensor<?x3xf32> -> f32
    %b = te.load %w[%k, %j] : tensor<3x16xf32> -> f32
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  %s = te.scatter "add" %y over [%E, %c3] : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%e: index, %j: index):
    %r = te.load %ei[%c0, %e] : tensor<2x?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64, wrap} : i64
    %v = te.load %x[%e, %j] : tensor<?x3xf32> -> f32
    te.update [%n, %j], %v : f32
  }
  func.return %mm, %s, %x : tensor<?x16xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @f(%N: index, %E: index, %x: memref<?xf32> {te.dims = ["N", 3 : i64]}, %ei: memref<?xi64> {te.dims = [2 : i64, "E"]}, %w_layers_0_weight: memref<?xf32> {loops.weight = "layers.0.weight"}, %out0: memref<?xf32> {te.dims = ["N", 16 : i64], loops.output = 0 : i64}, %out1: memref<?xf32> {te.dims = ["N", 3 : i64], loops.output = 1 : i64}, %out2: memref<?xf32> {loops.output = 2 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) attributes {te.index_sites = ["index_add along dim 0 (index data from argument 'ei')"]} {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %N_empty = arith.cmpi eq, %N, %c0 : index
// CHECK-NEXT: %E_nonzero = arith.cmpi ne, %E, %c0 : index
// CHECK-NEXT: %empty_index = arith.andi %N_empty, %E_nonzero : i1
// CHECK-NEXT: %E_run = arith.select %empty_index, %c0, %E : index
// CHECK-NEXT: [[MULI:%[0-9]+]] = arith.muli %N, %c3 : index
// CHECK-NEXT: [[ALLOC:%[0-9]+]] = memref.alloc([[MULI]]) : memref<?xf32>
// CHECK-NEXT: scf.for [[IV:%[0-9]+]] = %c0 to %N step [[C1]] {
// CHECK-NEXT:   scf.for [[IV_2:%[0-9]+]] = %c0 to %c3 step [[C1]] {
// CHECK-NEXT:     [[MULI_2:%[0-9]+]] = arith.muli [[IV]], %c3 : index
// CHECK-NEXT:     [[ADDI:%[0-9]+]] = arith.addi [[MULI_2]], [[IV_2]] : index
// CHECK-NEXT:     [[LOAD:%[0-9]+]] = memref.load %x{{\[}}[[ADDI]]] : memref<?xf32>
// CHECK-NEXT:     %e = math.exp [[LOAD]] : f32
// CHECK-NEXT:     memref.store %e, [[ALLOC]]{{\[}}[[ADDI]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[IV_3:%[0-9]+]] = %c0 to %N step [[C1]] {
// CHECK-NEXT:   scf.for [[IV_4:%[0-9]+]] = %c0 to %c16 step [[C1]] {
// CHECK-NEXT:     [[FOR:%[0-9]+]] = scf.for [[IV_5:%[0-9]+]] = %c0 to %c3 step [[C1]] iter_args([[ACC:%[0-9]+]] = [[CST]]) -> (f32) {
// CHECK-NEXT:       [[MULI_3:%[0-9]+]] = arith.muli [[IV_3]], %c3 : index
// CHECK-NEXT:       [[ADDI_2:%[0-9]+]] = arith.addi [[MULI_3]], [[IV_5]] : index
// CHECK-NEXT:       [[LOAD_2:%[0-9]+]] = memref.load [[ALLOC]]{{\[}}[[ADDI_2]]] : memref<?xf32>
// CHECK-NEXT:       [[MULI_4:%[0-9]+]] = arith.muli [[IV_5]], %c16 : index
// CHECK-NEXT:       [[ADDI_3:%[0-9]+]] = arith.addi [[MULI_4]], [[IV_4]] : index
// CHECK-NEXT:       [[LOAD_3:%[0-9]+]] = memref.load %w_layers_0_weight{{\[}}[[ADDI_3]]] : memref<?xf32>
// CHECK-NEXT:       %p = arith.mulf [[LOAD_2]], [[LOAD_3]] : f32
// CHECK-NEXT:       [[ADDF:%[0-9]+]] = arith.addf [[ACC]], %p fastmath<reassoc,contract> : f32
// CHECK-NEXT:       scf.yield [[ADDF]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     [[MULI_5:%[0-9]+]] = arith.muli [[IV_3]], %c16 : index
// CHECK-NEXT:     [[ADDI_4:%[0-9]+]] = arith.addi [[MULI_5]], [[IV_4]] : index
// CHECK-NEXT:     memref.store [[FOR]], %out0{{\[}}[[ADDI_4]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[IV_6:%[0-9]+]] = %c0 to [[MULI]] step [[C1]] {
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = memref.load [[ALLOC]]{{\[}}[[IV_6]]] : memref<?xf32>
// CHECK-NEXT:   memref.store [[LOAD_4]], %out1{{\[}}[[IV_6]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[IV_7:%[0-9]+]] = %c0 to %E_run step [[C1]] {
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = memref.load %ei{{\[}}[[IV_7]]] : memref<?xi64>
// CHECK-NEXT:   [[INDEX_CAST:%[0-9]+]] = arith.index_cast [[LOAD_5]] : i64 to index
// CHECK-NEXT:   [[CMPI:%[0-9]+]] = arith.cmpi slt, [[INDEX_CAST]], %c0 : index
// CHECK-NEXT:   [[ADDI_5:%[0-9]+]] = arith.addi [[INDEX_CAST]], %N : index
// CHECK-NEXT:   [[SELECT:%[0-9]+]] = arith.select [[CMPI]], [[ADDI_5]], [[INDEX_CAST]] : index
// CHECK-NEXT:   [[CMPI_2:%[0-9]+]] = arith.cmpi uge, [[SELECT]], %N : index
// CHECK-NEXT:   scf.if [[CMPI_2]] {
// CHECK-NEXT:     [[CST_2:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:     [[OLD2:%.*]] = memref.load %status[%c0] : memref<?xi32>
// CHECK-NEXT:     [[ZERO2:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:     [[CLEAN2:%.*]] = arith.cmpi eq, [[OLD2]], [[ZERO2]] : i32
// CHECK-NEXT:     [[NEW2:%.*]] = arith.select [[CLEAN2]], [[CST_2]], [[OLD2]] : i32
// CHECK-NEXT:     memref.store [[NEW2]], %status[%c0] : memref<?xi32>
// CHECK-NEXT:   }
// CHECK-NEXT:   [[SELECT_2:%[0-9]+]] = arith.select [[CMPI_2]], %c0, [[SELECT]] : index
// CHECK-NEXT:   scf.for [[IV_8:%[0-9]+]] = %c0 to %c3 step [[C1]] {
// CHECK-NEXT:     [[MULI_6:%[0-9]+]] = arith.muli [[IV_7]], %c3 : index
// CHECK-NEXT:     [[ADDI_6:%[0-9]+]] = arith.addi [[MULI_6]], [[IV_8]] : index
// CHECK-NEXT:     [[LOAD_6:%[0-9]+]] = memref.load %x{{\[}}[[ADDI_6]]] : memref<?xf32>
// CHECK-NEXT:     [[MULI_7:%[0-9]+]] = arith.muli [[SELECT_2]], %c3 : index
// CHECK-NEXT:     [[ADDI_7:%[0-9]+]] = arith.addi [[MULI_7]], [[IV_8]] : index
// CHECK-NEXT:     [[LOAD_7:%[0-9]+]] = memref.load %out1{{\[}}[[ADDI_7]]] : memref<?xf32>
// CHECK-NEXT:     [[ADDF_2:%[0-9]+]] = arith.addf [[LOAD_7]], [[LOAD_6]] : f32
// CHECK-NEXT:     memref.store [[ADDF_2]], %out1{{\[}}[[ADDI_7]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[IV_9:%[0-9]+]] = %c0 to [[MULI]] step [[C1]] {
// CHECK-NEXT:   [[LOAD_8:%[0-9]+]] = memref.load %x{{\[}}[[IV_9]]] : memref<?xf32>
// CHECK-NEXT:   memref.store [[LOAD_8]], %out2{{\[}}[[IV_9]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %empty_index {
// CHECK-NEXT:   [[SITE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:   [[OLD3:%.*]] = memref.load %status[%c0] : memref<?xi32>
// CHECK-NEXT:   [[ZERO3:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:   [[CLEAN3:%.*]] = arith.cmpi eq, [[OLD3]], [[ZERO3]] : i32
// CHECK-NEXT:   [[NEW3:%.*]] = arith.select [[CLEAN3]], [[SITE]], [[OLD3]] : i32
// CHECK-NEXT:   memref.store [[NEW3]], %status[%c0] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc [[ALLOC]] : memref<?xf32>
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NOT: {{(= |^ *)te\.}}

// Reductions of each kind start from its identity: max of f32 from -inf (into a
// rank-0 output, stored at index 0), mul of f32 from 1, min of i64 from INT64_MAX;
// a function-level index computation (N * 3) is kept and used as an extent; a
// te.index without wrap has no select, and into N * 3 under a loop over N no test
// at the entry (N * 3 is not 0 when that loop runs); a te.scatter "assign" stores without
// loading, into its base's constant fill written straight into the output (no
// buffer of zeros copied); a returned weight is copied.
func.func @g(%N: index, %i: tensor<?xi64> {te.dims = ["N"]}) -> (tensor<f32>, tensor<3xf32>, tensor<i64>, tensor<?xf32>, tensor<16xf32>) attributes {te.index_sites = ["index_put along dim 0 (index data from argument 'i')"]} {
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %n3 = arith.muli %N, %c3 : index
  %w = te.weight "b" : tensor<16xf32>
  %max = te.reduce "max" [] over [%c16] : tensor<f32> {
  ^bb0(%k: index):
    %v = te.load %w[%k] : tensor<16xf32> -> f32
    te.yield %v : f32
  }
  %mul = te.reduce "mul" [%c3] over [%c16] : tensor<3xf32> {
  ^bb0(%j: index, %k: index):
    %v = te.load %w[%k] : tensor<16xf32> -> f32
    te.yield %v : f32
  }
  %min = te.reduce "min" [] over [%N] : tensor<i64> {
  ^bb0(%k: index):
    %v = te.load %i[%k] : tensor<?xi64> -> i64
    te.yield %v : i64
  }
  %z = te.compute [%n3] : tensor<?xf32> {
  ^bb0(%k: index):
    %zero = arith.constant 0.000000e+00 : f32
    te.yield %zero : f32
  }
  %set = te.scatter "assign" %z over [%N] : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%k: index):
    %r = te.load %i[%k] : tensor<?xi64> -> i64
    %t = te.index %r in %n3 {site = 1 : i64} : i64
    %one = arith.constant 1.000000e+00 : f32
    te.update [%t], %one : f32
  }
  func.return %max, %mul, %min, %set, %w : tensor<f32>, tensor<3xf32>, tensor<i64>, tensor<?xf32>, tensor<16xf32>
}
// CHECK-LABEL: func.func @g(%N: index, %i: memref<?xi64> {te.dims = ["N"]}, %w_b: memref<?xf32> {loops.weight = "b"}, %out0: memref<?xf32> {loops.output = 0 : i64}, %out1: memref<?xf32> {loops.output = 1 : i64}, %out2: memref<?xi64> {loops.output = 2 : i64}, %out3: memref<?xf32> {loops.output = 3 : i64}, %out4: memref<?xf32> {loops.output = 4 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) attributes {te.index_sites = ["index_put along dim 0 (index data from argument 'i')"]} {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: [[CST:%[0-9]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT: %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: [[CST_2:%[0-9]+]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %n3 = arith.muli %N, %c3 : index
// CHECK-NEXT: [[FOR:%[0-9]+]] = scf.for [[IV:%[0-9]+]] = [[C0]] to %c16 step [[C1]] iter_args([[ACC:%[0-9]+]] = [[CST]]) -> (f32) {
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = memref.load %w_b{{\[}}[[IV]]] : memref<?xf32>
// CHECK-NEXT:   [[MAXIMUMF:%[0-9]+]] = arith.maximumf [[ACC]], [[LOAD]] : f32
// CHECK-NEXT:   scf.yield [[MAXIMUMF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store [[FOR]], %out0{{\[}}[[C0]]] : memref<?xf32>
// CHECK-NEXT: scf.for [[IV_2:%[0-9]+]] = [[C0]] to %c3 step [[C1]] {
// CHECK-NEXT:   [[FOR_2:%[0-9]+]] = scf.for [[IV_3:%[0-9]+]] = [[C0]] to %c16 step [[C1]] iter_args([[ACC_2:%[0-9]+]] = %one) -> (f32) {
// CHECK-NEXT:     [[LOAD_2:%[0-9]+]] = memref.load %w_b{{\[}}[[IV_3]]] : memref<?xf32>
// CHECK-NEXT:     [[MULF:%[0-9]+]] = arith.mulf [[ACC_2]], [[LOAD_2]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:     scf.yield [[MULF]] : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   memref.store [[FOR_2]], %out1{{\[}}[[IV_2]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: [[FOR_3:%[0-9]+]] = scf.for [[IV_4:%[0-9]+]] = [[C0]] to %N step [[C1]] iter_args([[ACC_3:%[0-9]+]] = [[CST_2]]) -> (i64) {
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = memref.load %i{{\[}}[[IV_4]]] : memref<?xi64>
// CHECK-NEXT:   [[MINSI:%[0-9]+]] = arith.minsi [[ACC_3]], [[LOAD_3]] : i64
// CHECK-NEXT:   scf.yield [[MINSI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: memref.store [[FOR_3]], %out2{{\[}}[[C0]]] : memref<?xi64>
// CHECK-NEXT: scf.for [[IV_5:%[0-9]+]] = [[C0]] to %n3 step [[C1]] {
// CHECK-NEXT:   memref.store %zero, %out3{{\[}}[[IV_5]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[IV_6:%[0-9]+]] = [[C0]] to %N step [[C1]] {
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = memref.load %i{{\[}}[[IV_6]]] : memref<?xi64>
// CHECK-NEXT:   [[INDEX_CAST:%[0-9]+]] = arith.index_cast [[LOAD_4]] : i64 to index
// CHECK-NEXT:   [[CMPI:%[0-9]+]] = arith.cmpi uge, [[INDEX_CAST]], %n3 : index
// CHECK-NEXT:   scf.if [[CMPI]] {
// CHECK-NEXT:     [[CST_3:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:     [[OLD4:%.*]] = memref.load %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:     [[ZERO4:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:     [[CLEAN4:%.*]] = arith.cmpi eq, [[OLD4]], [[ZERO4]] : i32
// CHECK-NEXT:     [[NEW4:%.*]] = arith.select [[CLEAN4]], [[CST_3]], [[OLD4]] : i32
// CHECK-NEXT:     memref.store [[NEW4]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:   }
// CHECK-NEXT:   [[SELECT:%[0-9]+]] = arith.select [[CMPI]], [[C0]], [[INDEX_CAST]] : index
// CHECK-NEXT:   memref.store %one, %out3{{\[}}[[SELECT]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[IV_7:%[0-9]+]] = [[C0]] to %c16 step [[C1]] {
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = memref.load %w_b{{\[}}[[IV_7]]] : memref<?xf32>
// CHECK-NEXT:   memref.store [[LOAD_5]], %out4{{\[}}[[IV_7]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NOT: {{(= |^ *)te\.}}
