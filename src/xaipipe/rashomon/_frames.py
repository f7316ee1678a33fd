"""The one ``to_frames`` of the rule-level result classes of :mod:`xaipipe.rashomon`.

A frozen dataclass whose tables are DataFrame fields lists their names, in the order its rule writes
(or pickles) them, in a class attribute ``FRAMES`` and inherits :class:`NamedFrames`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NamedFrames"]


class NamedFrames:
    """Mixin: :meth:`to_frames` of the fields named in ``FRAMES``."""

    #: The tables, in the order the rule writes them.
    FRAMES: ClassVar[tuple[str, ...]] = ()

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by name (:data:`FRAMES`), in that order.

        Returns
        -------
        dict of str -> DataFrame
            ``{name: getattr(self, name)}`` for every name of ``FRAMES`` (the objects themselves,
            not copies).
        """
        return {name: getattr(self, name) for name in self.FRAMES}
