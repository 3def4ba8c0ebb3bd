"""Deep programs extract without a cycle: the tree choice settles children first.

Tree cost counts a shared child once per parent, so a residual stream read three
times per block doubles-and-more at every block: at 30 blocks the sums pass 1e8
seconds and a view's 1e-9 s vanishes in their rounding. The fixed point that chose
nodes by those sums then took, on such a tie, an identity reshape that the rules had
proved equal to its own class, and cublaslt-fuse stopped with "the selection for
class ... depends on itself" (a 48-layer decoder fell back to eager this way). The
extractor now settles classes in rank order, each from nodes whose operands are
settled (lumir.egraph_bridge.extractor._tree_choice).
"""

from __future__ import annotations

from lumir.egraph_bridge.egraph_view import ENode
from lumir.egraph_bridge.extractor import _Candidate, _tree_choice
from lumir.tools import lumir_opt

T3, T2 = "tensor<1x1x64xf32>", "tensor<1x64xf32>"


def deep_program(blocks: int) -> str:
    """`blocks` blocks of: x -> reshape -> linear -> reshape back, + x * x (the
    stream read three times a block; the values are not the point here)."""
    lines = [f"func.func @deep(%x: {T3}, %w: tensor<64x64xf32>) -> {T3} {{"]
    previous = "%x"
    for i in range(blocks):
        lines += [
            f"  %r{i} = hl.reshape {previous} : {T3} -> {T2}",
            f"  %h{i} = hl.linear %r{i}, %w : {T2}, tensor<64x64xf32> -> {T2}",
            f"  %u{i} = hl.reshape %h{i} : {T2} -> {T3}",
            f"  %s{i} = hl.mul {previous}, {previous} : ({T3}, {T3}) -> {T3}",
            f"  %a{i} = hl.add %u{i}, %s{i} : ({T3}, {T3}) -> {T3}",
        ]
        previous = f"%a{i}"
    lines += [f"  func.return {previous} : {T3}", "}"]
    return "\n".join(lines) + "\n"


def test_a_deep_residual_stream_fuses(tmp_path, capsys):
    """At 32 blocks cublaslt-fuse used to stop with an internal error."""
    source = tmp_path / "deep.mlir"
    source.write_text(deep_program(32))
    pipeline = "lumir-pipeline{stop_after=cublaslt-fuse}"
    status = lumir_opt.main([str(source), "-p", pipeline, "-o", str(tmp_path / "out.mlir")])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    fused = (tmp_path / "out.mlir").read_text()
    assert fused.count("cublaslt.matmul") == 32


def _node(kind: str, key: str, *children: int) -> ENode:
    return ENode(kind, (), tuple(children), key)


def test_the_tree_choice_never_takes_a_node_that_reads_its_own_class():
    """Two routes to one value whose sums (~1e18 s) differ only in their rounding: the
    class's written node costs 1e18 + 256 after rounding, a view of another class
    1e18 + 128. The old fixed point took the view, and then, on the exact tie that
    followed, an identity reshape of the class itself (its key sorts first): a
    cycle."""
    base, top, other = 0, 1, 2
    legal = [
        [_Candidate(_node("Leaf", "base"), 1e18, True)],
        [
            _Candidate(_node("Op", "op-top", base), 200.0, True),
            _Candidate(_node("Reshape", "a-self", top), 1e-9, False),
            _Candidate(_node("Reshape", "b-other", other), 1e-9, False),
        ],
        [
            _Candidate(_node("Op", "op-other", base), 100.0, True),
            _Candidate(_node("Reshape", "a-back", top), 1e-9, False),
        ],
    ]
    choice = _tree_choice(legal)
    assert [c.node.key if c else None for c in choice] == ["base", "b-other", "op-other"]
