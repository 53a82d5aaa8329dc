"""The error of the capture stage (its own module: the argument and guard checks raise it too)."""


class CaptureError(Exception):
    """The function cannot be captured as a graph valid at every size."""


class PinnedSize(CaptureError):
    """The function fixes a dim declared dynamic to its traced size (a Python loop over
    `range(len(pos))`): `dim` is the Dim's name, `value` the size, `at` its (argument,
    dim) places, `without` the dynamic shapes with that Dim left out, per argument name
    (what `compile(..., specialize=True)` captures again with)."""

    def __init__(self, message: str, dim: str, value: int, at: list[tuple[str, int]], without: dict[str, dict]) -> None:
        super().__init__(message)
        self.dim, self.value, self.at, self.without = dim, value, at, without
