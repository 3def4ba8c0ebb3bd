"""lumir's torch frontend: import the ATen FX graph aot_autograd produces into `hl`.

    imported = import_graph(graph_module, bindings)   # one specialisation
    imported.module                                    # func.func @forward, level 1

`lumir.frontend.table` is the table of supported ATen overloads and the partitioner's
support predicate; `lumir.frontend.shapes` the one place SymInts become integers;
`lumir.frontend.dtypes` the one table of dtypes; `lumir.frontend.decompositions` the
decompositions lumir asks aot_autograd for.
"""

from lumir.frontend.context import UnsupportedNodeError
from lumir.frontend.decompositions import lumir_decompositions
from lumir.frontend.importer import GraphOutput, ImportedGraph, import_graph
from lumir.frontend.table import TABLE, is_supported, target_name, unsupported_reason

__all__ = [
    "TABLE",
    "GraphOutput",
    "ImportedGraph",
    "UnsupportedNodeError",
    "import_graph",
    "is_supported",
    "lumir_decompositions",
    "target_name",
    "unsupported_reason",
]
