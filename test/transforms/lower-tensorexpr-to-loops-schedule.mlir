// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s --check-prefix=GONE

// lower-tensorexpr-to-loops, the schedule of a te.reduce (_accumulating_dims,
// lower_reduce_accumulating). By default the reduction loops are innermost and
// carry the accumulator in scf.for iter_args (a dot product, its addf marked
// fastmath<reassoc,contract>). When the last output dim is static and at least 8
// long, the reduction is not a short static one, and the body's loads run along
// the last output dim at least as often as along a reduction dim, the static output
// dims go inside the reduction loops instead: the output is first set to the
// identity, then loops (dynamic output dims, reduction dims, static output dims)
// load-combine-store into it, the innermost loop running along contiguous output
// elements (the i-k-j order of a matmul; it vectorizes).
//
// The CHECK lines pin the output whole; the GONE lines check, over each whole
// function, what the other schedule would have produced.

// x @ B: x[e, k] * b[k, j], output E x 32, over a static 64. Loads run along j (b)
// as often as along k (x): accumulating, loops (e, k, j) with j innermost.
func.func @x_b(%E: index, %x: tensor<?x64xf32> {te.dims = ["E", 64 : i64]}, %b: tensor<64x32xf32>) -> tensor<?x32xf32> {
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
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @x_b(%E: index, %x: memref<?xf32> {te.dims = ["E", 64 : i64]}, %b: memref<?xf32>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
// CHECK-NEXT:     [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:     [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:     [[X1:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT:     {{%[0-9]+}} = arith.constant 64 : index
// CHECK-NEXT:     [[B1:%[0-9]+]] = arith.constant 32 : index
// CHECK-NEXT:     %c32 = arith.constant 32 : index
// CHECK-NEXT:     %c64 = arith.constant 64 : index
// The output set to 0 first (E x 32 init loops).
// CHECK-NEXT:     scf.for [[IE:%[0-9]+]] = [[C0]] to %E step [[C1]] {
// CHECK-NEXT:       scf.for [[IJ:%[0-9]+]] = [[C0]] to %c32 step [[C1]] {
// CHECK-NEXT:         [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:         [[R:%[0-9]+]] = arith.muli [[IE]], %c32 : index
// CHECK-NEXT:         [[AT:%[0-9]+]] = arith.addi [[R]], [[IJ]] : index
// CHECK-NEXT:         memref.store [[ZERO]], %out0{{\[}}[[AT]]] : memref<?xf32>
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// Then e (dynamic output dim), k (reduction), j (static output dim) innermost.
// CHECK-NEXT:     scf.for [[E:%[0-9]+]] = [[C0]] to %E step [[C1]] {
// CHECK-NEXT:       scf.for [[K:%[0-9]+]] = [[C0]] to %c64 step [[C1]] {
// CHECK-NEXT:         scf.for [[J:%[0-9]+]] = [[C0]] to %c32 step [[C1]] {
// CHECK-NEXT:           [[XR:%[0-9]+]] = arith.muli [[E]], [[X1]] : index
// CHECK-NEXT:           [[XAT:%[0-9]+]] = arith.addi [[XR]], [[K]] : index
// CHECK-NEXT:           [[XV:%[0-9]+]] = memref.load %x{{\[}}[[XAT]]] : memref<?xf32>
// CHECK-NEXT:           [[BR:%[0-9]+]] = arith.muli [[K]], [[B1]] : index
// CHECK-NEXT:           [[BAT:%[0-9]+]] = arith.addi [[BR]], [[J]] : index
// CHECK-NEXT:           [[BV:%[0-9]+]] = memref.load %b{{\[}}[[BAT]]] : memref<?xf32>
// CHECK-NEXT:           %p = arith.mulf [[XV]], [[BV]] : f32
// CHECK-NEXT:           [[OR:%[0-9]+]] = arith.muli [[E]], %c32 : index
// CHECK-NEXT:           [[OAT:%[0-9]+]] = arith.addi [[OR]], [[J]] : index
// CHECK-NEXT:           [[OLD:%[0-9]+]] = memref.load %out0{{\[}}[[OAT]]] : memref<?xf32>
// CHECK-NEXT:           [[NEW:%[0-9]+]] = arith.addf [[OLD]], %p : f32
// CHECK-NEXT:           memref.store [[NEW]], %out0{{\[}}[[OAT]]] : memref<?xf32>
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @x_b(
// GONE-NOT:   iter_args
// GONE-NOT:   fastmath
// GONE-NOT:   scf.yield {{%[0-9]+}} : f32

// -----
// x @ W.T: x[e, k] * w[j, k]. Both loads run along k, none along j: it stays a dot
// product, loops (e, j, k) with k innermost and the sum in iter_args.
func.func @x_wt(%E: index, %x: tensor<?x64xf32> {te.dims = ["E", 64 : i64]}, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
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
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @x_wt(%E: index, %x: memref<?xf32> {te.dims = ["E", 64 : i64]}, %w: memref<?xf32>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
// CHECK-NEXT:     [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:     [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:     [[X1:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT:     {{%[0-9]+}} = arith.constant 32 : index
// CHECK-NEXT:     [[W1:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT:     %c32 = arith.constant 32 : index
// CHECK-NEXT:     %c64 = arith.constant 64 : index
// CHECK-NEXT:     scf.for [[E:%[0-9]+]] = [[C0]] to %E step [[C1]] {
// CHECK-NEXT:       scf.for [[J:%[0-9]+]] = [[C0]] to %c32 step [[C1]] {
// CHECK-NEXT:         [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:         [[SUM:%[0-9]+]] = scf.for [[K:%[0-9]+]] = [[C0]] to %c64 step [[C1]] iter_args([[ACC:%[0-9]+]] = [[ZERO]]) -> (f32) {
// CHECK-NEXT:           [[XR:%[0-9]+]] = arith.muli [[E]], [[X1]] : index
// CHECK-NEXT:           [[XAT:%[0-9]+]] = arith.addi [[XR]], [[K]] : index
// CHECK-NEXT:           [[XV:%[0-9]+]] = memref.load %x{{\[}}[[XAT]]] : memref<?xf32>
// CHECK-NEXT:           [[WR:%[0-9]+]] = arith.muli [[J]], [[W1]] : index
// CHECK-NEXT:           [[WAT:%[0-9]+]] = arith.addi [[WR]], [[K]] : index
// CHECK-NEXT:           [[WV:%[0-9]+]] = memref.load %w{{\[}}[[WAT]]] : memref<?xf32>
// CHECK-NEXT:           %p = arith.mulf [[XV]], [[WV]] : f32
// CHECK-NEXT:           [[ADD:%[0-9]+]] = arith.addf [[ACC]], %p fastmath<reassoc,contract> : f32
// CHECK-NEXT:           scf.yield [[ADD]] : f32
// CHECK-NEXT:         }
// CHECK-NEXT:         [[OR:%[0-9]+]] = arith.muli [[E]], %c32 : index
// CHECK-NEXT:         [[OAT:%[0-9]+]] = arith.addi [[OR]], [[J]] : index
// CHECK-NEXT:         memref.store [[SUM]], %out0{{\[}}[[OAT]]] : memref<?xf32>
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @x_wt(
// GONE-NOT:   memref.load %out0

// -----
// A column sum over a dynamic E of an E x 16 tensor: 16 >= 8 and the load runs
// along the output dim, so the 16 columns accumulate innermost, loops (e, j).
func.func @column_sum(%E: index, %x: tensor<?x16xf32> {te.dims = ["E", 16 : i64]}) -> tensor<16xf32> {
  %c16 = arith.constant 16 : index
  %s = te.reduce "add" [%c16] over [%E] : tensor<16xf32> {
  ^bb0(%j: index, %e: index):
    %v = te.load %x[%e, %j] : tensor<?x16xf32> -> f32
    te.yield %v : f32
  }
  func.return %s : tensor<16xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @column_sum(%E: index, %x: memref<?xf32> {te.dims = ["E", 16 : i64]}, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
// CHECK-NEXT:     [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:     [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:     [[X1:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT:     %c16 = arith.constant 16 : index
// CHECK-NEXT:     scf.for [[IJ:%[0-9]+]] = [[C0]] to %c16 step [[C1]] {
// CHECK-NEXT:       [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:       memref.store [[ZERO]], %out0{{\[}}[[IJ]]] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.for [[E:%[0-9]+]] = [[C0]] to %E step [[C1]] {
// CHECK-NEXT:       scf.for [[J:%[0-9]+]] = [[C0]] to %c16 step [[C1]] {
// CHECK-NEXT:         [[XR:%[0-9]+]] = arith.muli [[E]], [[X1]] : index
// CHECK-NEXT:         [[XAT:%[0-9]+]] = arith.addi [[XR]], [[J]] : index
// CHECK-NEXT:         [[XV:%[0-9]+]] = memref.load %x{{\[}}[[XAT]]] : memref<?xf32>
// CHECK-NEXT:         [[OLD:%[0-9]+]] = memref.load %out0{{\[}}[[J]]] : memref<?xf32>
// CHECK-NEXT:         [[NEW:%[0-9]+]] = arith.addf [[OLD]], [[XV]] : f32
// CHECK-NEXT:         memref.store [[NEW]], %out0{{\[}}[[J]]] : memref<?xf32>
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @column_sum(
// GONE-NOT:   iter_args
// GONE-NOT:   fastmath

// -----
// A norm over xyz (a static 3; the output dim N is dynamic): reduce-inner, the
// 3-long sum in iter_args, one store per row.
func.func @norm(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> tensor<?xf32> {
  %c3 = arith.constant 3 : index
  %s = te.reduce "add" [%N] over [%c3] : tensor<?xf32> {
  ^bb0(%n: index, %k: index):
    %v = te.load %x[%n, %k] : tensor<?x3xf32> -> f32
    %q = arith.mulf %v, %v : f32
    te.yield %q : f32
  }
  func.return %s : tensor<?xf32>
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @norm(%N: index, %x: memref<?xf32> {te.dims = ["N", 3 : i64]}, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
// CHECK-NEXT:     [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:     [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:     [[X1:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     scf.for [[N:%[0-9]+]] = [[C0]] to %N step [[C1]] {
// CHECK-NEXT:       [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:       [[SUM:%[0-9]+]] = scf.for [[K:%[0-9]+]] = [[C0]] to %c3 step [[C1]] iter_args([[ACC:%[0-9]+]] = [[ZERO]]) -> (f32) {
// CHECK-NEXT:         [[XR:%[0-9]+]] = arith.muli [[N]], [[X1]] : index
// CHECK-NEXT:         [[XAT:%[0-9]+]] = arith.addi [[XR]], [[K]] : index
// CHECK-NEXT:         [[XV:%[0-9]+]] = memref.load %x{{\[}}[[XAT]]] : memref<?xf32>
// CHECK-NEXT:         %q = arith.mulf [[XV]], [[XV]] : f32
// CHECK-NEXT:         [[ADD:%[0-9]+]] = arith.addf [[ACC]], %q fastmath<reassoc,contract> : f32
// CHECK-NEXT:         scf.yield [[ADD]] : f32
// CHECK-NEXT:       }
// CHECK-NEXT:       memref.store [[SUM]], %out0{{\[}}[[N]]] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  {{.}}
// GONE-LABEL: func.func @norm(
// GONE-NOT:   memref.load %out0
