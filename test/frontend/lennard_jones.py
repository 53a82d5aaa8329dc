# The Lennard-Jones example imports symbolic in N (atoms) and E (edges).
# Traced at 23 atoms: no type may carry 23, and no in-place op may survive.
# RUN: %pipeline capture %examples/lennard_jones.py --atoms 23 | filecheck %s
# RUN: %pipeline capture %examples/lennard_jones.py --atoms 23 | filecheck %s --check-prefix=NOSPEC
# RUN: %pipeline capture %examples/lennard_jones.py --atoms 23 --training | filecheck %s --check-prefix=TRAIN
# RUN: %pipeline capture %examples/lennard_jones.py --atoms 23 --training | filecheck %s --check-prefix=NOSPEC

# CHECK-LABEL: func.func @energy_forces(%N: index, %E: index,
# CHECK-SAME: %pos: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]},
# CHECK-SAME: %edge_index: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]})
# CHECK-SAME: -> (tensor<f32> {aten.dims = []}, tensor<?x3xf32> {aten.dims = ["N", 3 : i64]})
# CHECK: %[[DST:.*]] = aten.select.int %edge_index, %{{.*}} {dim = 0 : i64} : tensor<2x?xi64> -> tensor<?xi64>
# CHECK-NEXT: aten.index_select %{{.*}}, %[[DST]] {dim = 0 : i64} : tensor<?x3xf32>, tensor<?xi64> -> tensor<?x3xf32>
# CHECK: aten.weight "{{.*}}" : tensor<f32>
# CHECK: aten.clamp %{{.*}} min %{{.*}} : f64 max %{{.*}} : f64 : tensor<?xf32> -> tensor<?xf32>
# CHECK: %[[ENERGY:.*]] = aten.mul.Tensor %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32> -> tensor<f32>
# The backward starts from d(energy)/d(energy) = 1, broadcast over the E edges:
# CHECK: aten.expand %{{.*}}, [%E] : tensor<f32> -> tensor<?xf32>
# Forces are scattered onto the N atoms:
# CHECK: aten.full [%N, %{{.*}}], %{{.*}} : i64 -> tensor<?x3xf32>
# CHECK: aten.index_put %{{.*}}[%{{.*}}], %{{.*}} {indexed_dims = array<i64: 0>, accumulate = true} : tensor<?x3xf32>, [tensor<?xi64>], tensor<?x3xf32> -> tensor<?x3xf32>
# CHECK: func.return %[[ENERGY]], %{{.*}} : tensor<f32>, tensor<?x3xf32>

# NOSPEC-NOT: {{[<x]23x}}
# NOSPEC-NOT: aten.copy_
# NOSPEC-NOT: aten.sub_

# TRAIN-LABEL: func.func @training_step(%N: index, %E: index, %pos: tensor<?x3xf32>
# TRAIN-SAME: %energy_ref: tensor<f32> {aten.dims = []}, %forces_ref: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]})
# TRAIN-SAME: -> (tensor<f32> {aten.dims = []}, tensor<f32> {aten.dims = []}, tensor<f32> {aten.dims = []})
# The force loss is a mean over the 3 N force components:
# TRAIN: aten.mean %{{.*}} : tensor<?x3xf32> -> tensor<f32>
# TRAIN: func.return
