# SPDX-License-Identifier: MIT
"""A flattened device tree written from Python (version 17, the layout of
the Devicetree Specification, chapter 5), for trees dtc cannot write:
node names holding any byte but NUL and '/', properties of any length.

    root = Node(b"", [("#address-cells", cells(2))], [Node(b"chosen")])
    blob = fdt(root)
"""

import struct

FDT_MAGIC = 0xd00dfeed
BEGIN_NODE, END_NODE, PROP, END = 1, 2, 3, 9


class Node:
    """A node: @name (bytes), @props [(name, bytes)], @children [Node]."""

    def __init__(self, name, props=(), children=()):
        self.name = name if isinstance(name, bytes) else name.encode()
        self.props = list(props)
        self.children = list(children)


def cells(*values):
    """Big-endian 32-bit cells."""
    return b"".join(struct.pack(">I", v & 0xffffffff) for v in values)


def string(s):
    """A NUL-terminated string property (or a list: "a\\0b")."""
    return s.encode() + b"\0"


def _pad(b):
    return b + b"\0" * (-len(b) % 4)


def fdt(root):
    """The blob of the tree @root. Return: bytes."""
    strings, offsets, body = bytearray(), {}, bytearray()

    def name_off(name):
        if name not in offsets:
            offsets[name] = len(strings)
            strings.extend(name.encode() + b"\0")
        return offsets[name]

    def emit(node):
        body.extend(struct.pack(">I", BEGIN_NODE) + _pad(node.name + b"\0"))
        for name, value in node.props:
            body.extend(struct.pack(">III", PROP, len(value),
                                    name_off(name)) + _pad(value))
        for child in node.children:
            emit(child)
        body.extend(struct.pack(">I", END_NODE))

    emit(root)
    body.extend(struct.pack(">I", END))
    rsvmap = b"\0" * 16  # an empty memory reservation block
    off_rsv = 40
    off_struct = off_rsv + len(rsvmap)
    off_strings = off_struct + len(body)
    total = off_strings + len(strings)
    header = struct.pack(">10I", FDT_MAGIC, total, off_struct, off_strings,
                         off_rsv, 17, 16, 0, len(strings), len(body))
    return header + rsvmap + bytes(body) + bytes(strings)
