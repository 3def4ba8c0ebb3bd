"""The `hl` dialect: the core-ATen subset a transformer needs, on builtin tensors.

Level 1 of lumir (value semantics). Each op is the ATen operation of the same name, with
the same broadcasting and dtype rules, so the torch importer is a table and the CPU
reference executor can run an op as the torch call it came from. Shapes are static
(dynamic dimensions are specialised by the frontend before import).

Ops verify what ATen would reject: operand/result element types, broadcast shapes,
reduction dimensions and the shapes of matmuls, so no pass can hand a shape-inconsistent
op to the next. The declarative part is IRDL (`constraints`); every result type has one
inference function (`infer`), which builders, verifiers and the importer share.

Modules, by op family: `elementwise` (arithmetic, activations, cast, compare, where),
`reductions` (sum, mean, amax, softmax), `products` (matmul, linear, addmm, sdpa),
`views` (transpose, reshape, expand, slice, cat, embedding), `constants` and `fused`
(`hl.fused`: a chain of elementwise and row-reduction ops run as one kernel; what one
kernel computes is `row_program`).
"""

from xdsl.ir import Dialect

from lumir.dialects.hl import infer
from lumir.dialects.hl.constants import ConstantOp, splat
from lumir.dialects.hl.elementwise import (
    AbsOp,
    AddOp,
    BitwiseAndOp,
    CastOp,
    CompareOp,
    ComparePredicate,
    CosOp,
    DivOp,
    ElementwiseBinaryOp,
    ElementwiseUnaryOp,
    ExpOp,
    GeluApproximation,
    GeluOp,
    LogOp,
    MaximumOp,
    MinimumOp,
    MulOp,
    NegOp,
    PowOp,
    ReluOp,
    RsqrtOp,
    SigmoidOp,
    SiluOp,
    SinOp,
    SqrtOp,
    SubOp,
    TanhOp,
    WhereOp,
)
from lumir.dialects.hl.fused import FusedOp, YieldOp
from lumir.dialects.hl.generators import ArangeOp, CumsumOp, IndexCopyOp, IndexOp, PadOp
from lumir.dialects.hl.infer import broadcast_shapes, matmul_shape
from lumir.dialects.hl.products import (
    AddmmOp,
    LinearOp,
    MatmulOp,
    ScaledDotProductAttentionOp,
)
from lumir.dialects.hl.reductions import AmaxOp, MeanOp, ReductionOp, SoftmaxOp, SumOp
from lumir.dialects.hl.views import (
    CatOp,
    EmbeddingOp,
    ExpandOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
)

HL = Dialect(
    "hl",
    [
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        PowOp,
        MaximumOp,
        MinimumOp,
        NegOp,
        RsqrtOp,
        SqrtOp,
        ExpOp,
        ReluOp,
        SiluOp,
        SigmoidOp,
        TanhOp,
        GeluOp,
        CastOp,
        SumOp,
        MeanOp,
        AmaxOp,
        SoftmaxOp,
        MatmulOp,
        LinearOp,
        AddmmOp,
        ScaledDotProductAttentionOp,
        TransposeOp,
        ReshapeOp,
        ExpandOp,
        SliceOp,
        CatOp,
        EmbeddingOp,
        CompareOp,
        WhereOp,
        ConstantOp,
        CosOp,
        SinOp,
        LogOp,
        AbsOp,
        BitwiseAndOp,
        ArangeOp,
        CumsumOp,
        IndexCopyOp,
        IndexOp,
        PadOp,
        FusedOp,
        YieldOp,
    ],
    [],
)

__all__ = [
    "HL",
    "AbsOp",
    "AddOp",
    "AddmmOp",
    "AmaxOp",
    "ArangeOp",
    "BitwiseAndOp",
    "CastOp",
    "CatOp",
    "CompareOp",
    "ComparePredicate",
    "ConstantOp",
    "CosOp",
    "CumsumOp",
    "DivOp",
    "ElementwiseBinaryOp",
    "ElementwiseUnaryOp",
    "EmbeddingOp",
    "ExpOp",
    "ExpandOp",
    "FusedOp",
    "GeluApproximation",
    "GeluOp",
    "IndexCopyOp",
    "IndexOp",
    "LinearOp",
    "LogOp",
    "MatmulOp",
    "MaximumOp",
    "MeanOp",
    "MinimumOp",
    "MulOp",
    "NegOp",
    "PadOp",
    "PowOp",
    "ReductionOp",
    "ReluOp",
    "ReshapeOp",
    "RsqrtOp",
    "ScaledDotProductAttentionOp",
    "SigmoidOp",
    "SiluOp",
    "SinOp",
    "SliceOp",
    "SoftmaxOp",
    "SqrtOp",
    "SubOp",
    "SumOp",
    "TanhOp",
    "TransposeOp",
    "WhereOp",
    "YieldOp",
    "broadcast_shapes",
    "infer",
    "matmul_shape",
    "splat",
]
