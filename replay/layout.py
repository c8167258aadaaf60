"""A flat observation vector described field by field: each field is a named run of indices with its
meaning, so that the encoder and the documentation (docs/agents.md) come from the same table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """Indices ``start`` to ``start + len(labels) - 1``: one value per label."""

    name: str
    start: int
    labels: tuple[str, ...]
    meaning: str

    @property
    def stop(self) -> int:
        return self.start + len(self.labels)


class Layout:
    """Fields laid end to end, in the order they are added."""

    def __init__(self) -> None:
        self.fields: list[Field] = []
        self.size = 0

    def add(self, name: str, labels: Sequence[str] | int, meaning: str) -> int:
        """Add a field of one value per label (or ``labels`` unnamed values); its first index."""
        names = tuple(str(i) for i in range(labels)) if isinstance(labels, int) else tuple(labels)
        start = self.size
        self.fields.append(Field(name, start, names, meaning))
        self.size += len(names)
        return start

    def markdown(self) -> str:
        """The layout as a Markdown table: indices, field, one value per label, meaning."""
        lines = ["| Indices | Field | Values | Meaning |", "| --- | --- | --- | --- |"]
        for f in self.fields:
            span = str(f.start) if len(f.labels) == 1 else f"{f.start}-{f.stop - 1}"
            values = ", ".join(f.labels) if len(f.labels) > 1 else "-"
            lines.append(f"| {span} | `{f.name}` | {values} | {f.meaning} |")
        return "\n".join(lines)


def action_table(names: Sequence[str]) -> str:
    """The action space as a Markdown table of runs: consecutive actions of one kind on one row."""
    lines = ["| Actions | Kind | Each stands for |", "| --- | --- | --- |"]
    start = 0
    while start < len(names):
        kind = names[start].split(" ", 1)[0]
        stop = start
        while stop + 1 < len(names) and names[stop + 1].split(" ", 1)[0] == kind:
            stop += 1
        span = str(start) if start == stop else f"{start}-{stop}"
        shown = ", ".join(n.split(" ", 1)[1] if " " in n else n for n in names[start:stop + 1])
        lines.append(f"| {span} | {kind} | {shown} |")
        start = stop + 1
    return "\n".join(lines)
