# The Python packages write around tensors imports symbolic (frontend/python_idioms.py):
# len() of a dynamic dim is %N, int() of a tensor an item() read, and two checks become
# run-time assertions: one on a tensor, one on sizes that depend on data (an arith.cmpi
# of the sizes, as a 0-d tensor). This file is a model file (the driver's
# protocol) as well as the test. Traced at 23 atoms: no type may carry 23.
# RUN: %pipeline capture %s --atoms 23 --dtype f64 | filecheck %s
# RUN: %pipeline capture %s --atoms 23 --dtype f64 | filecheck %s --check-prefix=NOSPEC

# CHECK-LABEL: func.func @fn(%N: index, %pos: tensor<?x3xf64>
# CHECK: aten._assert_async.msg %{{.*}} {assert_msg = "raise ValueError(\22a coordinate is not finite\22) (the check at {{.*}}python_idioms.py:{{[0-9]+}})"} : tensor<i1>
# CHECK: %[[SMALLER:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
# CHECK-NEXT: %[[FLAG:.*]] = aten.scalar_tensor %[[SMALLER]] : i1 -> tensor<i1>
# CHECK-NEXT: %[[PASSES:.*]] = aten.logical_not %[[FLAG]] : tensor<i1> -> tensor<i1>
# CHECK-NEXT: aten._assert_async.msg %[[PASSES]] {assert_msg = "raise ValueError(\22too few atoms near the origin\22)
# CHECK: aten.amax %group
# CHECK-NEXT: aten._local_scalar_dense
# The energy divides by len(pos), which is %N:
# CHECK: aten.scalar_tensor %N : index -> tensor<f64>

# NOSPEC-NOT: {{[<x]23x}}
# NOSPEC-NOT: %c23

from __future__ import annotations

import torch

dynamic_shapes = {"pos": {0: torch.export.Dim("N", min=2)}, "group": {0: torch.export.Dim("N", min=2)}}


def energy_forces(dtype: torch.dtype):  # noqa: ANN201
    def fn(pos: torch.Tensor, group: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos.requires_grad_(True)
        if not torch.isfinite(pos).all():
            raise ValueError("a coordinate is not finite")
        near, far = pos[pos.norm(dim=-1) < 1], pos[pos.norm(dim=-1) > 2]
        if len(near) < len(far) // 100:
            raise ValueError("too few atoms near the origin")
        groups = int(group.max()) + 1
        per_group = torch.zeros(groups, dtype=pos.dtype).index_add(0, group, pos.square().sum(-1))
        energy = per_group.square().sum() / len(pos) + near.sum()
        return energy, -torch.autograd.grad(energy, pos)[0]

    return fn


def inputs(n_atoms: int, dtype: torch.dtype, seed: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {"pos": torch.randn(n_atoms, 3, generator=g, dtype=dtype),
            "group": torch.randint(0, 4, (n_atoms,), generator=g)}
