// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s

// lower-aten-to-tensorexpr, factories and sizes: full, full_like, scalar_tensor and
// empty_permuted are a te.compute whose body yields the fill value (a constant of
// the element type when the value is a constant, else the converted SSA value;
// empty is zero-filled); arange.start_step computes start + i * step, its dynamic
// extent ceil((end - start) / step) in f64; aten.weight becomes te.weight; sym_size
// and sym_numel become the index values of the extents.

// CHECK: builtin.module {
// CHECK-NOT: aten.

// full with constant fill values (f64 0.0 into f32, i1 true, i64 1 into a rank-0 i64).
func.func @full(%N: index) -> (tensor<?x3xf32>, tensor<?xi1>, tensor<i64>) {
  %c3 = arith.constant 3 : index
  %f0 = arith.constant 0.000000e+00 : f64
  %t = arith.constant true
  %i1 = arith.constant 1 : i64
  %0 = aten.full [%N, %c3], %f0 : f64 -> tensor<?x3xf32>
  %1 = aten.full [%N], %t : i1 -> tensor<?xi1>
  %2 = aten.full [], %i1 : i64 -> tensor<i64>
  func.return %0, %1, %2 : tensor<?x3xf32>, tensor<?xi1>, tensor<i64>
}
// CHECK-LABEL: func.func @full(%N: index) -> (tensor<?x3xf32>, tensor<?xi1>, tensor<i64>) {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: %f0 = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %t = arith.constant true
// CHECK-NEXT: %i1 = arith.constant 1 : i64
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   te.yield [[CST]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N] : tensor<?xi1> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[CST_2:%[0-9]+]] = arith.constant true
// CHECK-NEXT:   te.yield [[CST_2]] : i1
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [] : tensor<i64> {
// CHECK-NEXT:   [[CST_3:%[0-9]+]] = arith.constant 1 : i64
// CHECK-NEXT:   te.yield [[CST_3]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]], [[T_3]] : tensor<?x3xf32>, tensor<?xi1>, tensor<i64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// full_like takes the extents of its operand; the fill converted to the result
// dtype (an i64 0 into f32, an f64 1.0 into i64); a computed fill value (here an
// index symbol) is converted in the body.
func.func @full_like(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> (tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32>) {
  %i0 = arith.constant 0 : i64
  %f1 = arith.constant 1.000000e+00 : f64
  %0 = aten.full_like %x, %i0 : tensor<?x3xf32>, i64 -> tensor<?x3xf32>
  %1 = aten.full_like %x, %f1 : tensor<?x3xf32>, f64 -> tensor<?x3xi64>
  %2 = aten.full_like %x, %N : tensor<?x3xf32>, index -> tensor<?x3xf32>
  func.return %0, %1, %2 : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @full_like(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> (tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32>) {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %i0 = arith.constant 0 : i64
// CHECK-NEXT: %f1 = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   te.yield [[CST]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[CST_2:%[0-9]+]] = arith.constant 1 : i64
// CHECK-NEXT:   te.yield [[CST_2]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[T_3:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[INDEX_CAST:%[0-9]+]] = arith.index_cast %N : index to i64
// CHECK-NEXT:   [[SITOFP:%[0-9]+]] = arith.sitofp [[INDEX_CAST]] : i64 to f32
// CHECK-NEXT:   te.yield [[SITOFP]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]], [[T_3]] : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// scalar_tensor: a rank-0 te.compute (no extents, no block arguments).
func.func @scalar_tensor(%N: index) -> (tensor<f32>, tensor<i64>) {
  %f = arith.constant -4.500000e+00 : f64
  %0 = aten.scalar_tensor %f : f64 -> tensor<f32>
  %1 = aten.scalar_tensor %N : index -> tensor<i64>
  func.return %0, %1 : tensor<f32>, tensor<i64>
}
// CHECK-LABEL: func.func @scalar_tensor(%N: index) -> (tensor<f32>, tensor<i64>) {
// CHECK-NEXT: %f = arith.constant -4.500000e+00 : f64
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [] : tensor<f32> {
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant -4.500000e+00 : f32
// CHECK-NEXT:   te.yield [[CST]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute [] : tensor<i64> {
// CHECK-NEXT:   [[INDEX_CAST:%[0-9]+]] = arith.index_cast %N : index to i64
// CHECK-NEXT:   te.yield [[INDEX_CAST]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<f32>, tensor<i64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// empty_permuted and empty.memory_format: zero-filled (deterministic).
func.func @empty(%N: index) -> (tensor<?x3xf32>, tensor<3x?xf64>) {
  %c3 = arith.constant 3 : index
  %0 = aten.empty_permuted [%N, %c3] {physical_layout = array<i64: 0, 1>} : tensor<?x3xf32>
  %1 = aten.empty.memory_format [%c3, %N] : tensor<3x?xf64>
  func.return %0, %1 : tensor<?x3xf32>, tensor<3x?xf64>
}
// CHECK-LABEL: func.func @empty(%N: index) -> (tensor<?x3xf32>, tensor<3x?xf64>) {
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C3]]] : tensor<?x3xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   te.yield [[CST]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute {{\[}}[[C3]], %N] : tensor<3x?xf64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[CST_2:%[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:   te.yield [[CST_2]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<?x3xf32>, tensor<3x?xf64>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// arange.start_step: over a dynamic extent max(ceil((end - start) / step), 0),
// computed in f64 then cast to index; the default step is 1.
func.func @arange(%N: index) -> (tensor<?xi64>, tensor<?xf32>) {
  %i0 = arith.constant 0 : i64
  %f0 = arith.constant 0.000000e+00 : f64
  %f1 = arith.constant 1.000000e+00 : f64
  %h = arith.constant 2.500000e-01 : f64
  %0 = aten.arange.start_step %i0, %N : i64, index -> tensor<?xi64>
  %1 = aten.arange.start_step %f0, %f1 step %h : f64 : f64, f64 -> tensor<?xf32>
  func.return %0, %1 : tensor<?xi64>, tensor<?xf32>
}
// CHECK-LABEL: func.func @arange(%N: index) -> (tensor<?xi64>, tensor<?xf32>) {
// CHECK-NEXT: %i0 = arith.constant 0 : i64
// CHECK-NEXT: %f0 = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %f1 = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %h = arith.constant 2.500000e-01 : f64
// CHECK-NEXT: [[CST:%[0-9]+]] = arith.constant 1 : i64
// CHECK-NEXT: [[SITOFP:%[0-9]+]] = arith.sitofp %i0 : i64 to f64
// CHECK-NEXT: [[INDEX_CAST:%[0-9]+]] = arith.index_cast %N : index to i64
// CHECK-NEXT: [[SITOFP_2:%[0-9]+]] = arith.sitofp [[INDEX_CAST]] : i64 to f64
// CHECK-NEXT: [[SITOFP_3:%[0-9]+]] = arith.sitofp [[CST]] : i64 to f64
// CHECK-NEXT: [[SUBF:%[0-9]+]] = arith.subf [[SITOFP_2]], [[SITOFP]] : f64
// CHECK-NEXT: [[DIVF:%[0-9]+]] = arith.divf [[SUBF]], [[SITOFP_3]] : f64
// CHECK-NEXT: [[CEIL:%[0-9]+]] = math.ceil [[DIVF]] : f64
// CHECK-NEXT: [[CST_2:%[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: [[MAXIMUMF:%[0-9]+]] = arith.maximumf [[CEIL]], [[CST_2]] : f64
// CHECK-NEXT: [[FPTOSI:%[0-9]+]] = arith.fptosi [[MAXIMUMF]] : f64 to i64
// CHECK-NEXT: [[INDEX_CAST_2:%[0-9]+]] = arith.index_cast [[FPTOSI]] : i64 to index
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute {{\[}}[[INDEX_CAST_2]]] : tensor<?xi64> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[INDEX_CAST_3:%[0-9]+]] = arith.index_cast [[I]] : index to i64
// CHECK-NEXT:   [[MULI:%[0-9]+]] = arith.muli [[INDEX_CAST_3]], [[CST]] : i64
// CHECK-NEXT:   [[ADDI:%[0-9]+]] = arith.addi %i0, [[MULI]] : i64
// CHECK-NEXT:   te.yield [[ADDI]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: [[SUBF_2:%[0-9]+]] = arith.subf %f1, %f0 : f64
// CHECK-NEXT: [[DIVF_2:%[0-9]+]] = arith.divf [[SUBF_2]], %h : f64
// CHECK-NEXT: [[CEIL_2:%[0-9]+]] = math.ceil [[DIVF_2]] : f64
// CHECK-NEXT: [[CST_3:%[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: [[MAXIMUMF_2:%[0-9]+]] = arith.maximumf [[CEIL_2]], [[CST_3]] : f64
// CHECK-NEXT: [[FPTOSI_2:%[0-9]+]] = arith.fptosi [[MAXIMUMF_2]] : f64 to i64
// CHECK-NEXT: [[INDEX_CAST_4:%[0-9]+]] = arith.index_cast [[FPTOSI_2]] : i64 to index
// CHECK-NEXT: [[T_2:%[0-9]+]] = te.compute {{\[}}[[INDEX_CAST_4]]] : tensor<?xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:   [[INDEX_CAST_5:%[0-9]+]] = arith.index_cast [[I]] : index to i64
// CHECK-NEXT:   [[SITOFP_4:%[0-9]+]] = arith.sitofp [[INDEX_CAST_5]] : i64 to f32
// CHECK-NEXT:   [[TRUNCF:%[0-9]+]] = arith.truncf %f0 : f64 to f32
// CHECK-NEXT:   [[TRUNCF_2:%[0-9]+]] = arith.truncf %h : f64 to f32
// CHECK-NEXT:   [[MULF:%[0-9]+]] = arith.mulf [[SITOFP_4]], [[TRUNCF_2]] : f32
// CHECK-NEXT:   [[ADDF:%[0-9]+]] = arith.addf [[TRUNCF]], [[MULF]] : f32
// CHECK-NEXT:   te.yield [[ADDF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]], [[T_2]] : tensor<?xi64>, tensor<?xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// aten.weight becomes te.weight of the same name and type, read where it is used.
func.func @weight(%N: index, %x: tensor<?x16xf32> {aten.dims = ["N", 16 : i64]}) -> tensor<?x16xf32> {
  %w = aten.weight "_tensor_constant0" : tensor<16xf32>
  %0 = aten.sub.Tensor %x, %w : tensor<?x16xf32>, tensor<16xf32> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK-LABEL: func.func @weight(%N: index, %x: tensor<?x16xf32> {te.dims = ["N", 16 : i64]}) -> tensor<?x16xf32> {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: %w = te.weight "_tensor_constant0" : tensor<16xf32>
// CHECK-NEXT: [[T:%[0-9]+]] = te.compute [%N, [[C16]]] : tensor<?x16xf32> {
// CHECK-NEXT: ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-NEXT:   [[LOAD:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x16xf32> -> f32
// CHECK-NEXT:   [[LOAD_2:%[0-9]+]] = te.load %w{{\[}}[[J]]] : tensor<16xf32> -> f32
// CHECK-NEXT:   [[SUBF:%[0-9]+]] = arith.subf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:   te.yield [[SUBF]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[T]] : tensor<?x16xf32>
// CHECK-NEXT: }
// CHECK-NOT: aten.

// sym_size.int is the extent itself (the symbol for a dynamic dim, the constant for
// a static one); sym_numel is the product of the extents.
func.func @sizes(%N: index, %E: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]}) -> (index, index, index, index) {
  %0 = aten.sym_size.int %x {dim = 0 : i64} : tensor<?x3xf32>
  %1 = aten.sym_size.int %ei {dim = -1 : i64} : tensor<2x?xi64>
  %2 = aten.sym_size.int %x {dim = 1 : i64} : tensor<?x3xf32>
  %3 = aten.sym_numel %x : tensor<?x3xf32>
  func.return %0, %1, %2, %3 : index, index, index, index
}
// CHECK-LABEL: func.func @sizes(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}, %ei: tensor<2x?xi64> {te.dims = [2 : i64, "E"]}) -> (index, index, index, index) {
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[MULI:%[0-9]+]] = arith.muli %N, [[C3]] : index
// CHECK-NEXT: func.return %N, %E, [[C3]], [[MULI]] : index, index, index, index
// CHECK-NEXT: }
// CHECK-NOT: aten.
// CHECK: {{^}}}
