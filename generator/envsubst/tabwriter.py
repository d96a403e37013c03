"""Go's ``text/tabwriter`` for the one configuration clusterctl uses (left-aligned, space padding).

Input is bytes. ``\\t`` and ``\\v`` end a cell, ``\\n`` and ``\\f`` end a line. With
``filter_html`` an HTML tag ``<...>`` counts as zero width and an entity ``&...;`` as one, and
while such a sequence is open, tabs and newlines inside it are plain text; a ``\\xff`` byte
brackets an escaped sequence the same way. A line with a single cell, a ``\\f`` and the final
flush each close the current block of lines: columns are aligned only within a block. Inside a
block, column ``c`` of a line is padded to the widest cell (plus padding) among the maximal run of
consecutive lines that all have a tab-terminated cell ``c``. Widths count runes (an invalid byte
counts as one); the text after the last tab of a line is never padded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_CELL_ENDS = frozenset(b"\t\v\n\f")
_LINE_ENDS = frozenset(b"\n\f")
_ESCAPE = 0xFF
_HTML_END = {ord("<"): ord(">"), ord("&"): ord(";")}


def _runes(data: bytes) -> int:
    return len(data.decode("utf-8", "surrogateescape"))


@dataclass
class _Cell:
    text: bytes
    width: int


@dataclass
class _State:
    """The writer's buffered, not yet formatted text."""

    padding: int
    min_width: int
    out: bytearray = field(default_factory=bytearray)
    lines: list[list[_Cell]] = field(default_factory=lambda: [[]])
    text: bytearray = field(default_factory=bytearray)
    counted: int = 0  # bytes of ``text`` already counted into ``width``
    width: int = 0
    end_char: int = 0  # closing byte of an open escaped sequence, 0 when none

    def add(self, data: bytes) -> None:
        self.text += data

    def count(self) -> None:
        self.width += _runes(bytes(self.text[self.counted :]))
        self.counted = len(self.text)

    def start_escape(self, opener: int) -> None:
        self.end_char = _ESCAPE if opener == _ESCAPE else _HTML_END[opener]

    def end_escape(self) -> None:
        if self.end_char == _ESCAPE:
            self.count()
            self.width -= 2  # the two escape bytes take no room
        elif self.end_char == ord(";"):
            self.width += 1  # an entity shows as one character
        self.counted = len(self.text)
        self.end_char = 0

    def end_cell(self) -> int:
        self.lines[-1].append(_Cell(bytes(self.text), self.width))
        self.text = bytearray()
        self.counted = 0
        self.width = 0
        return len(self.lines[-1])

    def flush(self) -> None:
        if self.text:
            if self.end_char:
                self.end_escape()
            self.end_cell()
        self.out += _format(self.lines, self.padding, self.min_width)
        self.lines = [[]]


def _format(lines: list[list[_Cell]], padding: int, min_width: int) -> bytes:
    widths = [[0] * max(len(line) - 1, 0) for line in lines]
    columns = max((len(line) - 1 for line in lines), default=0)
    for column in range(columns):
        row = 0
        while row < len(lines):
            if len(lines[row]) - 1 <= column:
                row += 1
                continue
            block_end = row
            width = min_width
            while block_end < len(lines) and len(lines[block_end]) - 1 > column:
                width = max(width, lines[block_end][column].width + padding)
                block_end += 1
            for member in range(row, block_end):
                widths[member][column] = width
            row = block_end
    out = bytearray()
    for row, line in enumerate(lines):
        for column, cell in enumerate(line):
            out += cell.text
            if column < len(line) - 1:
                out += b" " * (widths[row][column] - cell.width)
        if row + 1 < len(lines):
            out += b"\n"
    return bytes(out)


def tabwrite(data: bytes, *, padding: int, min_width: int = 0, filter_html: bool = False) -> bytes:
    """Write ``data`` through a tabwriter and flush it; return what reaches the output."""
    state = _State(padding=padding, min_width=min_width)
    start = 0
    for index, byte in enumerate(data):
        if state.end_char:
            if byte == state.end_char:
                state.add(data[start : index + 1])
                start = index + 1
                state.end_escape()
            continue
        if byte in _CELL_ENDS:
            state.add(data[start:index])
            state.count()
            start = index + 1
            cells = state.end_cell()
            if byte in _LINE_ENDS:
                state.lines.append([])
                if byte == ord("\f") or cells == 1:
                    state.flush()
        elif byte == _ESCAPE or (filter_html and byte in _HTML_END):
            state.add(data[start:index])
            state.count()
            start = index
            state.start_escape(byte)
    state.add(data[start:])
    state.flush()
    return bytes(state.out)
