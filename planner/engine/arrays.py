"""The array types that flow through the engine's vectorised functions: one value per candidate
parallel layout, or a single value where the caller passed scalars."""

from typing import TypeAlias

import numpy as np
import numpy.typing as npt

Floats: TypeAlias = npt.NDArray[np.float64]
Ints: TypeAlias = npt.NDArray[np.int64]
