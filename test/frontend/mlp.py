# The MLP-on-descriptors example imports symbolic in N and E.
# RUN: %pipeline capture %examples/mlp.py --atoms 23 | filecheck %s
# RUN: %pipeline capture %examples/mlp.py --atoms 23 | filecheck %s --check-prefix=NOSPEC
# RUN: %pipeline capture %examples/mlp.py --atoms 23 --training | filecheck %s --check-prefix=TRAIN
# RUN: %pipeline capture %examples/mlp.py --atoms 23 --emit fx | filecheck %s --check-prefix=FX

# CHECK-LABEL: func.func @energy_forces(%N: index, %E: index, %pos: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %edge_index: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]})
# CHECK: aten.linalg_vector_norm %{{.*}} {dim = array<i64: -1>} : tensor<?x3xf32> -> tensor<?xf32>
# Radial descriptors: edges scattered onto atoms.
# CHECK: aten.full [%N, %{{.*}}], %{{.*}} : i64 -> tensor<?x16xf32>
# CHECK: aten.index_put %{{.*}}, %{{.*}} {indexed_dims = array<i64: 0>, accumulate = true} : tensor<?x16xf32>, [tensor<?xi64>], tensor<?x16xf32> -> tensor<?x16xf32>
# CHECK: aten.addmm %{{.*}}, %{{.*}}, %{{.*}} : tensor<64xf32>, tensor<?x16xf32>, tensor<16x64xf32> -> tensor<?x64xf32>
# CHECK: aten.addmm %{{.*}}, %{{.*}}, %{{.*}} : tensor<64xf32>, tensor<?x64xf32>, tensor<64x64xf32> -> tensor<?x64xf32>
# CHECK: aten.addmm %{{.*}}, %{{.*}}, %{{.*}} : tensor<1xf32>, tensor<?x64xf32>, tensor<64x1xf32> -> tensor<?x1xf32>
# The backward of the MLP runs over atoms, that of the descriptors over edges:
# CHECK: aten.mm %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64x16xf32> -> tensor<?x16xf32>
# CHECK: aten.index_select %{{.*}}, %{{.*}} {dim = 0 : i64} : tensor<?x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
# CHECK: func.return %{{.*}}, %{{.*}} : tensor<f32>, tensor<?x3xf32>

# NOSPEC-NOT: {{[<x]23x}}
# NOSPEC-NOT: aten.copy_

# TRAIN-LABEL: func.func @training_step(
# TRAIN-SAME: -> (tensor<f32> {aten.dims = []}, tensor<64x16xf32> {aten.dims = [64 : i64, 16 : i64]}, tensor<64xf32>
# TRAIN: func.return

# FX: def forward(self, arg0_1, arg1_1):
# FX: torch.ops.aten.sym_size.int(arg0_1, 0)
# FX-NOT: copy_
# FX: return (
