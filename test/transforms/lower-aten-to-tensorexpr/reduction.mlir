// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s

// lower-aten-to-tensorexpr, reductions: each becomes a te.reduce whose body takes
// the output indices then the reduction indices and loads the source at the full
// index (a kept dim of size 1 is not an index of the source). f32 sums over a
// dynamic (or long, > 256) axis accumulate in f64: the te.reduce is f64 and a
// te.compute converts (and, for mean and the norm, finishes) into the result type.
// A short static axis, or an f64 source, reduces in the result type directly.

// CHECK: builtin.module {
// CHECK-NOT: aten.

// sum.dim_IntList over the static axis of ?x3 (f32 accumulates in f32), with and
// without keepdim.
func.func @sum_static_axis(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> (tensor<?xf32>, tensor<?x1xf32>) {
  %0 = aten.sum.dim_IntList %x {dim = array<i64: 1>} : tensor<?x3xf32> -> tensor<?xf32>
  %1 = aten.sum.dim_IntList %x {dim = array<i64: -1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  func.return %0, %1 : tensor<?xf32>, tensor<?x1xf32>
}
// CHECK-LABEL: func.func @sum_static_axis(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<?xf32>, tensor<?x1xf32>) {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [%N] over {{\[}}[[C3]]] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[R_2:%[0-9]+]] = te.reduce "add" [%N, [[C1]]] over {{\[}}[[C3]]] : tensor<?x1xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %x{{\[}}[[I]], [[K]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[R]], [[R_2]] : tensor<?xf32>, tensor<?x1xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// sum.dim_IntList over the dynamic axis: accumulated in f64, then truncated to f32;
// with keepdim the result is 1x3.
func.func @sum_dynamic_axis(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> (tensor<3xf32>, tensor<1x3xf32>) {
  %0 = aten.sum.dim_IntList %x {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<3xf32>
  %1 = aten.sum.dim_IntList %x {dim = array<i64: 0>, keepdim = true} : tensor<?x3xf32> -> tensor<1x3xf32>
  func.return %0, %1 : tensor<3xf32>, tensor<1x3xf32>
}
// CHECK-LABEL: func.func @sum_dynamic_axis(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<3xf32>, tensor<1x3xf32>) {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" {{\[}}[[C3]]] over [%N] : tensor<3xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[J]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[EXTF:%[0-9]+]] = arith.extf [[LOAD]] : f32 to f64
// CHECK-NEXT:   te.yield [[EXTF]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[C3]]] : tensor<3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[R]]{{\[}}[[I]]] : tensor<3xf64> -> f64
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf [[LOAD_2]] : f64 to f32
// CHECK-NEXT:   te.yield [[TRUNCF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[R_2:%[0-9]+]] = te.reduce "add" {{\[}}[[C1]], [[C3]]] over [%N] : tensor<1x3xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %x{{\[}}[[K]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[EXTF_2:%[0-9]+]] = arith.extf [[LOAD_3]] : f32 to f64
// CHECK-NEXT:   te.yield [[EXTF_2]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute {{\[}}[[C1]], [[C3]]] : tensor<1x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load [[R_2]]{{\[}}[[I]], [[J]]] : tensor<1x3xf64> -> f64
// CHECK-NEXT:   [[TRUNCF_2:%[0-9]+]] = arith.truncf [[LOAD_4]] : f64 to f32
// CHECK-NEXT:   te.yield [[TRUNCF_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<3xf32>, tensor<1x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// Two reduced dims of three, in f64: no conversion step.
func.func @sum_two_dims(%N: index, %z: tensor<4x?x3xf64> {aten.dims = [4 : i64, "N", 3 : i64]}) -> tensor<?xf64> {
  %0 = aten.sum.dim_IntList %z {dim = array<i64: 0, -1>} : tensor<4x?x3xf64> -> tensor<?xf64>
  func.return %0 : tensor<?xf64>
}
// CHECK-LABEL: func.func @sum_two_dims(%N: index, %z: tensor<4x?x3xf64> {te.dims = [4 : i64, "N", 3 : i64]}) -> tensor<?xf64> {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[C4:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [%N] over {{\[}}[[C4]], [[C3]]] : tensor<?xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %z{{\[}}[[J]], [[I]], [[K]]] : tensor<4x?x3xf64> -> f64
// CHECK-NEXT:   te.yield [[LOAD]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[R]] : tensor<?xf64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// sum (all dims) of ?x1xf32: a rank-0 f64 reduce over both axes, then truncf.
func.func @sum_all(%N: index, %x: tensor<?x1xf32> {aten.dims = ["N", 1 : i64]}) -> tensor<f32> {
  %0 = aten.sum %x : tensor<?x1xf32> -> tensor<f32>
  func.return %0 : tensor<f32>
}
// CHECK-LABEL: func.func @sum_all(%N: index, %x: tensor<?x1xf32> {te.dims = ["N", 1 : i64]}) -> tensor<f32> {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [] over [%N, [[C1]]] : tensor<f64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x1xf32> -> f32
// CHECK-NEXT:   [[EXTF:%[0-9]+]] = arith.extf [[LOAD]] : f32 to f64
// CHECK-NEXT:   te.yield [[EXTF]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [] : tensor<f32> {
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[R]][] : tensor<f64> -> f64
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf [[LOAD_2]] : f64 to f32
// CHECK-NEXT:   te.yield [[TRUNCF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<f32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// sum.dim_IntList with an empty dim list reduces every dim, as the importer emits
// for a full sum; sum of i1 counts in i64; a static axis longer than 256 accumulates
// in f64 like a dynamic one.
func.func @sum_other(%N: index, %x: tensor<?x1xf32> {aten.dims = ["N", 1 : i64]}, %b: tensor<?xi1> {aten.dims = ["N"]}, %w: tensor<300x2xf32> {aten.dims = [300 : i64, 2 : i64]}) -> (tensor<f32>, tensor<i64>, tensor<2xf32>) {
  %0 = aten.sum.dim_IntList %x {dim = array<i64>} : tensor<?x1xf32> -> tensor<f32>
  %1 = aten.sum %b : tensor<?xi1> -> tensor<i64>
  %2 = aten.sum.dim_IntList %w {dim = array<i64: 0>} : tensor<300x2xf32> -> tensor<2xf32>
  func.return %0, %1, %2 : tensor<f32>, tensor<i64>, tensor<2xf32>
}
// CHECK-LABEL: func.func @sum_other(%N: index, %x: tensor<?x1xf32> {te.dims = ["N", 1 : i64]}, %b: tensor<?xi1> {te.dims = ["N"]}, %w: tensor<300x2xf32> {te.dims = [300 : i64, 2 : i64]}) -> (tensor<f32>, tensor<i64>, tensor<2xf32>) {
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C300:%[0-9]+]] = arith.constant 300 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [] over [%N, [[C1]]] : tensor<f64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x1xf32> -> f32
// CHECK-NEXT:   [[EXTF:%[0-9]+]] = arith.extf [[LOAD]] : f32 to f64
// CHECK-NEXT:   te.yield [[EXTF]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [] : tensor<f32> {
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[R]][] : tensor<f64> -> f64
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf [[LOAD_2]] : f64 to f32
// CHECK-NEXT:   te.yield [[TRUNCF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[R_2:%[0-9]+]] = te.reduce "add" [] over [%N] : tensor<i64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %b{{\[}}[[I]]] : tensor<?xi1> -> i1
// CHECK-NEXT:   [[EXTUI:%[0-9]+]] = arith.extui [[LOAD_3]] : i1 to i64
// CHECK-NEXT:   te.yield [[EXTUI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[R_3:%[0-9]+]] = te.reduce "add" {{\[}}[[C2]]] over {{\[}}[[C300]]] : tensor<2xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load %w{{\[}}[[J]], [[I]]] : tensor<300x2xf32> -> f32
// CHECK-NEXT:   [[EXTF_2:%[0-9]+]] = arith.extf [[LOAD_4]] : f32 to f64
// CHECK-NEXT:   te.yield [[EXTF_2]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute {{\[}}[[C2]]] : tensor<2xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load [[R_3]]{{\[}}[[I]]] : tensor<2xf64> -> f64
// CHECK-NEXT:   [[TRUNCF_2:%[0-9]+]] = arith.truncf [[LOAD_5]] : f64 to f32
// CHECK-NEXT:   te.yield [[TRUNCF_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[R_2]], [[T_2]] : tensor<f32>, tensor<i64>, tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// mean.dim: the sum divided by the number of reduced elements (the extent, as f64
// for the dynamic axis), and mean of all of an f64 tensor (N * 3 elements).
func.func @mean(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %z: tensor<?x3xf64> {aten.dims = ["N", 3 : i64]}) -> (tensor<3xf32>, tensor<f64>) {
  %0 = aten.mean.dim %x {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<3xf32>
  %1 = aten.mean %z : tensor<?x3xf64> -> tensor<f64>
  func.return %0, %1 : tensor<3xf32>, tensor<f64>
}
// CHECK-LABEL: func.func @mean(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %z: tensor<?x3xf64> {te.dims = ["N", 3 : i64]}) -> (tensor<3xf32>, tensor<f64>) {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" {{\[}}[[C3]]] over [%N] : tensor<3xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[J]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[EXTF:%[0-9]+]] = arith.extf [[LOAD]] : f32 to f64
// CHECK-NEXT:   te.yield [[EXTF]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[C3]]] : tensor<3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[R]]{{\[}}[[I]]] : tensor<3xf64> -> f64
// CHECK-NEXT:   [[INDEX_CAST:%[0-9]+]] = arith.index_cast %N : index to i64
// CHECK-NEXT:   [[SITOFP:%[0-9]+]] = arith.sitofp [[INDEX_CAST]] : i64 to f64
// CHECK-NEXT:   [[DIVF:%[0-9]+]] = arith.divf [[LOAD_2]], [[SITOFP]] : f64
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf [[DIVF]] : f64 to f32
// CHECK-NEXT:   te.yield [[TRUNCF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[R_2:%[0-9]+]] = te.reduce "add" [] over [%N, [[C3]]] : tensor<f64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %z{{\[}}[[I]], [[J]]] : tensor<?x3xf64> -> f64
// CHECK-NEXT:   te.yield [[LOAD_3]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [] : tensor<f64> {
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load [[R_2]][] : tensor<f64> -> f64
// CHECK-NEXT:   [[MULI:%[0-9]+]] = arith.muli %N, [[C3]] : index
// CHECK-NEXT:   [[INDEX_CAST_2:%[0-9]+]] = arith.index_cast [[MULI]] : index to i64
// CHECK-NEXT:   [[SITOFP_2:%[0-9]+]] = arith.sitofp [[INDEX_CAST_2]] : i64 to f64
// CHECK-NEXT:   [[DIVF_2:%[0-9]+]] = arith.divf [[LOAD_4]], [[SITOFP_2]] : f64
// CHECK-NEXT:   te.yield [[DIVF_2]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<3xf32>, tensor<f64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// amax and amin: "max" / "min" reductions. The f64 rule is applied to them too: amin
// over the dynamic axis reduces in f64 then truncates (exact, though not needed).
func.func @amax_amin(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> (tensor<?x1xf32>, tensor<3xf32>) {
  %0 = aten.amax %x {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  %1 = aten.amin %x {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<3xf32>
  func.return %0, %1 : tensor<?x1xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @amax_amin(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<?x1xf32>, tensor<3xf32>) {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "max" [%N, [[C1]]] over {{\[}}[[C3]]] : tensor<?x1xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[K]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[R_2:%[0-9]+]] = te.reduce "min" {{\[}}[[C3]]] over [%N] : tensor<3xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %x{{\[}}[[J]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[EXTF:%[0-9]+]] = arith.extf [[LOAD_2]] : f32 to f64
// CHECK-NEXT:   te.yield [[EXTF]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[C3]]] : tensor<3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load [[R_2]]{{\[}}[[I]]] : tensor<3xf64> -> f64
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf [[LOAD_3]] : f64 to f32
// CHECK-NEXT:   te.yield [[TRUNCF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[R]], [[T]] : tensor<?x1xf32>, tensor<3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// linalg_vector_norm: default ord 2 is sqrt(sum |x|^2) (|x| * |x|); ord 1 is sum |x|
// (followed by a te.compute that only copies it: the finish step is the identity);
// ord inf is max |x|; ord 3 is (sum |x|^3)^(1/3) with powf; over the dynamic axis
// the sum accumulates in f64.
func.func @norm(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>, tensor<3xf32>) {
  %one = arith.constant 1.000000e+00 : f64
  %inf = arith.constant 0x7FF0000000000000 : f64
  %three = arith.constant 3.000000e+00 : f64
  %0 = aten.linalg_vector_norm %x {dim = array<i64: -1>} : tensor<?x3xf32> -> tensor<?xf32>
  %1 = aten.linalg_vector_norm %x ord %one : f64 {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  %2 = aten.linalg_vector_norm %x ord %inf : f64 {dim = array<i64: 1>} : tensor<?x3xf32> -> tensor<?xf32>
  %3 = aten.linalg_vector_norm %x ord %three : f64 {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<3xf32>
  func.return %0, %1, %2, %3 : tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @norm(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>, tensor<3xf32>) {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %one = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %inf = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT: %three = arith.constant 3.000000e+00 : f64
// CHECK-NEXT: [[R:%[0-9]+]] = te.reduce "add" [%N] over {{\[}}[[C3]]] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[ABSF:%[0-9]+]] = math.absf [[LOAD]] : f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[ABSF]], [[ABSF]] : f32
// CHECK-NEXT:   te.yield [[MULF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load [[R]]{{\[}}[[I]]] : tensor<?xf32> -> f32
// CHECK-NEXT:   [[SQRT:%[0-9]+]] = math.sqrt [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[SQRT]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[R_2:%[0-9]+]] = te.reduce "add" [%N, [[C1]]] over {{\[}}[[C3]]] : tensor<?x1xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_3:%[0-9]+]] = te.load %x{{\[}}[[I]], [[K]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[ABSF_2:%[0-9]+]] = math.absf [[LOAD_3]] : f32
// CHECK-NEXT:   te.yield [[ABSF_2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C1]]] : tensor<?x1xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_4:%[0-9]+]] = te.load [[R_2]]{{\[}}[[I]], [[J]]] : tensor<?x1xf32> -> f32
// CHECK-NEXT:   te.yield [[LOAD_4]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[R_3:%[0-9]+]] = te.reduce "max" [%N] over {{\[}}[[C3]]] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_5:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[ABSF_3:%[0-9]+]] = math.absf [[LOAD_5]] : f32
// CHECK-NEXT:   te.yield [[ABSF_3]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[R_4:%[0-9]+]] = te.reduce "add" {{\[}}[[C3]]] over [%N] : tensor<3xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_6:%[0-9]+]] = te.load %x{{\[}}[[J]], [[I]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:   [[EXTF:%[0-9]+]] = arith.extf [[LOAD_6]] : f32 to f64
// CHECK-NEXT:   [[ABSF_4:%[0-9]+]] = math.absf [[EXTF]] : f64
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:   [[POWF:%[0-9]+]] = math.powf [[ABSF_4]], [[CST]] : f64
// CHECK-NEXT:   te.yield [[POWF]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute {{\[}}[[C3]]] : tensor<3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD_7:%[0-9]+]] = te.load [[R_4]]{{\[}}[[I]]] : tensor<3xf64> -> f64
// CHECK-NEXT:   [[CST_2:%[0-9]+]] = arith.constant 0.33333333333333331 : f64
// CHECK-NEXT:   [[POWF_2:%[0-9]+]] = math.powf [[LOAD_7]], [[CST_2]] : f64
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf [[POWF_2]] : f64 to f32
// CHECK-NEXT:   te.yield [[TRUNCF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]], [[R_3]], [[T_3]] : tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>, tensor<3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// cumsum: a te.scan "add" along the dim, over the terms converted to the accumulator
// (f64 for f32 along the dynamic dim), then converted back: one pass, not a reduction
// per element.
func.func @cumsum(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> tensor<?x3xf32> {
  %0 = aten.cumsum %x {dim = 0 : i64} : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @cumsum(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> tensor<?x3xf32> {
// CHECK-NEXT:    [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:    [[TERMS:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf64> {
// CHECK-NEXT:    ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:      [[X:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:      [[W:%[0-9]+]] = arith.extf [[X]] : f32 to f64
// CHECK-NEXT:      te.yield [[W]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[SCAN:%[0-9]+]] = te.scan "add" [[TERMS]] {dim = 0 : i64} : tensor<?x3xf64> -> tensor<?x3xf64>
// CHECK-NEXT:    [[OUT:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT:    ^bb0([[I2:%[0-9]+]]: index, [[J2:%[0-9]+]]: index):
// CHECK-NEXT:      [[S:%[0-9]+]] = te.load [[SCAN]]{{\[}}[[I2]], [[J2]]] : tensor<?x3xf64> -> f64
// CHECK-NEXT:      [[T:%[0-9]+]] = arith.truncf [[S]] : f64 to f32
// CHECK-NEXT:      te.yield [[T]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[OUT]] : tensor<?x3xf32>
// CHECK-NEXT:  }
// CHECK-NOT: aten.
// CHECK: {{^}}}
