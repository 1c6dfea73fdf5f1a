from typing import Any, Iterable, List, Optional, TypedDict

import numpy as np
import numpy.typing as npt

from ._retrograde import ValuesAndDistances
from ._retrograde import Map as Map
from ._retrograde import Rules as Rules
from ._retrograde import Solution as Solution

CopsSolution = Solution
from ._retrograde import Table as Table
from ._retrograde import __version__ as __version__
from ._retrograde import nim as nim
from ._retrograde import open_table as open_table
from ._retrograde import sniff as sniff
from ._retrograde import solve as solve
from ._retrograde import subtraction as subtraction

def solve_graph(
    graph: Any,
    *,
    n: Optional[int] = None,
    win: Iterable[Any] = ...,
    loss: Iterable[Any] = ...,
    misere: bool = False,
    threads: Optional[int] = None,
) -> ValuesAndDistances: ...
def grundy(graph: Any, *, n: Optional[int] = None) -> npt.NDArray[np.uint32]: ...


class CopNumber(TypedDict):
    cop_number: Optional[int]
    placement: List[Any]
    capture_time: Optional[int]
    capture_time_plies: Optional[int]
    vertices: int

def cop_number(graph: Any, *, n: Optional[int] = None, max_cops: int = 4) -> CopNumber: ...
