"""Every documented option of the lumir backend does what docs/backend.md says."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
import warnings
from dataclasses import fields
from pathlib import Path

import pytest
import torch

import lumir.backend
from lumir.backend import LumirOptionError, parse_options, stats
from lumir.backend.options import BackendOptions
from lumir.passes.pipeline import PIPELINE, LumirPipelinePass
from lumir.runtime import load

ROOT = Path(__file__).resolve().parents[2]


class RMSNormLinear(torch.nn.Module):
    """RMSNorm (f32 inside) -> Linear with bias -> residual add, cast to f32."""

    def __init__(self, hidden: int = 32):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(hidden, hidden)

    def forward(self, h):
        x32 = h.float()
        normed = (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6)).to(h.dtype)
        return (h + self.linear(normed)).float()


def _run(options: dict | None = None, dtype: torch.dtype = torch.float32):
    torch._dynamo.reset()
    stats.reset()
    model = RMSNormLinear().to(dtype)
    x = torch.randn(2, 4, 32, dtype=dtype)
    with torch.no_grad():
        got = torch.compile(model, backend="lumir", options=options)(x)
        expected = model(x)
    return got, expected, stats.GRAPHS[0].partitions[0].fused


def test_unknown_option_is_a_clear_error():
    with pytest.raises(
        LumirOptionError, match=r"unknown lumir option 'dump'.*valid options: dump_ir"
    ):
        parse_options({"dump": "x"})


@pytest.mark.parametrize("options", ["report", 5, [("report", True)]])
def test_options_that_are_not_a_dict_are_a_clear_error(options):
    with pytest.raises(LumirOptionError, match="lumir options must be a dict"):
        parse_options(options)


def test_unknown_option_through_torch_compile_names_it():
    torch._dynamo.reset()
    compiled = torch.compile(torch.nn.Linear(4, 4), backend="lumir", options={"fusion": 1})
    with pytest.raises(Exception, match=r"unknown lumir option 'fusion'") as raised:
        compiled(torch.randn(2, 4))
    assert "valid options: dump_ir, families" in str(raised.value)


@pytest.mark.parametrize(
    ("mode", "autotune", "cuda_graph"),
    [
        ("reduce-overhead", False, True),
        ("max-autotune", True, True),
        ("max-autotune-no-cudagraphs", True, False),
    ],
)
def test_torch_compile_mode_stands_for_the_options_it_names(
    monkeypatch, mode, autotune, cuda_graph
):
    monkeypatch.delenv("LUMIR_AUTOTUNE", raising=False)
    settings = []
    compile_graph = lumir.backend.compiler.compile_aten_graph

    def recording(gm, example_inputs, options):
        settings.append(options)
        return compile_graph(gm, example_inputs, options=options)

    monkeypatch.setattr(lumir.backend.compiler, "compile_aten_graph", recording)
    torch._dynamo.reset()
    model, x = RMSNormLinear(), torch.randn(2, 4, 32)
    with torch.no_grad():
        got = torch.compile(model, backend="lumir", mode=mode)(x)
        torch.testing.assert_close(got, model(x), atol=1e-5, rtol=1e-5)
    (used,) = settings
    assert (used.autotune, used.cuda_graph) == (autotune, cuda_graph)


def test_unknown_torch_compile_mode_is_a_clear_error():
    torch._dynamo.reset()
    compiled = torch.compile(torch.nn.Linear(4, 4), backend="lumir", mode="fastest")
    with pytest.raises(Exception, match=r"mode 'fastest' has no meaning for lumir; its modes"):
        compiled(torch.randn(2, 4))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"precision": "loose"}, "'precision' must be one of fast, strict"),
        ({"precision": ["fast"]}, "'precision' must be one of fast, strict"),
        ({"precision": {"fast": 1}}, "'precision' must be one of fast, strict"),
        ({"families": ["bias", "glue"]}, "unknown rule family 'glue'"),
        ({"disable": ["transpose"]}, "'transpose' no longer exists: hl-to-cublaslt folds"),
        ({"device": "tpu"}, "'device' must be 'cpu' or 'cuda"),
        ({"device": "cuda:64"}, "'device' is 'cuda:64', but this machine has"),
        ({"report": "yes"}, "'report' must be True or False"),
        ({"cache_size": 0}, "'cache_size' must be an integer >= 1"),
        ({"chunk_bytes": -1}, "'chunk_bytes' must be an integer >= 0"),
        ({"chunk_bytes": True}, "'chunk_bytes' must be an integer >= 0"),
        ({"chunk_bytes": "8MiB"}, "'chunk_bytes' must be an integer >= 0"),
    ],
)
def test_bad_values_name_the_option(options, message):
    with pytest.raises(LumirOptionError, match=message):
        parse_options(options)


@pytest.mark.parametrize("value", ["-3", "lots", "1.5e9"])
def test_a_bad_buffer_limit_in_the_environment_is_refused_at_compile_time(value):
    with pytest.raises(LumirOptionError, match="LUMIR_MAX_BUFFER_BYTES must be a number of bytes"):
        parse_options(None, {"LUMIR_MAX_BUFFER_BYTES": value})
    assert parse_options(None, {"LUMIR_MAX_BUFFER_BYTES": "1000000"}).report is False


def test_environment_turns_on_report_and_dump():
    settings = parse_options(None, {"LUMIR_REPORT": "1", "LUMIR_DUMP_IR": "/tmp/ir"})
    assert settings.report and settings.dump_ir == "/tmp/ir"
    assert not parse_options(None, {}).report
    assert not parse_options(None, {"LUMIR_REPORT": "0"}).report


@pytest.mark.parametrize("value", ["false", "off", "no", "2"])
def test_a_report_switch_other_than_0_or_1_is_refused(value):
    """`LUMIR_REPORT=false` must not turn the report on; it is refused as LUMIR_AUTOTUNE is."""
    with pytest.raises(LumirOptionError, match=f"LUMIR_REPORT must be 0 or 1, got '{value}'"):
        parse_options(None, {"LUMIR_REPORT": value})


def test_report_prints_one_line_with_every_field(capfd):
    _run({"report": True})
    err = capfd.readouterr().err.splitlines()
    lines = [line for line in err if line.startswith("lumir report: ")]
    assert len(lines) == 1
    fields = dict(item.split("=", 1) for item in lines[0].removeprefix("lumir report: ").split())
    for key in (
        "matmuls",
        "cublaslt_calls",
        "fused_bias",
        "fused_beta",
        "fused_act",
        "fused_alpha",
        "fused_cast",
        "fallback_ops",
        "compile_ms",
    ):
        assert key in fields
    assert fields["matmuls"] == "1" and fields["fused_bias"] == "1"


def test_an_unwritable_dump_directory_warns_once_and_the_graph_still_compiles(tmp_path):
    """The dumps are a debugging aid: a dump_ir path that cannot be a directory (here it
    runs through a file) costs one warning naming it, not the graph's compile."""
    from lumir.backend import LumirDumpWarning, LumirFallbackWarning

    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got, expected, fused = _run({"dump_ir": str(blocker / "ir")})
    dump_warnings = [w for w in caught if issubclass(w.category, LumirDumpWarning)]
    assert len(dump_warnings) == 1
    assert str(blocker / "ir") in str(dump_warnings[0].message)
    assert not [w for w in caught if issubclass(w.category, LumirFallbackWarning)]
    assert fused is not None
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_dump_ir_writes_every_stage_in_lumir_pipelines_order(tmp_path):
    _run({"dump_ir": str(tmp_path)})
    # `<label>.<NN>-<stage>.mlir`: NN is the order the stages ran in.
    ran = [re.fullmatch(r".*\.\d+-(.+)\.mlir", p.name)[1] for p in sorted(tmp_path.iterdir())]
    # cublaslt-fuse's dump stands for cublaslt-verify too (the backend verifies its output);
    # the later stages are lumir-pipeline's own under the default options (group-fused off)
    later = [stage.name for stage in LumirPipelinePass().stages(after="cublaslt-verify")]
    assert ran == ["import", *PIPELINE[: PIPELINE.index("cublaslt-fuse") + 1], *later]
    lowered = next(tmp_path.glob("*lower-to-cublaslt-rt.mlir")).read_text()
    assert "cublaslt_rt.plan" in lowered


def test_fuse_kernels_option_fuses_the_row_chains(tmp_path):
    plain, off = tmp_path / "off", tmp_path / "on"
    got_off, expected, _ = _run({"dump_ir": str(plain), "fuse_kernels": False})
    got_on, _, _ = _run({"dump_ir": str(off)})  # on by default
    lowered_off = next(plain.glob("*lower-to-cublaslt-rt.mlir")).read_text()
    lowered_on = next(off.glob("*lower-to-cublaslt-rt.mlir")).read_text()
    assert "cublaslt_rt.fused_launch" not in lowered_off
    assert lowered_on.count("cublaslt_rt.fused_launch") >= 1
    assert lowered_on.count("cublaslt_rt.launch ") < lowered_off.count("cublaslt_rt.launch ")
    assert len(list(off.glob("*fuse-kernels.mlir"))) == 1
    assert not list(plain.glob("*fuse-kernels.mlir"))
    # On CPU a fused kernel runs its body op by op with the same kernels: same bits.
    assert torch.equal(got_on, got_off)
    torch.testing.assert_close(got_on, expected, atol=1e-5, rtol=1e-5)


def test_families_select_the_rules_that_run():
    got, expected, fused = _run()
    assert fused["fused_bias"] == 1 and fused["fused_beta"] == 1
    got, expected, fused = _run({"families": ["gelu"]})
    assert fused["fused_bias"] == 0 and fused["fused_beta"] == 0
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)
    _, _, fused = _run({"disable": ["residual"]})
    assert fused["fused_bias"] == 1 and fused["fused_beta"] == 0


@pytest.mark.parametrize("precision", ["strict", "fast"])
def test_precision_strict_keeps_dtypes_and_fast_may_write_f32(precision):
    torch._dynamo.reset()
    stats.reset()
    torch.manual_seed(0)
    linear = torch.nn.Linear(32, 32).to(torch.bfloat16)
    x = torch.randn(8, 32, dtype=torch.bfloat16)
    with torch.no_grad():
        got = torch.compile(
            lambda t: linear(t).float(), backend="lumir", options={"precision": precision}
        )(x)
        expected = linear(x).float()
    fused_cast = stats.GRAPHS[0].partitions[0].fused["fused_cast"]
    if precision == "strict":
        assert fused_cast == 0
        assert torch.equal(got, expected)  # same dtypes, same roundings as eager
    else:
        assert fused_cast == 1  # the call writes f32: one rounding fewer than eager
        torch.testing.assert_close(got, expected, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize(
    "program",
    [lambda x, w, r: x @ w.t() + r, lambda x, w, r: (x @ w.t()) * 2.5],
    ids=["residual", "alpha"],
)
def test_strict_rounds_a_fused_product_once_and_eagers_bits_need_those_families_off(program):
    """docs/backend.md: strict keeps dtypes but a fused residual or alpha rounds once
    where eager rounds twice; with those families off the bits are eager's."""
    torch.manual_seed(0)
    x, w, r = (
        torch.randn(*shape, dtype=torch.bfloat16) for shape in [(16, 32), (48, 32), (16, 48)]
    )
    expected = program(x, w, r)
    exact = program(*(t.double() for t in (x, w, r)))
    results = {}
    for name, options in [("strict", None), ("eager's", {"disable": ["residual", "alpha"]})]:
        torch._dynamo.reset()
        results[name] = torch.compile(program, backend="lumir", options=options)(x, w, r)
        assert results[name].dtype == torch.bfloat16
    assert torch.equal(results["eager's"], expected)
    half_step = torch.finfo(torch.bfloat16).eps / 2 * exact.abs()
    assert (results["strict"].double() - exact).abs().le(half_step * 1.01).all()  # one rounding
    assert not torch.equal(results["strict"], expected)  # eager's second rounding differs


def test_device_option_is_where_programs_run():
    got, expected, _ = _run({"device": "cpu"})
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)


def test_entry_point_names_the_backend():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert declared["torch_dynamo_backends"]["lumir"] == "lumir.backend:lumir_backend"
    try:
        dist = importlib.metadata.distribution("lumir")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("lumir is not installed")
    installed = [ep for ep in dist.entry_points if ep.group == "torch_dynamo_backends"]
    if not installed:
        pytest.skip("the installed lumir is another checkout, without the entry point")
    assert installed[0].value == "lumir.backend:lumir_backend"


def test_static_inputs_are_read_in_place_and_checked():
    torch._dynamo.reset()
    from torch.fx.experimental.proxy_tensor import make_fx

    from lumir.backend.stages import Dumper, fuse, lower, prepare
    from lumir.frontend import import_graph

    weight, x = torch.randn(8, 4), torch.randn(3, 4)
    gm = make_fx(lambda a, w: a @ w.t(), tracing_mode="fake")(x, weight)
    options = parse_options(None, {})
    dump = Dumper(None, "t")
    module = lower(fuse(prepare(import_graph(gm, {}).module, dump), options, dump), dump)
    program = load(module, "cpu", static_inputs={1: weight})
    torch.testing.assert_close(program(x), x @ weight.t())
    weight.mul_(2.0)  # an in-place update is seen: the program reads the storage
    torch.testing.assert_close(program(x), x @ weight.t())
    with pytest.raises(ValueError, match=r"static input 1 must be torch\.float32 of shape"):
        load(module, "cpu", static_inputs={1: torch.randn(4, 8)})
    with pytest.raises(ValueError, match="not contiguous"):
        load(module, "cpu", static_inputs={1: torch.randn(4, 8).t()})
    assert lumir.backend.GRAPHS is stats.GRAPHS


def test_fuse_pass_precision_option_is_checked():
    from lumir.diagnostics import LumirDiagnosticError
    from lumir.egraph_bridge.fuse_pass import CublasltFusePass

    with pytest.raises(LumirDiagnosticError, match="precision must be one of fast, strict"):
        CublasltFusePass(precision="exact").config()
    assert "cast" not in CublasltFusePass(precision="strict").config().rulesets
    assert "cast" in CublasltFusePass(precision="fast").config().rulesets


def test_gemv_option_moves_one_row_calls_off_cublaslt(tmp_path):
    """A one-row bf16 call runs as lumir's GEMV unless `gemv` is off; the report counts
    it, the lowered IR says it, and on the CPU both compute the same reference GEMM."""

    def run(options: dict, directory: Path):
        torch._dynamo.reset()
        stats.reset()
        torch.manual_seed(0)
        model = torch.nn.Linear(64, 128).to(torch.bfloat16)
        x = torch.randn(1, 64, dtype=torch.bfloat16)
        with torch.no_grad():
            got = torch.compile(
                model, backend="lumir", options={"dump_ir": str(directory), **options}
            )(x)
        lowered = next(directory.glob("*lower-to-cublaslt-rt.mlir")).read_text()
        return got, lowered, stats.GRAPHS[0].partitions[0].fused["gemv_calls"]

    got_on, lowered_on, count_on = run({}, tmp_path / "on")
    got_off, lowered_off, count_off = run({"gemv": False}, tmp_path / "off")
    assert count_on == 1 and 'algorithm = "gemv"' in lowered_on
    assert count_off == 0 and 'algorithm = "gemv"' not in lowered_off
    assert torch.equal(got_on, got_off)
    with pytest.raises(LumirOptionError, match="'gemv' must be True or False"):
        parse_options({"gemv": "yes"})


def test_group_gemv_option_is_checked():
    assert parse_options({}).group_gemv is True
    assert parse_options({"group_gemv": False}).group_gemv is False
    with pytest.raises(LumirOptionError, match="'group_gemv' must be True or False"):
        parse_options({"group_gemv": 1})


@pytest.mark.parametrize(
    "name",
    [f.name for f in fields(BackendOptions) if isinstance(getattr(BackendOptions(), f.name), bool)],
)
def test_every_switch_given_against_its_default_is_taken(name: str) -> None:
    """Each on/off option reaches the settings when given, and is its field's default
    when not: a switch parse_options forgot would silently keep the default."""
    default = getattr(BackendOptions(), name)
    assert getattr(parse_options({}, environ={}), name) is default
    assert getattr(parse_options({name: not default}, environ={}), name) is (not default)
