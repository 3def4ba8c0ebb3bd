"""Choose the cheapest legal program in a saturated e-graph, deterministically.

1. Legality: every call e-node is rebuilt into a full descriptor and checked with the
   verifier's `check_matmul` (V1-V10). A node that fails is never selectable, and is
   recorded with the rules that proposed it, so a wrong rule costs a missed fusion and a
   report, never wrong numbers.
2. Tree cost: every class gets its cheapest node, each node costing its own roofline
   time (`cost_model`) plus its children's costs, settled children first (Knuth's
   generalisation of Dijkstra's algorithm), so the choice has no cycles.
3. Sharing: tree cost counts a shared child once per parent. A local search over the
   actual DAG (each selected class counted once, tracked with reference counts) then
   tries, for each selected class, every other node, and for each class some parents
   could share, switching all of those parents to it at once; a move is kept only if
   the total strictly drops. This is where a fusion that would recompute a GEMM still
   needed elsewhere is refused, unless recomputing is cheaper. The search starts once
   from the input program and once from the tree-cost choice; the cheaper end wins.

Ties break on (cost, node from the input program first, stable node key), and classes
are visited in a fixed order of their stable keys, so the result depends only on the
input program: not on egglog's class ids, hash seeds or timing.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from lumir.egraph_bridge.cost_model import VIEW_SECONDS, kernel_seconds, matmul_seconds
from lumir.egraph_bridge.descriptors import UndecodableCallError, call_descriptor
from lumir.egraph_bridge.egraph_view import EClass, EGraphView, ENode
from lumir.verifier import check_matmul

IMPROVEMENT_SECONDS = 1e-12
"""A sharing move must save more than this (far below any real saving, far above
floating-point noise in the running total)."""

MAX_SWEEPS = 16
"""Bound on local-search sweeps; every kept move strictly lowers the total anyway."""


@dataclass(frozen=True)
class Rejection:
    """A call e-node the verifier refused: where, which rules made it, and why."""

    class_id: int
    node: ENode
    problems: tuple[str, ...]


@dataclass
class Extraction:
    """The chosen node of every class the program needs, and what was refused."""

    choice: dict[int, ENode]
    cost: float
    """Seconds the selection costs under the cost model (each class counted once)."""
    input_cost: float
    """Seconds the input program costs under the same model."""
    rejected: list[Rejection]


class ExtractionError(Exception):
    """A class the program needs has no legal, finite-cost node."""


def _types(view: EGraphView, node: ENode) -> list[TensorType[Attribute] | None]:
    return [None if c is None else view.classes[c].tensor_type for c in node.children]


def node_cost(view: EGraphView, eclass: EClass, node: ENode) -> tuple[float | None, list[str]]:
    """(own cost in seconds, problems): a node with problems is not selectable."""
    if node.kind == "Leaf":
        return 0.0, []
    if node.kind == "Reshape":
        return VIEW_SECONDS, []
    result = eclass.tensor_type
    operands = _types(view, node)
    missing = any(t is None for t, c in zip(operands, node.children, strict=True) if c is not None)
    if result is None or missing:
        return None, ["an operand or the result has no known tensor type"]
    if node.kind != "Matmul":
        return kernel_seconds([t for t in operands if t is not None], result), []
    a, b, c, bias = operands
    assert a is not None and b is not None
    try:
        desc = call_descriptor(node.call, a, b, c, result)
    except (UndecodableCallError, ValueError) as error:
        return None, [str(error)]
    problems = [str(p) for p in check_matmul(desc, a, b, c, bias, result)]
    if problems:
        return None, problems
    return matmul_seconds(desc, a, b, c, bias, result), []


@dataclass(frozen=True)
class _Candidate:
    node: ENode
    cost: float
    preferred: bool


def _candidates(
    view: EGraphView, preferred: Callable[[int, ENode], bool]
) -> tuple[list[list[_Candidate]], list[Rejection]]:
    legal: list[list[_Candidate]] = []
    rejected: list[Rejection] = []
    for eclass in view.classes:
        found: list[_Candidate] = []
        for node in eclass.nodes:
            cost, problems = node_cost(view, eclass, node)
            if cost is None:
                if node.kind == "Matmul":
                    rejected.append(Rejection(eclass.id, node, tuple(problems)))
                continue
            found.append(_Candidate(node, cost, preferred(eclass.id, node)))
        legal.append(found)
    return legal, rejected


def _tree_choice(legal: list[list[_Candidate]]) -> list[_Candidate | None]:
    """The cheapest node of every class by tree cost, children before parents.

    Knuth's generalisation of Dijkstra's algorithm: a class is settled once, with the
    best-ranked node whose operand classes are all settled, in order of rank. A node
    is only ranked once its operands are settled, so a node that reads its own class,
    or a class that reads it back (an identity reshape that rules proved equal to its
    operand), can never be chosen for it, whatever the arithmetic does. Tree cost counts
    a shared child once per parent, so it grows exponentially with depth (3e7 seconds
    for 48 decoder layers) and a view's 1e-9 s vanishes in its rounding; a fixed point
    over those sums could then prefer such a node on a tie and choose a cycle.
    """
    count = len(legal)
    waiting: list[list[int]] = []  # per class and node: operand classes not yet settled
    readers: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    heap: list[tuple[float, int, str, int, int]] = []
    for cls, cands in enumerate(legal):
        waiting.append([])
        for index, cand in enumerate(cands):
            operands = sorted(set(cand.node.operands))
            waiting[cls].append(len(operands))
            for operand in operands:
                readers[operand].append((cls, index))
            if not operands:
                heapq.heappush(heap, (*_rank(cand), cls, index))
    choice: list[_Candidate | None] = [None] * count
    total = [0.0] * count
    while heap:
        cost, _, _, cls, index = heapq.heappop(heap)
        if choice[cls] is not None:
            continue
        choice[cls], total[cls] = legal[cls][index], cost
        for reader, position in readers[cls]:
            waiting[reader][position] -= 1
            if waiting[reader][position] == 0 and choice[reader] is None:
                cand = legal[reader][position]
                tree_cost = cand.cost + sum(total[c] for c in cand.node.operands)
                rank = (tree_cost, 0 if cand.preferred else 1, cand.node.key)
                heapq.heappush(heap, (*rank, reader, position))
    return choice


def _components(legal: list[list[_Candidate]]) -> list[int]:
    """Strongly connected component of each class (Tarjan, iterative)."""
    count = len(legal)
    edges = [sorted({c for cand in legal[v] for c in cand.node.operands}) for v in range(count)]
    index = [-1] * count
    low = [0] * count
    component = [-1] * count
    on_stack = [False] * count
    stack: list[int] = []
    counter = 0
    components = 0
    for root in range(count):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            if i < len(edges[v]):
                work.append((v, i + 1))
                w = edges[v][i]
                if index[w] == -1:
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component[w] = components
                    if w == v:
                        break
                components += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return component


class _Selection:
    """A choice per class with reference counts from the roots and its exact DAG cost.

    Moves are transactions: `try_moves` makes them, walking reference counts to the
    exact new total, and undoes them unless the total ends below a bar. Removals come
    first, so the walk that follows only adds cost and stops as soon as the bar is out of
    reach; a hopeless move never walks a long chain of classes it would have to add (a
    residual stream the selection no longer uses).
    """

    def __init__(self, choice: list[_Candidate | None], roots: Sequence[int]):
        self.choice = choice
        self.refs = [0] * len(choice)
        self.total = 0.0
        for root in roots:
            self._walk(root, 1, [], None)

    def _node(self, cls: int) -> _Candidate:
        cand = self.choice[cls]
        assert cand is not None
        return cand

    def _walk(self, cls: int, delta: int, log: list[tuple[int, int]], bar: float | None) -> bool:
        """Add `delta` (+1/-1) to a class's count, following into classes that become
        selected or unselected; False as soon as the total reaches `bar` while adding."""
        stack = [cls]
        while stack:
            current = stack.pop()
            self.refs[current] += delta
            log.append((current, delta))
            if self.refs[current] == (1 if delta > 0 else 0):
                cand = self._node(current)
                self.total += delta * cand.cost
                if bar is not None and self.total >= bar:
                    return False
                stack.extend(reversed(cand.node.operands))
        return True

    def try_moves(self, moves: Sequence[tuple[int, _Candidate]], bar: float) -> bool:
        """Switch each (selected) class to its new node; keep all if the total ends below
        `bar`, else restore the selection exactly and return False."""
        saved = self.total
        log: list[tuple[int, int]] = []
        switched: list[tuple[int, _Candidate]] = []
        for position, (cls, new) in enumerate(moves):
            if self.refs[cls] == 0:
                continue
            old = self._node(cls)
            self.choice[cls] = new
            switched.append((cls, old))
            self.total += new.cost - old.cost
            for child in old.node.operands:
                self._walk(child, -1, log, None)
            watch = bar if position == len(moves) - 1 else None
            if not all(self._walk(child, 1, log, watch) for child in new.node.operands):
                break
        else:
            if self.total < bar:
                return True
        for cls, delta in reversed(log):
            self.refs[cls] -= delta
        for cls, old in reversed(switched):
            self.choice[cls] = old
        self.total = saved
        return False


def _movable(
    legal: list[list[_Candidate]], choice: list[_Candidate | None], component: list[int]
) -> list[list[_Candidate]]:
    """Per class, the nodes a move may switch to: extractable, and leaving the class's
    strongly connected component, so no switch can close a cycle."""
    movable: list[list[_Candidate]] = []
    for cls, cands in enumerate(legal):
        movable.append(
            [
                cand
                for cand in cands
                if all(
                    choice[c] is not None and component[c] != component[cls]
                    for c in cand.node.operands
                )
            ]
        )
    return movable


def _rank(cand: _Candidate) -> tuple[float, int, str]:
    return (cand.cost, 0 if cand.preferred else 1, cand.node.key)


def _sharers(movable: list[list[_Candidate]]) -> list[list[tuple[int, _Candidate]]]:
    """Per class, the (parent class, node) pairs that could read it, best node first."""
    sharers: list[list[tuple[int, _Candidate]]] = [[] for _ in movable]
    for cls, cands in enumerate(movable):
        for cand in sorted(cands, key=_rank):
            for child in sorted(set(cand.node.operands)):
                sharers[child].append((cls, cand))
    return sharers


def _improve(
    selection: _Selection,
    movable: list[list[_Candidate]],
    sharers: list[list[tuple[int, _Candidate]]],
) -> bool:
    """One sweep of single switches, then of shared-child moves; True if any was kept.

    Classes are visited from the last to the first: class ids follow program order, so
    consumers decide before producers, and a consumer that stops needing a value lets
    the producer change in the same sweep (a chain of blocks settles in one sweep, not
    one sweep per block). Each kept move lowers the total by more than
    IMPROVEMENT_SECONDS; a class keeps trying its other nodes after a kept switch, so it
    ends on its best one.
    """
    improved = False
    for cls in reversed(range(len(movable))):
        for cand in movable[cls]:
            if selection.refs[cls] == 0 or cand is selection.choice[cls]:
                continue
            bar = selection.total - IMPROVEMENT_SECONDS
            if selection.try_moves([(cls, cand)], bar):
                improved = True
    for shared in reversed(range(len(sharers))):
        if len(sharers[shared]) > 1 and _share(selection, shared, sharers[shared]):
            improved = True
    return improved


def _share(selection: _Selection, shared: int, parents: list[tuple[int, _Candidate]]) -> bool:
    """Switch every selected parent that could read `shared` to its best node that does;
    keep the move if the total drops (one GEMM kept instead of one per consumer)."""
    moves: list[tuple[int, _Candidate]] = []
    for parent, cand in parents:
        current = selection.choice[parent]
        if any(p == parent for p, _ in moves) or selection.refs[parent] == 0 or current is None:
            continue
        if shared not in current.node.operands:
            moves.append((parent, cand))
    if len(moves) < 2:
        return False
    return selection.try_moves(moves, selection.total - IMPROVEMENT_SECONDS)


def _input_choice(
    legal: list[list[_Candidate]], fallback: list[_Candidate | None], component: list[int]
) -> list[_Candidate | None]:
    """The input program as a selection: its own node in every class that has one.

    Rules can prove a value equal to one of its operands (an identity reshape), which puts
    an input node in a cycle; such nodes are skipped for the tree choice, which has none.
    """
    choice = list(fallback)
    for cls, cands in enumerate(legal):
        written = [
            cand
            for cand in cands
            if cand.preferred
            and all(
                fallback[c] is not None and component[c] != component[cls]
                for c in cand.node.operands
            )
        ]
        if written:
            choice[cls] = min(written, key=_rank)
    return choice


def _search(
    start: list[_Candidate | None],
    roots: Sequence[int],
    movable: list[list[_Candidate]],
    sharers: list[list[tuple[int, _Candidate]]],
) -> _Selection:
    selection = _Selection(list(start), roots)
    for _ in range(MAX_SWEEPS):
        if not _improve(selection, movable, sharers):
            break
    return selection


def extract(
    view: EGraphView,
    roots: Sequence[int],
    preferred: Callable[[int, ENode], bool],
) -> Extraction:
    """The cheapest legal selection reaching `roots` (class ids the program needs).

    `preferred(class_id, node)` marks nodes written in the input program; among equal
    costs they win, so unfused code comes back as it was written. The local search runs
    twice, from the input program and from the tree-cost choice, and the cheaper result
    wins (the input's on a tie): the pass never returns a program its cost model rates
    worse than the one it was given.
    """
    legal, rejected = _candidates(view, preferred)
    tree_choice = _tree_choice(legal)
    for root in roots:
        if tree_choice[root] is None:
            raise ExtractionError(
                f"no legal e-node computes class {view.classes[root].key}; every "
                f"candidate failed the verifier"
            )
    component = _components(legal)
    movable = _movable(legal, tree_choice, component)
    sharers = _sharers(movable)
    input_start = _input_choice(legal, tree_choice, component)
    input_cost = _Selection(list(input_start), roots).total
    best = _search(input_start, roots, movable, sharers)
    other = _search(tree_choice, roots, movable, sharers)
    if other.total < best.total - IMPROVEMENT_SECONDS:
        best = other
    chosen = {
        cls: cand.node
        for cls, cand in enumerate(best.choice)
        if cand is not None and best.refs[cls] > 0
    }
    return Extraction(chosen, best.total, input_cost, rejected)
