# The e3nn-like example: spherical harmonics up to l=2, a tensor product, channel mixing.
# RUN: %pipeline capture %examples/e3nn_like.py --atoms 23 | filecheck %s
# RUN: %pipeline capture %examples/e3nn_like.py --atoms 23 | filecheck %s --check-prefix=NOSPEC
# RUN: %pipeline capture %examples/e3nn_like.py --atoms 23 --training | filecheck %s --check-prefix=TRAIN

# CHECK-LABEL: func.func @energy_forces(%N: index, %E: index, %pos: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %edge_index: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]}, %species: tensor<?xi64> {aten.dims = ["N"]})
# The 1 + 3 + 5 = 9 harmonics are concatenated per edge:
# CHECK: aten.cat [{{.*}}] {dim = -1 : i64} : [{{.*}}] -> tensor<?x9xf32>
# CHECK: aten.view %{{.*}}, [%{{.*}}, %{{.*}}, %{{.*}}] : tensor<?x24xf32> -> tensor<?x3x8xf32>
# CHECK: aten.embedding %{{.*}}, %species : tensor<5x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
# CHECK: aten.full [%N, %{{.*}}, %{{.*}}], %{{.*}} : i64 -> tensor<?x8x9xf32>
# CHECK: aten.bmm %{{.*}}, %{{.*}} : tensor<9x?x8xf32>, tensor<9x8x8xf32> -> tensor<9x?x8xf32>
# CHECK: func.return %{{.*}}, %{{.*}} : tensor<f32>, tensor<?x3xf32>

# NOSPEC-NOT: {{[<x]23x}}
# NOSPEC-NOT: aten.copy_

# TRAIN-LABEL: func.func @training_step(
# TRAIN-SAME: -> (tensor<f32> {aten.dims = []}, tensor<3x8x8xf32> {aten.dims = [3 : i64, 8 : i64, 8 : i64]}
# TRAIN: func.return
