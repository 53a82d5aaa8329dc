// RUN: pipeline-opt %s -p 'lower-aten-to-tensorexpr{provenance=true}' | filecheck %s
// RUN: pipeline-opt %s -p 'lower-aten-to-tensorexpr{provenance=true},fuse-elementwise' | filecheck %s --check-prefix=FUSED
// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s --check-prefix=OFF
// RUN: pipeline-opt %s -p 'lower-aten-to-tensorexpr{provenance=true},fuse-elementwise,lower-tensorexpr-to-loops,profile-loops' | filecheck %s --check-prefix=LOOPS

// lower-aten-to-tensorexpr{provenance=true}: every te op it builds carries te.origin,
// the positions of the aten ops it computes in the function (0: permute, 1: exp,
// 2: mul, 3: sum). A view (the permute) is inlined into the loads of its consumer,
// so the consumer computes it too: exp has origin [0, 1]. The f32 sum is two te ops
// (an f64 reduction and its rounding), both of origin [3]. fuse-elementwise then
// merges the origins of what it inlines: the reduction computes all four ops. Without
// the option there is no te.origin at all.

func.func @chain(%N: index, %x: tensor<3x?xf32> {aten.dims = [3 : i64, "N"]}) -> tensor<f32> {
  %0 = aten.permute %x {dims = array<i64: 1, 0>} : tensor<3x?xf32> -> tensor<?x3xf32>
  %1 = aten.exp %0 : tensor<?x3xf32> -> tensor<?x3xf32>
  %2 = aten.mul.Tensor %1, %1 : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %3 = aten.sum %2 : tensor<?x3xf32> -> tensor<f32>
  func.return %3 : tensor<f32>
}

// CHECK-LABEL: func.func @chain(
// CHECK:       te.compute [%N, %{{.*}}] {te.origin = array<i64: 0, 1>} : tensor<?x3xf32> {
// CHECK:         math.exp
// CHECK:       te.compute [%N, %{{.*}}] {te.origin = array<i64: 2>} : tensor<?x3xf32> {
// CHECK:         arith.mulf
// CHECK:       te.reduce "add" [] over [%N, %{{.*}}] {te.origin = array<i64: 3>} : tensor<f64> {
// CHECK:       te.compute [] {te.origin = array<i64: 3>} : tensor<f32> {
// CHECK-NOT:   te.origin = array<i64: 0>}

// FUSED-LABEL: func.func @chain(
// FUSED-NOT:   te.compute
// FUSED:       te.reduce "add" [] over [%N, %{{.*}}] {te.origin = array<i64: 0, 1, 2, 3>} : tensor<f64> {
// FUSED:       te.compute [] {te.origin = array<i64: 3>} : tensor<f32> {

// OFF-NOT:     te.origin

// At the loop level, the loops built for the k-th te op with an origin carry
// loops.nests = [k] (the reduction is nest 0; the rounding is no loop), and
// profile-loops lists, for each timed loop, the nests it computes.
// LOOPS:       func.func @chain({{.*}} attributes {{{.*}}loops.profile_members = [array<i64: 0>]}
// LOOPS:       scf.for
// LOOPS:       } {loops.nests = array<i64: 0>}
// LOOPS-NOT:   te.origin
