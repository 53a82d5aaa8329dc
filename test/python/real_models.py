"""NequIP and Allegro as test_models.py compiles them: `examples/real_models.py` in its
"small" configuration (two species, l_max = 1, a few channels), so a test traces and
checks each in seconds. See that module for how the models are built and their dtypes.
"""

from __future__ import annotations

from collections.abc import Callable

from torch import Tensor

from examples import real_models
from examples.real_models import dynamic_shapes, inputs  # noqa: F401  (re-exported for the tests)

MODELS = ["nequip", "allegro"]
CONFIG = "small"


def energy_forces(name: str, model_dtype: str) -> Callable[..., tuple[Tensor, Tensor]]:
    return real_models.energy_forces(name, model_dtype, CONFIG)


def package_outputs(name: str, model_dtype: str) -> Callable[..., tuple[Tensor, Tensor, Tensor]]:
    return real_models.package_outputs(name, model_dtype, CONFIG)


def per_atom_energies(name: str, model_dtype: str) -> Callable[..., Tensor]:
    return real_models.per_atom_energies(name, model_dtype, CONFIG)
