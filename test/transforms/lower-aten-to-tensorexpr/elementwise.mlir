// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s

// lower-aten-to-tensorexpr, elementwise ops: each becomes one te.compute over the
// result's extents (size symbols or index constants), whose body loads every tensor
// operand at the (broadcast) element indices, converts to the compute type and
// yields the result element. Scalar operands are used as SSA values in the body.
// aten.dims on arguments and results becomes te.dims; no aten op is left.

// CHECK: builtin.module {
// CHECK-NOT: aten.

// Unary float ops: neg, exp, relu (NaN-propagating maximumf), sigmoid = 1/(1+exp(-x)).
func.func @unary(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> (tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) {
  %0 = aten.neg %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %1 = aten.exp %0 : tensor<?x3xf32> -> tensor<?x3xf32>
  %2 = aten.relu %1 : tensor<?x3xf32> -> tensor<?x3xf32>
  %3 = aten.sigmoid %2 : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %3 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @unary(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF:%[0-9]+]] = arith.negf [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[NEGF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[T]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[EXP:%[0-9]+]] = math.exp [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[EXP]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load [[T_2]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   [[MAXIMUMF:%[0-9]+]] = arith.maximumf [[LOAD_3]], [[CST]] : f32
// CHECK-NEXT:   te.yield [[MAXIMUMF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load [[T_3]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[NEGF_2:%[0-9]+]] = arith.negf [[LOAD_4]] : f32
// CHECK-NEXT:   [[EXP_2:%[0-9]+]] = math.exp [[NEGF_2]] : f32
// CHECK-NEXT:   [[CST_2:%[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   [[ADDF:%[0-9]+]] = arith.addf [[CST_2]], [[EXP_2]] : f32
// CHECK-NEXT:   [[CST_3:%[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   [[DIVF:%[0-9]+]] = arith.divf [[CST_3]], [[ADDF]] : f32
// CHECK-NEXT:   te.yield [[DIVF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T_4]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// Unary integer and bool ops: abs, relu (maxsi), sign, bitwise_not (xor -1),
// logical_not (xor true).
func.func @unary_int(%E: index, %i: tensor<?xi64> {aten.dims = ["E"]}, %b: tensor<?xi1> {aten.dims = ["E"]}) -> (tensor<?xi64>, tensor<?xi1>) {
  %0 = aten.abs %i : tensor<?xi64> -> tensor<?xi64>
  %1 = aten.relu %0 : tensor<?xi64> -> tensor<?xi64>
  %2 = aten.sign %1 : tensor<?xi64> -> tensor<?xi64>
  %3 = aten.bitwise_not %2 : tensor<?xi64> -> tensor<?xi64>
  %4 = aten.logical_not %b : tensor<?xi1> -> tensor<?xi1>
  func.return %3, %4 : tensor<?xi64>, tensor<?xi1>
}
// CHECK-LABEL: func.func @unary_int(%E: index, %i: tensor<?xi64> {te.dims = ["E"]}, %b: tensor<?xi1> {te.dims = ["E"]}) -> (tensor<?xi64>, tensor<?xi1>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[ABSI:%[0-9]+]] = math.absi [[LOAD]] : i64
// CHECK-NEXT:   te.yield [[ABSI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[T]]{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:   [[MAXSI:%[0-9]+]] = arith.maxsi [[LOAD_2]], [[CST]] : i64
// CHECK-NEXT:   te.yield [[MAXSI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load [[T_2]]{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[CST_2:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:   [[CMPI:%[0-9]+]] = arith.cmpi sgt, [[LOAD_3]], [[CST_2]] : i64
// CHECK-NEXT:   [[EXTUI:%[0-9]+]] = arith.extui [[CMPI]] : i1 to i64
// CHECK-NEXT:   [[CMPI_2:%[0-9]+]] = arith.cmpi slt, [[LOAD_3]], [[CST_2]] : i64
// CHECK-NEXT:   [[EXTUI_2:%[0-9]+]] = arith.extui [[CMPI_2]] : i1 to i64
// CHECK-NEXT:   [[SUBI:%[0-9]+]] = arith.subi [[EXTUI]], [[EXTUI_2]] : i64
// CHECK-NEXT:   te.yield [[SUBI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load [[T_3]]{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[CST_3:%[0-9]+]] = arith.constant -1 : i64
// CHECK-NEXT:   [[XORI:%[0-9]+]] = arith.xori [[LOAD_4]], [[CST_3]] : i64
// CHECK-NEXT:   te.yield [[XORI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_5:%[0-9]+]] = te.compute [%E] : tensor<?xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load %b{{\[}}[[I]]] : tensor<?xi1> -> i1
// CHECK-NEXT:   [[CST_4:%[0-9]+]] = arith.constant true
// CHECK-NEXT:   [[XORI_2:%[0-9]+]] = arith.xori [[LOAD_5]], [[CST_4]] : i1
// CHECK-NEXT:   te.yield [[XORI_2]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T_4]], [[T_5]] : tensor<?xi64>, tensor<?xi1>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// Broadcasting: ?x1 against 16 is ?x16 (the size-1 dim is read at index 0, the
// missing leading dim is not read); a rank-0 tensor is loaded with no indices;
// 3 against ?x3 reads the trailing index only; bool + bool is or.
func.func @broadcast(%N: index, %a: tensor<?x1xf32> {aten.dims = ["N", 1 : i64]}, %b: tensor<16xf32> {aten.dims = [16 : i64]}, %s: tensor<f32> {aten.dims = []}, %y: tensor<3xf32> {aten.dims = [3 : i64]}, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %p: tensor<?xi1> {aten.dims = ["N"]}) -> (tensor<?x16xf32>, tensor<?x3xf32>, tensor<?xi1>) {
  %0 = aten.sub.Tensor %a, %b : tensor<?x1xf32>, tensor<16xf32> -> tensor<?x16xf32>
  %1 = aten.mul.Tensor %0, %s : tensor<?x16xf32>, tensor<f32> -> tensor<?x16xf32>
  %2 = aten.div.Tensor %y, %x : tensor<3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %3 = aten.add.Tensor %p, %p : tensor<?xi1>, tensor<?xi1> -> tensor<?xi1>
  func.return %1, %2, %3 : tensor<?x16xf32>, tensor<?x3xf32>, tensor<?xi1>
}
// CHECK-LABEL: func.func @broadcast(%N: index, %a: tensor<?x1xf32> {te.dims = ["N", 1 : i64]}, %b: tensor<16xf32> {te.dims = [16 : i64]}, %s: tensor<f32> {te.dims = []}, %y: tensor<3xf32> {te.dims = [3 : i64]}, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %p: tensor<?xi1> {te.dims = ["N"]}) -> (tensor<?x16xf32>, tensor<?x3xf32>, tensor<?xi1>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C16]]] : tensor<?x16xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %a{{\[}}[[I]], [[C0]]] : tensor<?x1xf32> -> f32
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %b{{\[}}[[J]]] : tensor<16xf32> -> f32
// CHECK-NEXT:   [[SUBF:%[0-9]+]] = arith.subf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[SUBF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C16]]] : tensor<?x16xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load [[T]]{{\[}}[[I]], [[J]]] : tensor<?x16xf32> -> f32
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %s[] : tensor<f32> -> f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD_3]], [[LOAD_4]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load %y{{\[}}[[J]]] : tensor<3xf32> -> f32
// CHECK-NEXT:   [[LOAD_6:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[DIVF:%[0-9]+]] = arith.divf [[LOAD_5]], [[LOAD_6]] : f32
// CHECK-NEXT:   te.yield [[DIVF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute [%N] : tensor<?xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_7:%[0-9]+]] = te.load %p{{\[}}[[I]]] : tensor<?xi1> -> i1
// CHECK-NEXT:   [[LOAD_8:%[0-9]+]] = te.load %p{{\[}}[[I]]] : tensor<?xi1> -> i1
// CHECK-NEXT:   [[ORI:%[0-9]+]] = arith.ori [[LOAD_7]], [[LOAD_8]] : i1
// CHECK-NEXT:   te.yield [[ORI]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T_2]], [[T_3]], [[T_4]] : tensor<?x16xf32>, tensor<?x3xf32>, tensor<?xi1>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// Mixed dtypes: operands are converted to the result type (f32 + f64 in f64;
// i64 / i64 is true division in f32).
func.func @promote(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %d: tensor<3xf64> {aten.dims = [3 : i64]}, %i: tensor<?xi64> {aten.dims = ["N"]}) -> (tensor<?x3xf64>, tensor<?xf32>) {
  %0 = aten.add.Tensor %x, %d : tensor<?x3xf32>, tensor<3xf64> -> tensor<?x3xf64>
  %1 = aten.div.Tensor %i, %i : tensor<?xi64>, tensor<?xi64> -> tensor<?xf32>
  func.return %0, %1 : tensor<?x3xf64>, tensor<?xf32>
}
// CHECK-LABEL: func.func @promote(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %d: tensor<3xf64> {te.dims = [3 : i64]}, %i: tensor<?xi64> {te.dims = ["N"]}) -> (tensor<?x3xf64>, tensor<?xf32>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[EXTF:%[0-9]+]] = arith.extf [[LOAD]] : f32 to f64
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %d{{\[}}[[J]]] : tensor<3xf64> -> f64
// CHECK-NEXT:   [[ADDF:%[0-9]+]] = arith.addf [[EXTF]], [[LOAD_2]] : f64
// CHECK-NEXT:   te.yield [[ADDF]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[SITOFP:%[0-9]+]] = arith.sitofp [[LOAD_3]] : i64 to f32
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[SITOFP_2:%[0-9]+]] = arith.sitofp [[LOAD_4]] : i64 to f32
// CHECK-NEXT:   [[DIVF:%[0-9]+]] = arith.divf [[SITOFP]], [[SITOFP_2]] : f32
// CHECK-NEXT:   te.yield [[DIVF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<?x3xf64>, tensor<?xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// Scalar operands are SSA values converted in the body: an f64 scalar truncated to
// f32, an index (a size symbol) through i64; alpha multiplies the second operand.
func.func @scalars(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %i: tensor<?xi64> {aten.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?xi64>) {
  %c2 = arith.constant 2.000000e+00 : f64
  %c1 = arith.constant 1 : i64
  %0 = aten.mul.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %1 = aten.div.Scalar %0, %N : tensor<?x3xf32>, index -> tensor<?x3xf32>
  %2 = aten.add.Tensor %1, %x alpha %c2 : f64 : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %3 = aten.sub.Scalar %i, %c1 alpha %c1 : i64 : tensor<?xi64>, i64 -> tensor<?xi64>
  func.return %2, %3 : tensor<?x3xf32>, tensor<?xi64>
}
// CHECK-LABEL: func.func @scalars(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %i: tensor<?xi64> {te.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?xi64>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c2 = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: %c1 = arith.constant 1 : i64
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf %c2 : f64 to f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD]], [[TRUNCF]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[T]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[INDEX_CAST:%[0-9]+]] = arith.index_cast %N : index to i64
// CHECK-NEXT:   [[SITOFP:%[0-9]+]] = arith.sitofp [[INDEX_CAST]] : i64 to f32
// CHECK-NEXT:   [[DIVF:%[0-9]+]] = arith.divf [[LOAD_2]], [[SITOFP]] : f32
// CHECK-NEXT:   te.yield [[DIVF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load [[T_2]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[TRUNCF_2:%[0-9]+]] = arith.truncf %c2 : f64 to f32
// CHECK-NEXT:   [[MULF_2:%[0-9]+]] = arith.mulf [[LOAD_4]], [[TRUNCF_2]] : f32
// CHECK-NEXT:   [[ADDF:%[0-9]+]] = arith.addf [[LOAD_3]], [[MULF_2]] : f32
// CHECK-NEXT:   te.yield [[ADDF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute [%N] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[MULI:%[0-9]+]] = arith.muli %c1, %c1 : i64
// CHECK-NEXT:   [[SUBI:%[0-9]+]] = arith.subi [[LOAD_5]], [[MULI]] : i64
// CHECK-NEXT:   te.yield [[SUBI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T_3]], [[T_4]] : tensor<?x3xf32>, tensor<?xi64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// Comparisons yield i1, computed in the promoted type: f32 against an f64 scalar in
// f32, i64 against an f64 scalar in f64, i64 against i64 with a signed predicate;
// logical_and of i1; where selects with broadcasting of all three operands.
func.func @compare(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %y: tensor<3xf32> {aten.dims = [3 : i64]}, %i: tensor<?xi64> {aten.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?xi1>) {
  %c5 = arith.constant 5.000000e+00 : f64
  %c1 = arith.constant 1 : i64
  %h = arith.constant 2.500000e+00 : f64
  %0 = aten.lt.Scalar %x, %c5 : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  %1 = aten.eq.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi1>
  %2 = aten.ge.Scalar %i, %c1 : tensor<?xi64>, i64 -> tensor<?xi1>
  %3 = aten.gt.Scalar %i, %h : tensor<?xi64>, f64 -> tensor<?xi1>
  %4 = aten.logical_and %0, %1 : tensor<?x3xi1>, tensor<?x3xi1> -> tensor<?x3xi1>
  %5 = aten.ne.Tensor %2, %3 : tensor<?xi1>, tensor<?xi1> -> tensor<?xi1>
  %6 = aten.where.self %4, %x, %y : tensor<?x3xi1>, tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  func.return %6, %5 : tensor<?x3xf32>, tensor<?xi1>
}
// CHECK-LABEL: func.func @compare(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %y: tensor<3xf32> {te.dims = [3 : i64]}, %i: tensor<?xi64> {te.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?xi1>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c5 = arith.constant 5.000000e+00 : f64
// CHECK-NEXT: %c1 = arith.constant 1 : i64
// CHECK-NEXT: %h = arith.constant 2.500000e+00 : f64
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf %c5 : f64 to f32
// CHECK-NEXT:   [[CMPF:%[0-9]+]] = arith.cmpf olt, [[LOAD]], [[TRUNCF]] : f32
// CHECK-NEXT:   te.yield [[CMPF]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %y{{\[}}[[J]]] : tensor<3xf32> -> f32
// CHECK-NEXT:   [[CMPF_2:%[0-9]+]] = arith.cmpf oeq, [[LOAD_2]], [[LOAD_3]] : f32
// CHECK-NEXT:   te.yield [[CMPF_2]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%N] : tensor<?xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[CMPI:%[0-9]+]] = arith.cmpi sge, [[LOAD_4]], %c1 : i64
// CHECK-NEXT:   te.yield [[CMPI]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute [%N] : tensor<?xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[SITOFP:%[0-9]+]] = arith.sitofp [[LOAD_5]] : i64 to f64
// CHECK-NEXT:   [[CMPF_3:%[0-9]+]] = arith.cmpf ogt, [[SITOFP]], %h : f64
// CHECK-NEXT:   te.yield [[CMPF_3]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: [[T_5:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_6:%[0-9]+]] = te.load [[T]]{{\[}}[[I]], [[J]]] : tensor<?x3xi1> -> i1
// CHECK-NEXT:   [[LOAD_7:%[0-9]+]] = te.load [[T_2]]{{\[}}[[I]], [[J]]] : tensor<?x3xi1> -> i1
// CHECK-NEXT:   [[ANDI:%[0-9]+]] = arith.andi [[LOAD_6]], [[LOAD_7]] : i1
// CHECK-NEXT:   te.yield [[ANDI]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: [[T_6:%[0-9]+]] = te.compute [%N] : tensor<?xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_8:%[0-9]+]] = te.load [[T_3]]{{\[}}[[I]]] : tensor<?xi1> -> i1
// CHECK-NEXT:   [[LOAD_9:%[0-9]+]] = te.load [[T_4]]{{\[}}[[I]]] : tensor<?xi1> -> i1
// CHECK-NEXT:   [[CMPI_2:%[0-9]+]] = arith.cmpi ne, [[LOAD_8]], [[LOAD_9]] : i1
// CHECK-NEXT:   te.yield [[CMPI_2]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: [[T_7:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_10:%[0-9]+]] = te.load [[T_5]]{{\[}}[[I]], [[J]]] : tensor<?x3xi1> -> i1
// CHECK-NEXT:   [[LOAD_11:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[LOAD_12:%[0-9]+]] = te.load %y{{\[}}[[J]]] : tensor<3xf32> -> f32
// CHECK-NEXT:   [[SELECT:%[0-9]+]] = arith.select [[LOAD_10]], [[LOAD_11]], [[LOAD_12]] : f32
// CHECK-NEXT:   te.yield [[SELECT]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T_7]], [[T_6]] : tensor<?x3xf32>, tensor<?xi1>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// clamp: max with the lower bound, then min with the upper; either may be absent.
func.func @clamp(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %i: tensor<?xi64> {aten.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?xi64>) {
  %lo = arith.constant 0.000000e+00 : f64
  %hi = arith.constant 6.000000e+00 : f64
  %k = arith.constant 4 : i64
  %0 = aten.clamp %x min %lo : f64 max %hi : f64 : tensor<?x3xf32> -> tensor<?x3xf32>
  %1 = aten.clamp %i max %k : i64 : tensor<?xi64> -> tensor<?xi64>
  func.return %0, %1 : tensor<?x3xf32>, tensor<?xi64>
}
// CHECK-LABEL: func.func @clamp(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %i: tensor<?xi64> {te.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?xi64>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %lo = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %hi = arith.constant 6.000000e+00 : f64
// CHECK-NEXT: %k = arith.constant 4 : i64
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf %lo : f64 to f32
// CHECK-NEXT:   [[TRUNCF_2:%[0-9]+]] = arith.truncf %hi : f64 to f32
// CHECK-NEXT:   [[MAXIMUMF:%[0-9]+]] = arith.maximumf [[LOAD]], [[TRUNCF]] : f32
// CHECK-NEXT:   [[MINIMUMF:%[0-9]+]] = arith.minimumf [[MAXIMUMF]], [[TRUNCF_2]] : f32
// CHECK-NEXT:   te.yield [[MINIMUMF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[MINSI:%[0-9]+]] = arith.minsi [[LOAD_2]], %k : i64
// CHECK-NEXT:   te.yield [[MINSI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<?x3xf32>, tensor<?xi64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// pow: a small integral exponent is repeated multiplication (2 -> x*x, -2 ->
// 1/(x*x), 3 on i64 -> muli), 0.5 is sqrt, any other exponent is powf of the
// scalar; pow.Scalar (scalar base) is powf, pow.Tensor_Tensor on i64 is ipowi.
func.func @pow(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %i: tensor<?xi64> {aten.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?xi64>) {
  %two = arith.constant 2 : i64
  %m2 = arith.constant -2.000000e+00 : f64
  %half = arith.constant 5.000000e-01 : f64
  %p = arith.constant 1.500000e+00 : f64
  %three = arith.constant 3 : i64
  %f2 = arith.constant 2.000000e+00 : f64
  %0 = aten.pow.Tensor_Scalar %x, %two : tensor<?x3xf32>, i64 -> tensor<?x3xf32>
  %1 = aten.pow.Tensor_Scalar %0, %m2 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %2 = aten.pow.Tensor_Scalar %1, %half : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %3 = aten.pow.Tensor_Scalar %2, %p : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %4 = aten.pow.Scalar %f2, %3 : f64, tensor<?x3xf32> -> tensor<?x3xf32>
  %5 = aten.pow.Tensor_Scalar %i, %three : tensor<?xi64>, i64 -> tensor<?xi64>
  %6 = aten.pow.Tensor_Tensor %i, %5 : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  func.return %4, %6 : tensor<?x3xf32>, tensor<?xi64>
}
// CHECK-LABEL: func.func @pow(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %i: tensor<?xi64> {te.dims = ["N"]}) -> (tensor<?x3xf32>, tensor<?xi64>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %two = arith.constant 2 : i64
// CHECK-NEXT: %m2 = arith.constant -2.000000e+00 : f64
// CHECK-NEXT: %half = arith.constant 5.000000e-01 : f64
// CHECK-NEXT: %p = arith.constant 1.500000e+00 : f64
// CHECK-NEXT: %three = arith.constant 3 : i64
// CHECK-NEXT: %f2 = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[LOAD]], [[LOAD]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[T]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[MULF_2:%[0-9]+]] = arith.mulf [[LOAD_2]], [[LOAD_2]] : f32
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   [[DIVF:%[0-9]+]] = arith.divf [[CST]], [[MULF_2]] : f32
// CHECK-NEXT:   te.yield [[DIVF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load [[T_2]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[SQRT:%[0-9]+]] = math.sqrt [[LOAD_3]] : f32
// CHECK-NEXT:   te.yield [[SQRT]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load [[T_3]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf %p : f64 to f32
// CHECK-NEXT:   [[POWF:%[0-9]+]] = math.powf [[LOAD_4]], [[TRUNCF]] : f32
// CHECK-NEXT:   te.yield [[POWF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_5:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[TRUNCF_2:%[0-9]+]] = arith.truncf %f2 : f64 to f32
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load [[T_4]]{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[POWF_2:%[0-9]+]] = math.powf [[TRUNCF_2]], [[LOAD_5]] : f32
// CHECK-NEXT:   te.yield [[POWF_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_6:%[0-9]+]] = te.compute [%N] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_6:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[MULI:%[0-9]+]] = arith.muli [[LOAD_6]], [[LOAD_6]] : i64
// CHECK-NEXT:   [[MULI_2:%[0-9]+]] = arith.muli [[MULI]], [[LOAD_6]] : i64
// CHECK-NEXT:   te.yield [[MULI_2]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_7:%[0-9]+]] = te.compute [%N] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_7:%[0-9]+]] = te.load %i{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[LOAD_8:%[0-9]+]] = te.load [[T_6]]{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:   [[IPOWI:%[0-9]+]] = math.ipowi [[LOAD_7]], [[LOAD_8]] : i64
// CHECK-NEXT:   te.yield [[IPOWI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T_5]], [[T_7]] : tensor<?x3xf32>, tensor<?xi64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// Casts via _to_copy: sitofp, uitofp from i1, fptosi, extf, != 0 to i1, extui from
// i1; a _to_copy to the same type is no op at all (the argument is used directly).
func.func @casts(%E: index, %i: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]}, %b: tensor<?xi1> {aten.dims = ["E"]}, %f: tensor<?xf32> {aten.dims = ["E"]}) -> (tensor<2x?xf64>, tensor<?xf32>, tensor<2x?xi32>, tensor<?xf64>, tensor<?xi1>, tensor<?xi64>) {
  %0 = aten._to_copy %i : tensor<2x?xi64> -> tensor<2x?xf64>
  %1 = aten._to_copy %b : tensor<?xi1> -> tensor<?xf32>
  %2 = aten._to_copy %0 : tensor<2x?xf64> -> tensor<2x?xi32>
  %3 = aten._to_copy %f : tensor<?xf32> -> tensor<?xf32>
  %4 = aten._to_copy %3 : tensor<?xf32> -> tensor<?xf64>
  %5 = aten._to_copy %f : tensor<?xf32> -> tensor<?xi1>
  %6 = aten._to_copy %b : tensor<?xi1> -> tensor<?xi64>
  func.return %0, %1, %2, %4, %5, %6 : tensor<2x?xf64>, tensor<?xf32>, tensor<2x?xi32>, tensor<?xf64>, tensor<?xi1>, tensor<?xi64>
}
// CHECK-LABEL: func.func @casts(%E: index, %i: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}, %b: tensor<?xi1> {te.dims = ["E"]}, %f: tensor<?xf32> {te.dims = ["E"]}) -> (tensor<2x?xf64>, tensor<?xf32>, tensor<2x?xi32>, tensor<?xf64>, tensor<?xi1>, tensor<?xi64>) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[C2]], %E] : tensor<2x?xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %i{{\[}}[[I]], [[J]]] : tensor<2x?xi64> -> i64
// CHECK-NEXT:   [[SITOFP:%[0-9]+]] = arith.sitofp [[LOAD]] : i64 to f64
// CHECK-NEXT:   te.yield [[SITOFP]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%E] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %b{{\[}}[[I]]] : tensor<?xi1> -> i1
// CHECK-NEXT:   [[UITOFP:%[0-9]+]] = arith.uitofp [[LOAD_2]] : i1 to f32
// CHECK-NEXT:   te.yield [[UITOFP]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute {{\[}}[[C2]], %E] : tensor<2x?xi32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load [[T]]{{\[}}[[I]], [[J]]] : tensor<2x?xf64> -> f64
// CHECK-NEXT:   [[FPTOSI:%[0-9]+]] = arith.fptosi [[LOAD_3]] : f64 to i32
// CHECK-NEXT:   te.yield [[FPTOSI]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_4:%[0-9]+]] = te.compute [%E] : tensor<?xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %f{{\[}}[[I]]] : tensor<?xf32> -> f32
// CHECK-NEXT:   [[EXTF:%[0-9]+]] = arith.extf [[LOAD_4]] : f32 to f64
// CHECK-NEXT:   te.yield [[EXTF]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_5:%[0-9]+]] = te.compute [%E] : tensor<?xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load %f{{\[}}[[I]]] : tensor<?xf32> -> f32
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   [[CMPF:%[0-9]+]] = arith.cmpf une, [[LOAD_5]], [[CST]] : f32
// CHECK-NEXT:   te.yield [[CMPF]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: [[T_6:%[0-9]+]] = te.compute [%E] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_6:%[0-9]+]] = te.load %b{{\[}}[[I]]] : tensor<?xi1> -> i1
// CHECK-NEXT:   [[EXTUI:%[0-9]+]] = arith.extui [[LOAD_6]] : i1 to i64
// CHECK-NEXT:   te.yield [[EXTUI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]], [[T_3]], [[T_4]], [[T_5]], [[T_6]] : tensor<2x?xf64>, tensor<?xf32>, tensor<2x?xi32>, tensor<?xf64>, tensor<?xi1>, tensor<?xi64>
// CHECK-NEXT: }
// CHECK-NOT: aten.
// CHECK: {{^}}}
