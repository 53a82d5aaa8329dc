// RUN: pipeline-opt %s | pipeline-opt | filecheck %s
// RUN: pipeline-opt %s --print-op-generic | pipeline-opt | filecheck %s

// Round trip of every op of the aten dialect (dialects.aten.ATEN_OPS), in its custom
// format, on symbolic shapes. Each CHECK pins the printed form of one op, types included.

// CHECK: builtin.module {

// -----------------------------------------------------------------------------
// Elementwise

func.func @elementwise(%x: tensor<?x3xf32>, %y: tensor<3xf32>, %i: tensor<2x?xi64>, %b: tensor<?x3xi1>) -> tensor<?x3xf32> {
// CHECK-LABEL: func.func @elementwise(%x: tensor<?x3xf32>, %y: tensor<3xf32>, %i: tensor<2x?xi64>, %b: tensor<?x3xi1>) -> tensor<?x3xf32> {
  %c2 = arith.constant 2.000000e+00 : f64
  // CHECK-NEXT: %c2 = arith.constant 2.000000e+00 : f64
  %c1 = arith.constant 1 : i64
  // CHECK-NEXT: %c1 = arith.constant 1 : i64

  // Elementwise, unary: the result has the operand's shape; _to_copy changes dtype.
  %n = aten.neg %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %n = aten.neg %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %a = aten.abs %i : tensor<2x?xi64> -> tensor<2x?xi64>
  // CHECK-NEXT: %a = aten.abs %i : tensor<2x?xi64> -> tensor<2x?xi64>
  %s = aten.sign %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %s = aten.sign %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %r = aten.relu %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %r = aten.relu %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %bn = aten.bitwise_not %i : tensor<2x?xi64> -> tensor<2x?xi64>
  // CHECK-NEXT: %bn = aten.bitwise_not %i : tensor<2x?xi64> -> tensor<2x?xi64>
  %ln = aten.logical_not %b : tensor<?x3xi1> -> tensor<?x3xi1>
  // CHECK-NEXT: %ln = aten.logical_not %b : tensor<?x3xi1> -> tensor<?x3xi1>
  %isnan = aten.isnan %x : tensor<?x3xf32> -> tensor<?x3xi1>
  // CHECK-NEXT: %isnan = aten.isnan %x : tensor<?x3xf32> -> tensor<?x3xi1>
  %al = aten.alias %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %al = aten.alias %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %cl = aten.clone %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %cl = aten.clone %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %lf = aten.lift_fresh_copy %y : tensor<3xf32> -> tensor<3xf32>
  // CHECK-NEXT: %lf = aten.lift_fresh_copy %y : tensor<3xf32> -> tensor<3xf32>
  %tc = aten._to_copy %i : tensor<2x?xi64> -> tensor<2x?xf64>
  // CHECK-NEXT: %tc = aten._to_copy %i : tensor<2x?xi64> -> tensor<2x?xf64>

  // Elementwise, floating point result.
  %rc = aten.reciprocal %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %rc = aten.reciprocal %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %sq = aten.sqrt %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sq = aten.sqrt %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %rs = aten.rsqrt %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %rs = aten.rsqrt %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %ex = aten.exp %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ex = aten.exp %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %em = aten.expm1 %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %em = aten.expm1 %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %lg = aten.log %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %lg = aten.log %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %l1 = aten.log1p %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %l1 = aten.log1p %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %si = aten.sin %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %si = aten.sin %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %co = aten.cos %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %co = aten.cos %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %th = aten.tanh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %th = aten.tanh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %sg = aten.sigmoid %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sg = aten.sigmoid %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %ef = aten.erf %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ef = aten.erf %x : tensor<?x3xf32> -> tensor<?x3xf32>

  // Elementwise, binary with broadcasting (?x3 against 3); alpha optional.
  %add = aten.add.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %add = aten.add.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %adda = aten.add.Tensor %x, %y alpha %c2 : f64 : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %adda = aten.add.Tensor %x, %y alpha %c2 : f64 : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %sub = aten.sub.Tensor %x, %x : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sub = aten.sub.Tensor %x, %x : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %suba = aten.sub.Tensor %i, %i alpha %c1 : i64 : tensor<2x?xi64>, tensor<2x?xi64> -> tensor<2x?xi64>
  // CHECK-NEXT: %suba = aten.sub.Tensor %i, %i alpha %c1 : i64 : tensor<2x?xi64>, tensor<2x?xi64> -> tensor<2x?xi64>
  %mul = aten.mul.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %mul = aten.mul.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %div = aten.div.Tensor %y, %x : tensor<3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %div = aten.div.Tensor %y, %x : tensor<3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %max = aten.maximum %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %max = aten.maximum %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %min = aten.minimum %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %min = aten.minimum %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %cmt = aten.clamp_min.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %cmt = aten.clamp_min.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %at = aten.atan2 %x, %x : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %at = aten.atan2 %x, %x : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %band = aten.bitwise_and.Tensor %i, %i : tensor<2x?xi64>, tensor<2x?xi64> -> tensor<2x?xi64>
  // CHECK-NEXT: %band = aten.bitwise_and.Tensor %i, %i : tensor<2x?xi64>, tensor<2x?xi64> -> tensor<2x?xi64>
  %bor = aten.bitwise_or.Tensor %b, %b : tensor<?x3xi1>, tensor<?x3xi1> -> tensor<?x3xi1>
  // CHECK-NEXT: %bor = aten.bitwise_or.Tensor %b, %b : tensor<?x3xi1>, tensor<?x3xi1> -> tensor<?x3xi1>

  // pow, clamp (either bound optional), where.
  %pw = aten.pow.Tensor_Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %pw = aten.pow.Tensor_Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %clmin = aten.clamp %x min %c2 : f64 : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %clmin = aten.clamp %x min %c2 : f64 : tensor<?x3xf32> -> tensor<?x3xf32>
  %clmax = aten.clamp %x max %c2 : f64 : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %clmax = aten.clamp %x max %c2 : f64 : tensor<?x3xf32> -> tensor<?x3xf32>
  %clboth = aten.clamp %i min %c1 : i64 max %c1 : i64 : tensor<2x?xi64> -> tensor<2x?xi64>
  // CHECK-NEXT: %clboth = aten.clamp %i min %c1 : i64 max %c1 : i64 : tensor<2x?xi64> -> tensor<2x?xi64>
  %wh = aten.where.self %b, %x, %y : tensor<?x3xi1>, tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %wh = aten.where.self %b, %x, %y : tensor<?x3xi1>, tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  func.return %wh : tensor<?x3xf32>
  // CHECK-NEXT: func.return %wh : tensor<?x3xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Scalar operands

func.func @scalar(%x: tensor<?x3xf32>, %i: tensor<2x?xi64>, %N: index) -> tensor<?x3xf32> {
// CHECK-LABEL: func.func @scalar(%x: tensor<?x3xf32>, %i: tensor<2x?xi64>, %N: index) -> tensor<?x3xf32> {
  %c2 = arith.constant 2.000000e+00 : f64
  // CHECK-NEXT: %c2 = arith.constant 2.000000e+00 : f64
  %c1 = arith.constant 1 : i64
  // CHECK-NEXT: %c1 = arith.constant 1 : i64

  // Tensor-scalar: Scalar operands are f64, i64 or index SSA values.
  %ms = aten.mul.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %ms = aten.mul.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %ds = aten.div.Scalar %x, %N : tensor<?x3xf32>, index -> tensor<?x3xf32>
  // CHECK-NEXT: %ds = aten.div.Scalar %x, %N : tensor<?x3xf32>, index -> tensor<?x3xf32>
  %as = aten.add.Scalar %i, %c1 : tensor<2x?xi64>, i64 -> tensor<2x?xi64>
  // CHECK-NEXT: %as = aten.add.Scalar %i, %c1 : tensor<2x?xi64>, i64 -> tensor<2x?xi64>
  %asa = aten.add.Scalar %x, %c2 alpha %c2 : f64 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %asa = aten.add.Scalar %x, %c2 alpha %c2 : f64 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %ss = aten.sub.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %ss = aten.sub.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %ssa = aten.sub.Scalar %i, %c1 alpha %c1 : i64 : tensor<2x?xi64>, i64 -> tensor<2x?xi64>
  // CHECK-NEXT: %ssa = aten.sub.Scalar %i, %c1 alpha %c1 : i64 : tensor<2x?xi64>, i64 -> tensor<2x?xi64>
  %pts = aten.pow.Tensor_Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %pts = aten.pow.Tensor_Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %pti = aten.pow.Tensor_Scalar %i, %c1 : tensor<2x?xi64>, i64 -> tensor<2x?xi64>
  // CHECK-NEXT: %pti = aten.pow.Tensor_Scalar %i, %c1 : tensor<2x?xi64>, i64 -> tensor<2x?xi64>
  %ps = aten.pow.Scalar %c2, %x : f64, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ps = aten.pow.Scalar %c2, %x : f64, tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %ps : tensor<?x3xf32>
  // CHECK-NEXT: func.return %ps : tensor<?x3xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Comparison

func.func @comparison(%x: tensor<?x3xf32>, %y: tensor<3xf32>, %i: tensor<2x?xi64>, %b: tensor<?x3xi1>) -> tensor<2x?xi1> {
// CHECK-LABEL: func.func @comparison(%x: tensor<?x3xf32>, %y: tensor<3xf32>, %i: tensor<2x?xi64>, %b: tensor<?x3xi1>) -> tensor<2x?xi1> {
  %c2 = arith.constant 2.000000e+00 : f64
  // CHECK-NEXT: %c2 = arith.constant 2.000000e+00 : f64
  %c1 = arith.constant 1 : i64
  // CHECK-NEXT: %c1 = arith.constant 1 : i64
  %t = arith.constant true
  // CHECK-NEXT: %t = arith.constant true

  // Comparisons and logical ops: i1 results, broadcasting.
  %eq = aten.eq.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi1>
  // CHECK-NEXT: %eq = aten.eq.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi1>
  %ne = aten.ne.Tensor %i, %i : tensor<2x?xi64>, tensor<2x?xi64> -> tensor<2x?xi1>
  // CHECK-NEXT: %ne = aten.ne.Tensor %i, %i : tensor<2x?xi64>, tensor<2x?xi64> -> tensor<2x?xi1>
  %lt = aten.lt.Tensor %x, %x : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xi1>
  // CHECK-NEXT: %lt = aten.lt.Tensor %x, %x : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xi1>
  %le = aten.le.Tensor %y, %x : tensor<3xf32>, tensor<?x3xf32> -> tensor<?x3xi1>
  // CHECK-NEXT: %le = aten.le.Tensor %y, %x : tensor<3xf32>, tensor<?x3xf32> -> tensor<?x3xi1>
  %gt = aten.gt.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi1>
  // CHECK-NEXT: %gt = aten.gt.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi1>
  %ge = aten.ge.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi1>
  // CHECK-NEXT: %ge = aten.ge.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi1>
  %land = aten.logical_and %b, %eq : tensor<?x3xi1>, tensor<?x3xi1> -> tensor<?x3xi1>
  // CHECK-NEXT: %land = aten.logical_and %b, %eq : tensor<?x3xi1>, tensor<?x3xi1> -> tensor<?x3xi1>
  %lor = aten.logical_or %b, %x : tensor<?x3xi1>, tensor<?x3xf32> -> tensor<?x3xi1>
  // CHECK-NEXT: %lor = aten.logical_or %b, %x : tensor<?x3xi1>, tensor<?x3xf32> -> tensor<?x3xi1>

  // Comparisons against a scalar (f64, i64, i1).
  %eqs = aten.eq.Scalar %i, %c1 : tensor<2x?xi64>, i64 -> tensor<2x?xi1>
  // CHECK-NEXT: %eqs = aten.eq.Scalar %i, %c1 : tensor<2x?xi64>, i64 -> tensor<2x?xi1>
  %nes = aten.ne.Scalar %b, %t : tensor<?x3xi1>, i1 -> tensor<?x3xi1>
  // CHECK-NEXT: %nes = aten.ne.Scalar %b, %t : tensor<?x3xi1>, i1 -> tensor<?x3xi1>
  %lts = aten.lt.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  // CHECK-NEXT: %lts = aten.lt.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  %les = aten.le.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  // CHECK-NEXT: %les = aten.le.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  %gts = aten.gt.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  // CHECK-NEXT: %gts = aten.gt.Scalar %x, %c2 : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  %ges = aten.ge.Scalar %i, %c1 : tensor<2x?xi64>, i64 -> tensor<2x?xi1>
  // CHECK-NEXT: %ges = aten.ge.Scalar %i, %c1 : tensor<2x?xi64>, i64 -> tensor<2x?xi1>
  func.return %ges : tensor<2x?xi1>
  // CHECK-NEXT: func.return %ges : tensor<2x?xi1>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Reductions

func.func @reductions(%x: tensor<?x3xf32>, %z: tensor<4x?x3xf64>) -> tensor<f32> {
// CHECK-LABEL: func.func @reductions(%x: tensor<?x3xf32>, %z: tensor<4x?x3xf64>) -> tensor<f32> {
  %c2 = arith.constant 2.000000e+00 : f64
  // CHECK-NEXT: %c2 = arith.constant 2.000000e+00 : f64

  // Reductions over dim (negative dims, keepdim, all dims when dim is absent).
  %s1 = aten.sum.dim_IntList %x {dim = array<i64: 1>} : tensor<?x3xf32> -> tensor<?xf32>
  // CHECK-NEXT: %s1 = aten.sum.dim_IntList %x {dim = array<i64: 1>} : tensor<?x3xf32> -> tensor<?xf32>
  %s2 = aten.sum.dim_IntList %x {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  // CHECK-NEXT: %s2 = aten.sum.dim_IntList %x {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  %s3 = aten.sum.dim_IntList %z {dim = array<i64: 0, -1>} : tensor<4x?x3xf64> -> tensor<?xf64>
  // CHECK-NEXT: %s3 = aten.sum.dim_IntList %z {dim = array<i64: 0, -1>} : tensor<4x?x3xf64> -> tensor<?xf64>
  %s4 = aten.sum.dim_IntList %z : tensor<4x?x3xf64> -> tensor<f64>
  // CHECK-NEXT: %s4 = aten.sum.dim_IntList %z : tensor<4x?x3xf64> -> tensor<f64>
  %m1 = aten.mean.dim %x {dim = array<i64: 0>, keepdim = true} : tensor<?x3xf32> -> tensor<1x3xf32>
  // CHECK-NEXT: %m1 = aten.mean.dim %x {dim = array<i64: 0>, keepdim = true} : tensor<?x3xf32> -> tensor<1x3xf32>
  %m2 = aten.mean.dim %z {dim = array<i64: -2>} : tensor<4x?x3xf64> -> tensor<4x3xf64>
  // CHECK-NEXT: %m2 = aten.mean.dim %z {dim = array<i64: -2>} : tensor<4x?x3xf64> -> tensor<4x3xf64>
  %mx = aten.amax %x {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  // CHECK-NEXT: %mx = aten.amax %x {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  %mn = aten.amin %x {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<3xf32>
  // CHECK-NEXT: %mn = aten.amin %x {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<3xf32>

  // Full reductions, and the vector norm with and without ord.
  %sa = aten.sum %x : tensor<?x3xf32> -> tensor<f32>
  // CHECK-NEXT: %sa = aten.sum %x : tensor<?x3xf32> -> tensor<f32>
  %ma = aten.mean %z : tensor<4x?x3xf64> -> tensor<f64>
  // CHECK-NEXT: %ma = aten.mean %z : tensor<4x?x3xf64> -> tensor<f64>
  %nrm = aten.linalg_vector_norm %x {dim = array<i64: 1>} : tensor<?x3xf32> -> tensor<?xf32>
  // CHECK-NEXT: %nrm = aten.linalg_vector_norm %x {dim = array<i64: 1>} : tensor<?x3xf32> -> tensor<?xf32>
  %nrmo = aten.linalg_vector_norm %x ord %c2 : f64 {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  // CHECK-NEXT: %nrmo = aten.linalg_vector_norm %x ord %c2 : f64 {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  %nrma = aten.linalg_vector_norm %z : tensor<4x?x3xf64> -> tensor<f64>
  // CHECK-NEXT: %nrma = aten.linalg_vector_norm %z : tensor<4x?x3xf64> -> tensor<f64>
  func.return %sa : tensor<f32>
  // CHECK-NEXT: func.return %sa : tensor<f32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Matmul

func.func @matmul(%x: tensor<?x3xf32>, %w: tensor<3x16xf32>, %bias: tensor<16xf32>, %p: tensor<?x8x3xf32>, %q: tensor<?x3x?xf32>) -> tensor<?x16xf32> {
// CHECK-LABEL: func.func @matmul(%x: tensor<?x3xf32>, %w: tensor<3x16xf32>, %bias: tensor<16xf32>, %p: tensor<?x8x3xf32>, %q: tensor<?x3x?xf32>) -> tensor<?x16xf32> {
  %c2 = arith.constant 2.000000e+00 : f64
  // CHECK-NEXT: %c2 = arith.constant 2.000000e+00 : f64
  %c1 = arith.constant 1 : i64
  // CHECK-NEXT: %c1 = arith.constant 1 : i64

  // Matrix products; addmm with beta and alpha present and absent.
  %mm = aten.mm %x, %w : tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  // CHECK-NEXT: %mm = aten.mm %x, %w : tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  %bmm = aten.bmm %p, %q : tensor<?x8x3xf32>, tensor<?x3x?xf32> -> tensor<?x8x?xf32>
  // CHECK-NEXT: %bmm = aten.bmm %p, %q : tensor<?x8x3xf32>, tensor<?x3x?xf32> -> tensor<?x8x?xf32>
  %am = aten.addmm %bias, %x, %w : tensor<16xf32>, tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  // CHECK-NEXT: %am = aten.addmm %bias, %x, %w : tensor<16xf32>, tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  %amb = aten.addmm %bias, %x, %w beta %c1 : i64 alpha %c2 : f64 : tensor<16xf32>, tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  // CHECK-NEXT: %amb = aten.addmm %bias, %x, %w beta %c1 : i64 alpha %c2 : f64 : tensor<16xf32>, tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  %ama = aten.addmm %mm, %x, %w alpha %c2 : f64 : tensor<?x16xf32>, tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  // CHECK-NEXT: %ama = aten.addmm %mm, %x, %w alpha %c2 : f64 : tensor<?x16xf32>, tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
  func.return %am : tensor<?x16xf32>
  // CHECK-NEXT: func.return %am : tensor<?x16xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Views

func.func @views(%N: index, %x: tensor<?x3xf32>, %i: tensor<2x?xi64>) -> tensor<?xf32> {
// CHECK-LABEL: func.func @views(%N: index, %x: tensor<?x3xf32>, %i: tensor<2x?xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  // CHECK-NEXT: %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK-NEXT: %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // CHECK-NEXT: %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  // CHECK-NEXT: %c3 = arith.constant 3 : index
  %m1 = arith.constant -1 : index
  // CHECK-NEXT: %m1 = arith.constant -1 : index
  %n3 = arith.muli %N, %c3 : index
  // CHECK-NEXT: %n3 = arith.muli %N, %c3 : index

  // Reshapes: SymInt[] sizes are index values (-1 allowed).
  %v = aten.view %x, [%n3] : tensor<?x3xf32> -> tensor<?xf32>
  // CHECK-NEXT: %v = aten.view %x, [%n3] : tensor<?x3xf32> -> tensor<?xf32>
  %v2 = aten.view %x, [%N, %c3, %c1] : tensor<?x3xf32> -> tensor<?x3x1xf32>
  // CHECK-NEXT: %v2 = aten.view %x, [%N, %c3, %c1] : tensor<?x3xf32> -> tensor<?x3x1xf32>
  %uv = aten._unsafe_view %i, [%m1] : tensor<2x?xi64> -> tensor<?xi64>
  // CHECK-NEXT: %uv = aten._unsafe_view %i, [%m1] : tensor<2x?xi64> -> tensor<?xi64>
  %e = aten.expand %x, [%c2, %N, %c3] : tensor<?x3xf32> -> tensor<2x?x3xf32>
  // CHECK-NEXT: %e = aten.expand %x, [%c2, %N, %c3] : tensor<?x3xf32> -> tensor<2x?x3xf32>
  %e2 = aten.expand %x, [%m1, %c3] {implicit = true} : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %e2 = aten.expand %x, [%m1, %c3] {implicit = true} : tensor<?x3xf32> -> tensor<?x3xf32>

  // permute, unsqueeze, squeeze.dims, select.int.
  %pm = aten.permute %x {dims = array<i64: 1, 0>} : tensor<?x3xf32> -> tensor<3x?xf32>
  // CHECK-NEXT: %pm = aten.permute %x {dims = array<i64: 1, 0>} : tensor<?x3xf32> -> tensor<3x?xf32>
  %pm2 = aten.permute %v2 {dims = array<i64: 2, 0, -2>} : tensor<?x3x1xf32> -> tensor<1x?x3xf32>
  // CHECK-NEXT: %pm2 = aten.permute %v2 {dims = array<i64: 2, 0, -2>} : tensor<?x3x1xf32> -> tensor<1x?x3xf32>
  %us = aten.unsqueeze %x {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x1x3xf32>
  // CHECK-NEXT: %us = aten.unsqueeze %x {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x1x3xf32>
  %us2 = aten.unsqueeze %x {dim = -1 : i64} : tensor<?x3xf32> -> tensor<?x3x1xf32>
  // CHECK-NEXT: %us2 = aten.unsqueeze %x {dim = -1 : i64} : tensor<?x3xf32> -> tensor<?x3x1xf32>
  %sq = aten.squeeze.dims %v2 {dim = array<i64: 2>} : tensor<?x3x1xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sq = aten.squeeze.dims %v2 {dim = array<i64: 2>} : tensor<?x3x1xf32> -> tensor<?x3xf32>
  %sq2 = aten.squeeze.dims %v2 {dim = array<i64: 1, -1>} : tensor<?x3x1xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sq2 = aten.squeeze.dims %v2 {dim = array<i64: 1, -1>} : tensor<?x3x1xf32> -> tensor<?x3xf32>
  %sel = aten.select.int %x, %c1 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?xf32>
  // CHECK-NEXT: %sel = aten.select.int %x, %c1 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?xf32>
  %sel2 = aten.select.int %i, %c0 {dim = 0 : i64} : tensor<2x?xi64> -> tensor<?xi64>
  // CHECK-NEXT: %sel2 = aten.select.int %i, %c0 {dim = 0 : i64} : tensor<2x?xi64> -> tensor<?xi64>

  // slice.Tensor with start/end/step each optional, dim defaulting to 0.
  %sl = aten.slice.Tensor %x start %c1 end %N step %c2 : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sl = aten.slice.Tensor %x start %c1 end %N step %c2 : tensor<?x3xf32> -> tensor<?x3xf32>
  %sl2 = aten.slice.Tensor %x end %c2 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x?xf32>
  // CHECK-NEXT: %sl2 = aten.slice.Tensor %x end %c2 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x?xf32>
  %sl3 = aten.slice.Tensor %i start %c1 {dim = -1 : i64} : tensor<2x?xi64> -> tensor<2x?xi64>
  // CHECK-NEXT: %sl3 = aten.slice.Tensor %i start %c1 {dim = -1 : i64} : tensor<2x?xi64> -> tensor<2x?xi64>
  %sl4 = aten.slice.Tensor %x step %c2 : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sl4 = aten.slice.Tensor %x step %c2 : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %v : tensor<?xf32>
  // CHECK-NEXT: func.return %v : tensor<?xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Indexing and scatter

func.func @indexing(%N: index, %E: index, %x: tensor<?x3xf32>, %y: tensor<3xf32>, %ei: tensor<2x?xi64>, %src: tensor<?x3xf32>, %idx: tensor<?xi64>, %gi: tensor<?x3xi64>, %emb: tensor<10x16xf32>, %types: tensor<?xi64>) -> tensor<?x3xf32> {
// CHECK-LABEL: func.func @indexing(%N: index, %E: index, %x: tensor<?x3xf32>, %y: tensor<3xf32>, %ei: tensor<2x?xi64>, %src: tensor<?x3xf32>, %idx: tensor<?xi64>, %gi: tensor<?x3xi64>, %emb: tensor<10x16xf32>, %types: tensor<?xi64>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  // CHECK-NEXT: %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK-NEXT: %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // CHECK-NEXT: %c2 = arith.constant 2 : index
  %f2 = arith.constant 2.000000e+00 : f64
  // CHECK-NEXT: %f2 = arith.constant 2.000000e+00 : f64

  // cat of a Tensor[] along dim.
  %cat = aten.cat [%x, %src] : [tensor<?x3xf32>, tensor<?x3xf32>] -> tensor<?x3xf32>
  // CHECK-NEXT: %cat = aten.cat [%x, %src] : [tensor<?x3xf32>, tensor<?x3xf32>] -> tensor<?x3xf32>
  %cat1 = aten.cat [%x, %x, %x] {dim = 1 : i64} : [tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>] -> tensor<?x9xf32>
  // CHECK-NEXT: %cat1 = aten.cat [%x, %x, %x] {dim = 1 : i64} : [tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>] -> tensor<?x9xf32>
  %cat2 = aten.cat [%y, %y] {dim = -1 : i64} : [tensor<3xf32>, tensor<3xf32>] -> tensor<6xf32>
  // CHECK-NEXT: %cat2 = aten.cat [%y, %y] {dim = -1 : i64} : [tensor<3xf32>, tensor<3xf32>] -> tensor<6xf32>

  // Advanced indexing by Tensor?[]: indexed_dims says which dims are indexed.
  %it = aten.index.Tensor %x [%idx] {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>] -> tensor<?x3xf32>
  // CHECK-NEXT: %it = aten.index.Tensor %x[%idx] {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>] -> tensor<?x3xf32>
  %it2 = aten.index.Tensor %x [%idx, %idx] {indexed_dims = array<i64: 0, 1>} : tensor<?x3xf32>, [tensor<?xi64>, tensor<?xi64>] -> tensor<?xf32>
  // CHECK-NEXT: %it2 = aten.index.Tensor %x[%idx, %idx] {indexed_dims = array<i64: 0, 1>} : tensor<?x3xf32>, [tensor<?xi64>, tensor<?xi64>] -> tensor<?xf32>
  %it3 = aten.index.Tensor %ei [%idx] {indexed_dims = array<i64: 1>} : tensor<2x?xi64>, [tensor<?xi64>] -> tensor<2x?xi64>
  // CHECK-NEXT: %it3 = aten.index.Tensor %ei[%idx] {indexed_dims = array<i64: 1>} : tensor<2x?xi64>, [tensor<?xi64>] -> tensor<2x?xi64>
  %ip = aten.index_put %x [%idx], %src {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>], tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ip = aten.index_put %x[%idx], %src {indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>], tensor<?x3xf32> -> tensor<?x3xf32>
  %ipa = aten.index_put %x [%idx], %src {accumulate = true, indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>], tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ipa = aten.index_put %x[%idx], %src {accumulate = true, indexed_dims = array<i64: 0>} : tensor<?x3xf32>, [tensor<?xi64>], tensor<?x3xf32> -> tensor<?x3xf32>

  // Indexing and scattering along dim with an integer index tensor.
  %is = aten.index_select %x, %idx {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64> -> tensor<?x3xf32>
  // CHECK-NEXT: %is = aten.index_select %x, %idx {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64> -> tensor<?x3xf32>
  %is2 = aten.index_select %ei, %idx {dim = -1 : i64} : tensor<2x?xi64>, tensor<?xi64> -> tensor<2x?xi64>
  // CHECK-NEXT: %is2 = aten.index_select %ei, %idx {dim = -1 : i64} : tensor<2x?xi64>, tensor<?xi64> -> tensor<2x?xi64>
  %ga = aten.gather %x, %gi {dim = 1 : i64} : tensor<?x3xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  // CHECK-NEXT: %ga = aten.gather %x, %gi {dim = 1 : i64} : tensor<?x3xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  %ga2 = aten.gather %x, %gi {dim = 0 : i64, sparse_grad = false} : tensor<?x3xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  // CHECK-NEXT: %ga2 = aten.gather %x, %gi {dim = 0 : i64, sparse_grad = false} : tensor<?x3xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  %sa = aten.scatter_add %x, %gi, %src {dim = 0 : i64} : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sa = aten.scatter_add %x, %gi, %src {dim = 0 : i64} : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  %ia = aten.index_add %x, %idx, %src {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ia = aten.index_add %x, %idx, %src {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  %iaa = aten.index_add %x, %idx, %src alpha %f2 : f64 {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %iaa = aten.index_add %x, %idx, %src alpha %f2 : f64 {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32> -> tensor<?x3xf32>

  // slice_scatter and select_scatter.
  %ss = aten.slice_scatter %x, %src start %c0 end %N : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ss = aten.slice_scatter %x, %src start %c0 end %N : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %ss2 = aten.slice_scatter %x, %src step %c2 {dim = 1 : i64} : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ss2 = aten.slice_scatter %x, %src step %c2 {dim = 1 : i64} : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %sc = aten.select_scatter %x, %y, %c1 {dim = 0 : i64} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sc = aten.select_scatter %x, %y, %c1 {dim = 0 : i64} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>

  // embedding, with and without padding_idx.
  %em = aten.embedding %emb, %types : tensor<10x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  // CHECK-NEXT: %em = aten.embedding %emb, %types : tensor<10x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  %em2 = aten.embedding %emb, %ei padding_idx %c0 {scale_grad_by_freq = false, sparse = false} : tensor<10x16xf32>, tensor<2x?xi64> -> tensor<2x?x16xf32>
  // CHECK-NEXT: %em2 = aten.embedding %emb, %ei padding_idx %c0 {scale_grad_by_freq = false, sparse = false} : tensor<10x16xf32>, tensor<2x?xi64> -> tensor<2x?x16xf32>
  func.return %ia : tensor<?x3xf32>
  // CHECK-NEXT: func.return %ia : tensor<?x3xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Factories

func.func @factories(%N: index, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
// CHECK-LABEL: func.func @factories(%N: index, %x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c3 = arith.constant 3 : index
  // CHECK-NEXT: %c3 = arith.constant 3 : index
  %f0 = arith.constant 0.000000e+00 : f64
  // CHECK-NEXT: %f0 = arith.constant 0.000000e+00 : f64
  %f1 = arith.constant 1.000000e+00 : f64
  // CHECK-NEXT: %f1 = arith.constant 1.000000e+00 : f64
  %i0 = arith.constant 0 : i64
  // CHECK-NEXT: %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  // CHECK-NEXT: %i1 = arith.constant 1 : i64
  %t = arith.constant true
  // CHECK-NEXT: %t = arith.constant true

  // Factories: sizes are index values, fill values are scalars.
  %full = aten.full [%N, %c3], %f0 : f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %full = aten.full [%N, %c3], %f0 : f64 -> tensor<?x3xf32>
  %fullb = aten.full [%N], %t : i1 -> tensor<?xi1>
  // CHECK-NEXT: %fullb = aten.full [%N], %t : i1 -> tensor<?xi1>
  %full0 = aten.full [], %i1 : i64 -> tensor<i64>
  // CHECK-NEXT: %full0 = aten.full [], %i1 : i64 -> tensor<i64>
  %ep = aten.empty_permuted [%N, %c3] {physical_layout = array<i64: 0, 1>} : tensor<?x3xf32>
  // CHECK-NEXT: %ep = aten.empty_permuted [%N, %c3] {physical_layout = array<i64: 0, 1>} : tensor<?x3xf32>
  %em = aten.empty.memory_format [%c3, %N] : tensor<3x?xf64>
  // CHECK-NEXT: %em = aten.empty.memory_format [%c3, %N] : tensor<3x?xf64>
  %fl = aten.full_like %x, %f1 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %fl = aten.full_like %x, %f1 : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %fli = aten.full_like %x, %i0 : tensor<?x3xf32>, i64 -> tensor<?x3xi64>
  // CHECK-NEXT: %fli = aten.full_like %x, %i0 : tensor<?x3xf32>, i64 -> tensor<?x3xi64>
  %st = aten.scalar_tensor %f1 : f64 -> tensor<f32>
  // CHECK-NEXT: %st = aten.scalar_tensor %f1 : f64 -> tensor<f32>
  %stn = aten.scalar_tensor %N : index -> tensor<i64>
  // CHECK-NEXT: %stn = aten.scalar_tensor %N : index -> tensor<i64>
  %ar = aten.arange.start_step %i0, %N : i64, index -> tensor<?xi64>
  // CHECK-NEXT: %ar = aten.arange.start_step %i0, %N : i64, index -> tensor<?xi64>
  %ars = aten.arange.start_step %f0, %f1 step %f1 : f64 : f64, f64 -> tensor<?xf32>
  // CHECK-NEXT: %ars = aten.arange.start_step %f0, %f1 step %f1 : f64 : f64, f64 -> tensor<?xf32>
  func.return %full : tensor<?x3xf32>
  // CHECK-NEXT: func.return %full : tensor<?x3xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// In place

func.func @in_place(%x: tensor<?x3xf32>, %y: tensor<3xf32>, %s: tensor<i64>) -> tensor<?x3xf32> {
// CHECK-LABEL: func.func @in_place(%x: tensor<?x3xf32>, %y: tensor<3xf32>, %s: tensor<i64>) -> tensor<?x3xf32> {
  %c2 = arith.constant 2.000000e+00 : f64
  // CHECK-NEXT: %c2 = arith.constant 2.000000e+00 : f64

  // In-place ops in value semantics: the result is the new value of self.
  %sub = aten.sub_.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sub = aten.sub_.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %suba = aten.sub_.Tensor %x, %y alpha %c2 : f64 : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %suba = aten.sub_.Tensor %x, %y alpha %c2 : f64 : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %cp = aten.copy %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %cp = aten.copy %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %cpi = aten.copy_ %x, %s : tensor<?x3xf32>, tensor<i64> -> tensor<?x3xf32>
  // CHECK-NEXT: %cpi = aten.copy_ %x, %s : tensor<?x3xf32>, tensor<i64> -> tensor<?x3xf32>
  func.return %cpi : tensor<?x3xf32>
  // CHECK-NEXT: func.return %cpi : tensor<?x3xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Sizes: sym_size.int and sym_numel give index values

func.func @sizes(%x: tensor<?x3xf32>, %ei: tensor<2x?xi64>) -> index {
// CHECK-LABEL: func.func @sizes(%x: tensor<?x3xf32>, %ei: tensor<2x?xi64>) -> index {
  %n = aten.sym_size.int %x {dim = 0 : i64} : tensor<?x3xf32>
  // CHECK-NEXT: %n = aten.sym_size.int %x {dim = 0 : i64} : tensor<?x3xf32>
  %e = aten.sym_size.int %ei {dim = -1 : i64} : tensor<2x?xi64>
  // CHECK-NEXT: %e = aten.sym_size.int %ei {dim = -1 : i64} : tensor<2x?xi64>
  %numel = aten.sym_numel %x : tensor<?x3xf32>
  // CHECK-NEXT: %numel = aten.sym_numel %x : tensor<?x3xf32>
  func.return %numel : index
  // CHECK-NEXT: func.return %numel : index
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Weights: named constants, data kept out of the IR

func.func @weights() -> tensor<16xf32> {
// CHECK-LABEL: func.func @weights() -> tensor<16xf32> {
  %w = aten.weight "layers.0.weight" : tensor<3x16xf32>
  // CHECK-NEXT: %w = aten.weight "layers.0.weight" : tensor<3x16xf32>
  %b = aten.weight "layers.0.bias" : tensor<16xf32>
  // CHECK-NEXT: %b = aten.weight "layers.0.bias" : tensor<16xf32>
  func.return %b : tensor<16xf32>
  // CHECK-NEXT: func.return %b : tensor<16xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// The rest of the core opset: more elementwise and reductions, multi-result ops
// (max.dim, var_mean, sort, topk, split_with_sizes), views, scatters, and nonzero,
// whose row count is only known at run time.

func.func @core_opset(%N: index, %x: tensor<?x3xf32>, %y: tensor<3xf32>, %i: tensor<?x3xi64>, %idx: tensor<?x3xi64>, %sq: tensor<?x3x3xf32>) -> tensor<?x3xf32> {
// CHECK-LABEL: func.func @core_opset(%N: index, %x: tensor<?x3xf32>, %y: tensor<3xf32>, %i: tensor<?x3xi64>, %idx: tensor<?x3xi64>, %sq: tensor<?x3x3xf32>) -> tensor<?x3xf32> {
  %c2 = arith.constant 2 : index
  // CHECK-NEXT: %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // CHECK-NEXT: %c1 = arith.constant 1 : index
  %f = arith.constant 5.000000e-01 : f64
  // CHECK-NEXT: %f = arith.constant 5.000000e-01 : f64
  %k = arith.constant 3 : i64
  // CHECK-NEXT: %k = arith.constant 3 : i64
  %ac = aten.acos %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ac = aten.acos %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %ach = aten.acosh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ach = aten.acosh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %as = aten.asin %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %as = aten.asin %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %ash = aten.asinh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ash = aten.asinh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %at = aten.atan %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %at = aten.atan %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %ath = aten.atanh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ath = aten.atanh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %ch = aten.cosh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ch = aten.cosh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %sh = aten.sinh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sh = aten.sinh %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %tn = aten.tan %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %tn = aten.tan %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %l2 = aten.log2 %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %l2 = aten.log2 %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %l10 = aten.log10 %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %l10 = aten.log10 %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %ce = aten.ceil %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ce = aten.ceil %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %fl = aten.floor %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %fl = aten.floor %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %ro = aten.round %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ro = aten.round %x : tensor<?x3xf32> -> tensor<?x3xf32>
  %tr = aten.trunc %i : tensor<?x3xi64> -> tensor<?x3xi64>
  // CHECK-NEXT: %tr = aten.trunc %i : tensor<?x3xi64> -> tensor<?x3xi64>
  %bx = aten.bitwise_xor.Tensor %i, %i : tensor<?x3xi64>, tensor<?x3xi64> -> tensor<?x3xi64>
  // CHECK-NEXT: %bx = aten.bitwise_xor.Tensor %i, %i : tensor<?x3xi64>, tensor<?x3xi64> -> tensor<?x3xi64>
  %fm = aten.fmod.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %fm = aten.fmod.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %rm = aten.remainder.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %rm = aten.remainder.Tensor %x, %y : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %ba = aten.bitwise_and.Scalar %i, %k : tensor<?x3xi64>, i64 -> tensor<?x3xi64>
  // CHECK-NEXT: %ba = aten.bitwise_and.Scalar %i, %k : tensor<?x3xi64>, i64 -> tensor<?x3xi64>
  %bo = aten.bitwise_or.Scalar %i, %k : tensor<?x3xi64>, i64 -> tensor<?x3xi64>
  // CHECK-NEXT: %bo = aten.bitwise_or.Scalar %i, %k : tensor<?x3xi64>, i64 -> tensor<?x3xi64>
  %bxs = aten.bitwise_xor.Scalar %i, %k : tensor<?x3xi64>, i64 -> tensor<?x3xi64>
  // CHECK-NEXT: %bxs = aten.bitwise_xor.Scalar %i, %k : tensor<?x3xi64>, i64 -> tensor<?x3xi64>
  %fms = aten.fmod.Scalar %x, %f : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %fms = aten.fmod.Scalar %x, %f : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %rms = aten.remainder.Scalar %x, %f : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %rms = aten.remainder.Scalar %x, %f : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %dt = aten.div.Tensor_mode %x, %y {rounding_mode = "floor"} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %dt = aten.div.Tensor_mode %x, %y {rounding_mode = "floor"} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %ds = aten.div.Scalar_mode %x, %f {rounding_mode = "trunc"} : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %ds = aten.div.Scalar_mode %x, %f {rounding_mode = "trunc"} : tensor<?x3xf32>, f64 -> tensor<?x3xf32>
  %pr = aten.prod %x : tensor<?x3xf32> -> tensor<f32>
  // CHECK-NEXT: %pr = aten.prod %x : tensor<?x3xf32> -> tensor<f32>
  %pd = aten.prod.dim_int %x {dim = 1 : i64, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  // CHECK-NEXT: %pd = aten.prod.dim_int %x {dim = 1 : i64, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>
  %am = aten.argmax %x {dim = 0 : i64} : tensor<?x3xf32> -> tensor<3xi64>
  // CHECK-NEXT: %am = aten.argmax %x {dim = 0 : i64} : tensor<?x3xf32> -> tensor<3xi64>
  %an = aten.argmin %x : tensor<?x3xf32> -> tensor<i64>
  // CHECK-NEXT: %an = aten.argmin %x : tensor<?x3xf32> -> tensor<i64>
  %mv, %mi = aten.max.dim %x {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?xf32>, tensor<?xi64>
  // CHECK-NEXT: %mv, %mi = aten.max.dim %x {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?xf32>, tensor<?xi64>
  %nv, %ni = aten.min.dim %x {dim = 0 : i64, keepdim = true} : tensor<?x3xf32> -> tensor<1x3xf32>, tensor<1x3xi64>
  // CHECK-NEXT: %nv, %ni = aten.min.dim %x {dim = 0 : i64, keepdim = true} : tensor<?x3xf32> -> tensor<1x3xf32>, tensor<1x3xi64>
  %va = aten.var.correction %x correction %f : f64 {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<3xf32>
  // CHECK-NEXT: %va = aten.var.correction %x correction %f : f64 {dim = array<i64: 0>} : tensor<?x3xf32> -> tensor<3xf32>
  %vv, %vm = aten.var_mean.correction %x {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>, tensor<?x1xf32>
  // CHECK-NEXT: %vv, %vm = aten.var_mean.correction %x {dim = array<i64: 1>, keepdim = true} : tensor<?x3xf32> -> tensor<?x1xf32>, tensor<?x1xf32>
  %cs = aten.cumsum %x {dim = 0 : i64} : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %cs = aten.cumsum %x {dim = 0 : i64} : tensor<?x3xf32> -> tensor<?x3xf32>
  %sv, %si = aten.sort %x {dim = 1 : i64, descending = true} : tensor<?x3xf32> -> tensor<?x3xf32>, tensor<?x3xi64>
  // CHECK-NEXT: %sv, %si = aten.sort %x {dim = 1 : i64, descending = true} : tensor<?x3xf32> -> tensor<?x3xf32>, tensor<?x3xi64>
  %ssv, %ssi = aten.sort.stable %x {stable = true} : tensor<?x3xf32> -> tensor<?x3xf32>, tensor<?x3xi64>
  // CHECK-NEXT: %ssv, %ssi = aten.sort.stable %x {stable = true} : tensor<?x3xf32> -> tensor<?x3xf32>, tensor<?x3xi64>
  %tv, %ti = aten.topk %x, %c2 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x2xf32>, tensor<?x2xi64>
  // CHECK-NEXT: %tv, %ti = aten.topk %x, %c2 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x2xf32>, tensor<?x2xi64>
  %dg = aten.diagonal %sq {dim1 = 1 : i64, dim2 = 2 : i64} : tensor<?x3x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %dg = aten.diagonal %sq {dim1 = 1 : i64, dim2 = 2 : i64} : tensor<?x3x3xf32> -> tensor<?x3xf32>
  %dgs = aten.diagonal_scatter %sq, %dg {dim1 = 1 : i64, dim2 = 2 : i64} : tensor<?x3x3xf32>, tensor<?x3xf32> -> tensor<?x3x3xf32>
  // CHECK-NEXT: %dgs = aten.diagonal_scatter %sq, %dg {dim1 = 1 : i64, dim2 = 2 : i64} : tensor<?x3x3xf32>, tensor<?x3xf32> -> tensor<?x3x3xf32>
  %fp = aten.flip %x {dims = array<i64: 0, 1>} : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %fp = aten.flip %x {dims = array<i64: 0, 1>} : tensor<?x3xf32> -> tensor<?x3xf32>
  %p0, %p1 = aten.split_with_sizes %x, [%c1, %c2] {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x1xf32>, tensor<?x2xf32>
  // CHECK-NEXT: %p0, %p1 = aten.split_with_sizes %x, [%c1, %c2] {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?x1xf32>, tensor<?x2xf32>
  %pad = aten.constant_pad_nd %x, [%c1, %c2] value %f : f64 : tensor<?x3xf32> -> tensor<?x6xf32>
  // CHECK-NEXT: %pad = aten.constant_pad_nd %x, [%c1, %c2] value %f : f64 : tensor<?x3xf32> -> tensor<?x6xf32>
  %ast = aten.as_strided %x, [%c2, %c2], [%c1, %c2] offset %c1 : tensor<?x3xf32> -> tensor<2x2xf32>
  // CHECK-NEXT: %ast = aten.as_strided %x, [%c2, %c2], [%c1, %c2] offset %c1 : tensor<?x3xf32> -> tensor<2x2xf32>
  %es = aten.empty_strided [%N, %c2], [%c2, %c1] : tensor<?x2xf32>
  // CHECK-NEXT: %es = aten.empty_strided [%N, %c2], [%c2, %c1] : tensor<?x2xf32>
  %sc = aten.scatter.src %x, %idx, %x {dim = 0 : i64} : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %sc = aten.scatter.src %x, %idx, %x {dim = 0 : i64} : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  %scv = aten.scatter.value %x, %idx, %f {dim = 0 : i64} : tensor<?x3xf32>, tensor<?x3xi64>, f64 -> tensor<?x3xf32>
  // CHECK-NEXT: %scv = aten.scatter.value %x, %idx, %f {dim = 0 : i64} : tensor<?x3xf32>, tensor<?x3xi64>, f64 -> tensor<?x3xf32>
  %scr = aten.scatter_reduce.two %x, %idx, %x {dim = 0 : i64, reduce = "amax", include_self = false} : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %scr = aten.scatter_reduce.two %x, %idx, %x {dim = 0 : i64, reduce = "amax", include_self = false} : tensor<?x3xf32>, tensor<?x3xi64>, tensor<?x3xf32> -> tensor<?x3xf32>
  %m = aten.gt.Scalar %x, %f : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  // CHECK-NEXT: %m = aten.gt.Scalar %x, %f : tensor<?x3xf32>, f64 -> tensor<?x3xi1>
  %ms = aten.masked_scatter %x, %m, %x : tensor<?x3xf32>, tensor<?x3xi1>, tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %ms = aten.masked_scatter %x, %m, %x : tensor<?x3xf32>, tensor<?x3xi1>, tensor<?x3xf32> -> tensor<?x3xf32>
  %msb = aten.masked_scatter_backward %x, %m, [%N, %c2] : tensor<?x3xf32>, tensor<?x3xi1> -> tensor<?x2xf32>
  // CHECK-NEXT: %msb = aten.masked_scatter_backward %x, %m, [%N, %c2] : tensor<?x3xf32>, tensor<?x3xi1> -> tensor<?x2xf32>
  %any = aten.sum %m : tensor<?x3xi1> -> tensor<i1>
  // CHECK-NEXT: %any = aten.sum %m : tensor<?x3xi1> -> tensor<i1>
  aten._assert_async.msg %any {assert_msg = "some x > 0.5"} : tensor<i1>
  // CHECK-NEXT: aten._assert_async.msg %any {assert_msg = "some x > 0.5"} : tensor<i1>
  %item = aten._local_scalar_dense %any : tensor<i1> -> i1
  // CHECK-NEXT: %item = aten._local_scalar_dense %any : tensor<i1> -> i1
  %nz = aten.nonzero %x : tensor<?x3xf32> -> tensor<?x2xi64>
  // CHECK-NEXT: %nz = aten.nonzero %x : tensor<?x3xf32> -> tensor<?x2xi64>
  func.return %x : tensor<?x3xf32>
  // CHECK-NEXT: func.return %x : tensor<?x3xf32>
}
// CHECK-NEXT: }

// -----------------------------------------------------------------------------
// Searching and repeating: searchsorted into a 1-d or an N-d sequence (through a
// sorter), of a tensor or a scalar; repeat_interleave, whose length is the sum of
// its repeats (known only at run time) unless output_size gives it.

func.func @search_and_repeat(%N: index, %s: tensor<?xf32>, %x: tensor<?x3xf32>, %i: tensor<?x3xi64>, %r: tensor<?xi32>) -> tensor<?xi32> {
// CHECK-LABEL: func.func @search_and_repeat(%N: index, %s: tensor<?xf32>, %x: tensor<?x3xf32>, %i: tensor<?x3xi64>, %r: tensor<?xi32>) -> tensor<?xi32> {
  %f = arith.constant 5.000000e-01 : f64
  // CHECK-NEXT: %f = arith.constant 5.000000e-01 : f64
  %ss = aten.searchsorted.Tensor %s, %x : tensor<?xf32>, tensor<?x3xf32> -> tensor<?x3xi64>
  // CHECK-NEXT: %ss = aten.searchsorted.Tensor %s, %x : tensor<?xf32>, tensor<?x3xf32> -> tensor<?x3xi64>
  %sr = aten.searchsorted.Tensor %x, %x sorter %i : tensor<?x3xi64> {right = true, out_int32 = true} : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xi32>
  // CHECK-NEXT: %sr = aten.searchsorted.Tensor %x, %x sorter %i : tensor<?x3xi64> {right = true, out_int32 = true} : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xi32>
  %sc = aten.searchsorted.Scalar %s, %f {side = "right"} : tensor<?xf32>, f64 -> tensor<i64>
  // CHECK-NEXT: %sc = aten.searchsorted.Scalar %s, %f {side = "right"} : tensor<?xf32>, f64 -> tensor<i64>
  %ri = aten.repeat_interleave.Tensor %r : tensor<?xi32> -> tensor<?xi32>
  // CHECK-NEXT: %ri = aten.repeat_interleave.Tensor %r : tensor<?xi32> -> tensor<?xi32>
  %ro = aten.repeat_interleave.Tensor %r output_size %N : tensor<?xi32> -> tensor<?xi32>
  // CHECK-NEXT: %ro = aten.repeat_interleave.Tensor %r output_size %N : tensor<?xi32> -> tensor<?xi32>
  func.return %ro : tensor<?xi32>
  // CHECK-NEXT: func.return %ro : tensor<?xi32>
}
// CHECK-NEXT: }
