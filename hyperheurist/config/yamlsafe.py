"""Bounded YAML: every file hh reads as YAML (design.yaml, flows, FuseSoC cores, rules files) goes through here.

PyYAML builds aliases as shared objects, so a billion-laughs document loads in microseconds and then makes every
walker that expands it (validation, a depth check) spin for minutes. The document's node graph is measured
before anything is built: the size it would have with every alias expanded, and its depth, each computed once
per node. Duplicate keys are refused (PyYAML keeps the last silently, so `top:` written twice picks one).
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_NODES = 100_000  # expanded; a design.yaml has ~100, a FuseSoC core a few thousand
MAX_DEPTH = 32  # design.yaml nests four levels; anything this deep is a mistake (or an attack on the parser)


class YamlLimitError(ValueError):
    """The document is too large once its aliases are expanded, too deep, or holds a key twice."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class _Loader(yaml.SafeLoader):
    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[object, int] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, MappingNode | SequenceNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue  # unhashable keys are PyYAML's to refuse; a merge key's values may be overridden
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise YamlLimitError(f"key {key!r} given twice (lines {seen[key]} and {line})", line)
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def measure(root: Node) -> tuple[int, int]:
    """(expanded node count, depth) of a composed document, each node visited once (iterative, so a deep
    document cannot exhaust the stack; a recursive alias counts as too large)."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            kids = _children(node)
            size[key] = min(MAX_NODES + 1, 1 + sum(size[id(k)] for k in kids))
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0) if kids else 0
            on_path.discard(key)
            continue
        if key in size:
            continue
        if key in on_path:
            raise YamlLimitError("an alias refers to itself (a recursive document)", node.start_mark.line + 1)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in _children(node) if id(k) not in size)
        if len(on_path) > MAX_DEPTH + 1:
            raise YamlLimitError(f"nested too deeply (more than {MAX_DEPTH} levels)", node.start_mark.line + 1)
    return size[id(root)], depth[id(root)]


def load(text: str) -> Any:
    """The document in ``text``, or None when it is empty. Raises yaml.YAMLError for bad syntax and
    YamlLimitError for a document over the limits or with a duplicate key."""
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()  # PyYAML's composer recurses: a deep document ends here
        except RecursionError:
            raise YamlLimitError(f"nested too deeply (more than {MAX_DEPTH} levels)") from None
        if node is None:
            return None
        nodes, deep = measure(node)
        if nodes > MAX_NODES:
            raise YamlLimitError(f"too large once its aliases are expanded (more than {MAX_NODES:,} values)")
        if deep > MAX_DEPTH:
            raise YamlLimitError(f"nested too deeply (more than {MAX_DEPTH} levels)")
        return loader.construct_document(node)
    finally:
        loader.dispose()
