# The SchNet-like example: species embedding, continuous-filter convolutions over edges.
# RUN: %pipeline capture %examples/schnet.py --atoms 23 | filecheck %s
# RUN: %pipeline capture %examples/schnet.py --atoms 23 | filecheck %s --check-prefix=NOSPEC
# RUN: %pipeline capture %examples/schnet.py --atoms 23 --training | filecheck %s --check-prefix=TRAIN
# RUN: %pipeline capture %examples/schnet.py --atoms 23 --training | filecheck %s --check-prefix=NOSPEC

# CHECK-LABEL: func.func @energy_forces(%N: index, %E: index, %pos: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}, %edge_index: tensor<2x?xi64> {aten.dims = [2 : i64, "E"]}, %species: tensor<?xi64> {aten.dims = ["N"]})
# CHECK: aten.embedding %{{.*}}, %species : tensor<5x32xf32>, tensor<?xi64> -> tensor<?x32xf32>
# The filter network runs per edge:
# CHECK: aten.addmm %{{.*}}, %{{.*}}, %{{.*}} : tensor<32xf32>, tensor<?x20xf32>, tensor<20x32xf32> -> tensor<?x32xf32>
# Messages: gather per edge, scatter onto atoms.
# CHECK: aten.index_select %{{.*}}, %{{.*}} {dim = 0 : i64} : tensor<?x32xf32>, tensor<?xi64> -> tensor<?x32xf32>
# CHECK: aten.index_put %{{.*}}, %{{.*}} {indexed_dims = array<i64: 0>, accumulate = true} : tensor<?x32xf32>, [tensor<?xi64>], tensor<?x32xf32> -> tensor<?x32xf32>
# CHECK: func.return %{{.*}}, %{{.*}} : tensor<f32>, tensor<?x3xf32>

# NOSPEC-NOT: {{[<x]23x}}
# NOSPEC-NOT: aten.copy_
# NOSPEC-NOT: aten.sub_

# The double backward of shifted softplus/silu allocates with empty_permuted, now functional:
# TRAIN-LABEL: func.func @training_step(
# TRAIN-SAME: %species: tensor<?xi64> {aten.dims = ["N"]}, %energy_ref: tensor<f32> {aten.dims = []}, %forces_ref: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]})
# TRAIN-SAME: -> (tensor<f32> {aten.dims = []}, tensor<5x32xf32> {aten.dims = [5 : i64, 32 : i64]}, tensor<32x20xf32>
# TRAIN: aten.empty_permuted [%N, %{{.*}}] {physical_layout = array<i64: 0, 1>} : tensor<?x16xf32>
# TRAIN-NEXT: {{.*}}
# TRAIN-NEXT: {{.*}}
# TRAIN-NEXT: aten.copy %{{.*}}, %{{.*}} : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
# TRAIN: func.return
