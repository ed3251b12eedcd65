"""Matplotlib figures as PDF text that pdflatex can include: every byte ASCII, no date.

Generated files are UTF-8 text, compared byte for byte by ``generate --check``; a PDF as
matplotlib writes it is binary only in its second line (an optional marker comment) and in
the non-ASCII bytes of its text strings (``µ`` as one Latin-1 byte). Uncompressed, with fonts
as Type 3 procedures, everything else is PDF operators; ``_ascii`` rewrites the rest.
"""

from __future__ import annotations

import io
import re
from typing import Any

_OBJECT = re.compile(rb"(\d+) 0 obj\n(.*?)\nendobj\n", re.DOTALL)
_STREAM = re.compile(rb"\A(.*?)stream\n(.*)\nendstream\Z", re.DOTALL)
_LENGTH = re.compile(rb"/Length (\d+)( 0 R)?")


def pdf_text(figure: Any, header: list[str]) -> str:
    """``figure`` as an uncompressed PDF (fonts as Type 3, drawn by PDF operators), rewritten
    so that every byte is ASCII: the ``header`` lines as PDF comments after the version line,
    each non-ASCII byte of a text string as an octal escape, stream lengths and the
    cross-reference table recomputed. Raises if a non-ASCII byte is found outside a string."""
    import matplotlib
    from matplotlib.backends.backend_pdf import FigureCanvasPdf

    FigureCanvasPdf(figure)
    buffer = io.BytesIO()
    with matplotlib.rc_context({"pdf.compression": 0, "pdf.fonttype": 3}):
        figure.savefig(buffer, format="pdf", metadata={"CreationDate": None, "Producer": None, "Creator": None})
    return _ascii(buffer.getvalue(), header)


def _ascii(data: bytes, header: list[str]) -> str:
    version = data.split(b"\n", 1)[0]
    trailer = re.search(rb"trailer\n(<<.*?>>)\n", data, re.DOTALL)
    if not version.startswith(b"%PDF-") or trailer is None:
        raise ValueError("not a PDF file as matplotlib writes them")
    objects = {int(m.group(1)): m.group(2) for m in _OBJECT.finditer(data)}
    lengths: dict[int, int] = {}  # the object holding a stream's length -> the new length
    for number, body in objects.items():
        stream = _STREAM.match(body)
        if stream is None:
            continue
        content = _escaped(stream.group(2))
        dictionary = stream.group(1)
        length = _LENGTH.search(dictionary)
        if length is None:
            raise ValueError(f"object {number}: a stream without a /Length")
        if length.group(2):  # held by another object
            lengths[int(length.group(1))] = len(content)
        else:
            dictionary = dictionary[:length.start()] + b"/Length %d" % len(content) + dictionary[length.end():]
        objects[number] = dictionary + b"stream\n" + content + b"\nendstream"
    for number, new_length in lengths.items():
        objects[number] = str(new_length).encode()
    out = bytearray(version + b"\n" + b"".join(f"% {line}\n".encode("ascii") for line in header))
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    size = max(objects) + 1
    start = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for number in range(1, size):
        out += (b"%010d 00000 n \n" % offsets[number]) if number in offsets else b"0000000000 00000 f \n"
    out += b"trailer\n" + trailer.group(1) + b"\nstartxref\n%d\n%%%%EOF\n" % start
    return out.decode("ascii")


def _escaped(content: bytes) -> bytes:
    """``content`` with each non-ASCII byte of a string literal written as ``\\ooo``."""
    out = bytearray()
    depth = 0
    escape = False
    for byte in content:
        if depth and escape:
            escape = False
        elif depth and byte == 0x5C:  # backslash
            escape = True
        elif byte == 0x28:  # (
            depth += 1
        elif byte == 0x29 and depth:  # )
            depth -= 1
        if byte > 0x7E or (byte < 0x20 and byte not in (0x0A, 0x0D, 0x09)):
            if not depth:
                raise ValueError(f"a byte {byte:#x} outside a string in a PDF stream")
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out)
