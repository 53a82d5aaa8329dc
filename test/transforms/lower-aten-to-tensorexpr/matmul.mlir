// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s

// lower-aten-to-tensorexpr, matrix products: mm and bmm are one te.reduce "add" over
// the inner dim, whose body multiplies the two operands loaded at [i, k] and [k, j];
// addmm is that reduce, then a te.compute adding the (broadcast) bias, with beta
// scaling the bias and alpha the product when present. A permuted weight (as the
// importer emits for nn.Linear) is read in place: no transposed copy.

// CHECK: builtin.module {
// CHECK-NOT: aten.

// mm of ?x3 by 3x16: a reduce over [N, 16] and the inner extent 3.
func.func @mm(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %w: tensor<3x16xf32> {aten.dims = [3 : i64, 16 : i64]}) -> (tensor<?x16xf32> {aten.dims = ["N", 16 : i64]}) {
  %0 = aten.mm %x, %w : tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK-LABEL: func.func @mm(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %w: tensor<3x16xf32> {te.dims = [3 : i64, 16 : i64]}) -> (tensor<?x16xf32> {te.dims = ["N", 16 : i64]}) {
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [%N, [[C16]]] over {{\[}}[[C3]]] : tensor<?x16xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[K]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %w{{\[}}[[K]], [[J]]] : tensor<3x16xf32> -> f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[R]] : tensor<?x16xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// mm with a dynamic inner dim, 16xE by Ex3: the reduce runs over E. Unlike sum, it
// accumulates in f32 even over this dynamic axis.
func.func @mm_dynamic_inner(%E: index, %a: tensor<16x?xf32> {aten.dims = [16 : i64, "E"]}, %b: tensor<?x3xf32> {aten.dims = ["E", 3 : i64]}) -> tensor<16x3xf32> {
  %0 = aten.mm %a, %b : tensor<16x?xf32>, tensor<?x3xf32> -> tensor<16x3xf32>
  func.return %0 : tensor<16x3xf32>
}
// CHECK-LABEL: func.func @mm_dynamic_inner(%E: index, %a: tensor<16x?xf32> {te.dims = [16 : i64, "E"]}, %b: tensor<?x3xf32> {te.dims = ["E", 3 : i64]}) -> tensor<16x3xf32> {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" {{\[}}[[C16]], [[C3]]] over [%E] : tensor<16x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %a{{\[}}[[I]], [[K]]] : tensor<16x?xf32> -> f32
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %b{{\[}}[[K]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[R]] : tensor<16x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// addmm as nn.Linear: bias 64, input ?x16, weight 64x16 permuted to 16x64; the
// permute is folded into the load of the weight at [j, k].
func.func @linear(%N: index, %x: tensor<?x16xf32> {aten.dims = ["N", 16 : i64]}) -> (tensor<?x64xf32> {aten.dims = ["N", 64 : i64]}) {
  %w = aten.weight "_param_constant0" : tensor<64x16xf32>
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<64x16xf32> -> tensor<16x64xf32>
  %b = aten.weight "_param_constant1" : tensor<64xf32>
  %0 = aten.addmm %b, %x, %wt : tensor<64xf32>, tensor<?x16xf32>, tensor<16x64xf32> -> tensor<?x64xf32>
  func.return %0 : tensor<?x64xf32>
}
// CHECK-LABEL: func.func @linear(%N: index, %x: tensor<?x16xf32> {te.dims = ["N", 16 : i64]}) -> (tensor<?x64xf32> {te.dims = ["N", 64 : i64]}) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C64:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: %w = te.weight "_param_constant0" : tensor<64x16xf32>
// CHECK-NEXT: %b = te.weight "_param_constant1" : tensor<64xf32>
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [%N, [[C64]]] over {{\[}}[[C16]]] : tensor<?x64xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[K]]] : tensor<?x16xf32> -> f32
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %w{{\[}}[[J]], [[K]]] : tensor<64x16xf32> -> f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C64]]] : tensor<?x64xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %b{{\[}}[[J]]] : tensor<64xf32> -> f32
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load [[R]]{{\[}}[[I]], [[J]]] : tensor<?x64xf32> -> f32
// CHECK-NEXT:   [[ADDF:%[0-9]+]] = arith.addf [[LOAD_3]], [[LOAD_4]] : f32
// CHECK-NEXT:   te.yield [[ADDF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x64xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// addmm with beta and alpha: bias * beta + product * alpha, the scalars converted
// to f32 in the body.
func.func @addmm_beta_alpha(%N: index, %bias: tensor<16xf32> {aten.dims = [16 : i64]}, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %w: tensor<3x16xf32> {aten.dims = [3 : i64, 16 : i64]}) -> tensor<?x16xf32> {
  %beta = arith.constant 1 : i64
  %alpha = arith.constant 2.000000e+00 : f64
  %0 = aten.addmm %bias, %x, %w beta %beta : i64 alpha %alpha : f64 : tensor<16xf32>, tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK-LABEL: func.func @addmm_beta_alpha(%N: index, %bias: tensor<16xf32> {te.dims = [16 : i64]}, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %w: tensor<3x16xf32> {te.dims = [3 : i64, 16 : i64]}) -> tensor<?x16xf32> {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: %beta = arith.constant 1 : i64
// CHECK-NEXT: %alpha = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [%N, [[C16]]] over {{\[}}[[C3]]] : tensor<?x16xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[K]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %w{{\[}}[[K]], [[J]]] : tensor<3x16xf32> -> f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C16]]] : tensor<?x16xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %bias{{\[}}[[J]]] : tensor<16xf32> -> f32
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load [[R]]{{\[}}[[I]], [[J]]] : tensor<?x16xf32> -> f32
// CHECK-NEXT:   [[SITOFP:%[0-9]+]] = arith.sitofp %beta : i64 to f32
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf %alpha : f64 to f32
// CHECK-NEXT:   [[MULF_2:%[0-9]+]] = arith.mulf [[LOAD_3]], [[SITOFP]] : f32
// CHECK-NEXT:   [[MULF_3:%[0-9]+]] = arith.mulf [[LOAD_4]], [[TRUNCF]] : f32
// CHECK-NEXT:   [[ADDF:%[0-9]+]] = arith.addf [[MULF_2]], [[MULF_3]] : f32
// CHECK-NEXT:   te.yield [[ADDF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x16xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// bmm of ?x8x3 by ?x3x4: one more output dim, the batch index shared.
func.func @bmm(%N: index, %p: tensor<?x8x3xf32> {aten.dims = ["N", 8 : i64, 3 : i64]}, %q: tensor<?x3x4xf32> {aten.dims = ["N", 3 : i64, 4 : i64]}) -> tensor<?x8x4xf32> {
  %0 = aten.bmm %p, %q : tensor<?x8x3xf32>, tensor<?x3x4xf32> -> tensor<?x8x4xf32>
  func.return %0 : tensor<?x8x4xf32>
}
// CHECK-LABEL: func.func @bmm(%N: index, %p: tensor<?x8x3xf32> {te.dims = ["N", 8 : i64, 3 : i64]}, %q: tensor<?x3x4xf32> {te.dims = ["N", 3 : i64, 4 : i64]}) -> tensor<?x8x4xf32> {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C4:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[C8:%[0-9]+]] = arith.constant 8 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [%N, [[C8]], [[C4]]] over {{\[}}[[C3]]] : tensor<?x8x4xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index, [[L:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %p{{\[}}[[I]], [[J]], [[L]]] : tensor<?x8x3xf32> -> f32
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %q{{\[}}[[I]], [[L]], [[K]]] : tensor<?x3x4xf32> -> f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[R]] : tensor<?x8x4xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.
// CHECK: {{^}}}
