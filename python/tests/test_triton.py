"""irlint.triton: the compile hook on kernels Triton compiles without a GPU.

The kernels below are compiled with ``triton.compile`` for explicit targets
(``GPUTarget("cuda", 100, 32)``), as ``shared/corpus/ptx/triton-3.6/generate.py``
does, into a fresh Triton cache per test. A broken kernel is made with Triton's
own kernel override (``TRITON_KERNEL_OVERRIDE=1``): the PTX Triton wrote is
dumped, its tcgen05.mma instruction descriptor edited, and Triton compiles the
edited PTX into the cubin (ptxas accepts it: the descriptor is a register value).
"""

from __future__ import annotations

import inspect
import re
import warnings
from pathlib import Path

import pytest

import irlint

triton = pytest.importorskip("triton", reason="triton is not installed (pip install triton==3.6.0)")

import irlint.triton as hook  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

if hook._triton_version(triton.__version__) < hook.MIN_TRITON:
    pytest.skip(f"Triton {triton.__version__} is older than 3.4 (no compilation listener)", allow_module_level=True)


@triton.jit
def matmul(a, b, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    y = tl.load(b + rk[:, None] * BN + rn[None, :])
    acc = tl.dot(x, y)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def matmul_allowed(a, b, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    y = tl.load(b + rk[:, None] * BN + rn[None, :])
    acc = tl.dot(x, y)  # irlint: allow(ptx-tcgen05-instr-descriptor)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def add(x, y, out, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(out + i, tl.load(x + i) + tl.load(y + i))


# Triton before 3.6 leaves the version field (bits 46-48) of its tcgen05.mma
# shared-memory descriptors at 0; the PTX ISA fixes it at 0b001 on sm_100
# (Triton PR 8032, "Turn on bit 46 for descriptors in mmav5"). irlint reports it
# on every sm_100 matmul there; the tests that are about something else turn
# that rule off on those versions.
SMEM_RULE = "ptx-tcgen05-smem-descriptor"
DESC_VERSION_0 = hook._triton_version(triton.__version__) < (3, 6)
BASE_RULES = {SMEM_RULE: "allow"} if DESC_VERSION_0 else {}

THIS_FILE = str(Path(__file__).resolve())
DOT_LINE = next(i for i, line in enumerate(Path(__file__).read_text().splitlines(), 1) if "acc = tl.dot(x, y)" in line)
IDESC_RULE = "ptx-tcgen05-instr-descriptor"


def matmul_source(fn=matmul) -> ASTSource:
    sig = {"a": "*fp16", "b": "*fp16", "c": "*fp16", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
    return ASTSource(fn=fn, signature=sig, constexprs={"BM": 128, "BN": 128, "BK": 64})


def add_source() -> ASTSource:
    sig = {"x": "*fp32", "y": "*fp32", "out": "*fp32", "BLOCK": "constexpr"}
    return ASTSource(fn=add, signature=sig, constexprs={"BLOCK": 1024})


def compile_for(src: ASTSource, arch: int):
    return triton.compile(src, target=GPUTarget("cuda", arch, 32))


def irlint_warnings(record) -> list:
    return [w for w in record if issubclass(w.category, hook.IrlintWarning)]


@pytest.fixture(autouse=True)
def fresh_triton(tmp_path, monkeypatch):
    """A Triton cache of the test's own, no listener before, none left after."""
    from triton import knobs

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("TRITON_KERNEL_OVERRIDE", "TRITON_KERNEL_DUMP", "TRITON_STORE_BINARY_ONLY", "TRITON_ALWAYS_COMPILE"):
        monkeypatch.delenv(var, raising=False)
    previous = knobs.compilation.listener
    knobs.compilation.listener = None
    yield
    hook.uninstall()
    knobs.compilation.listener = previous


def set_m(idesc: int, m: int) -> int:
    """The instruction descriptor with M (bits 24-28, M >> 4) replaced."""
    return (idesc & ~(0x1F << 24)) | ((m >> 4) << 24)


def override_with_broken_idesc(tmp_path: Path, monkeypatch, fn, build=None) -> int:
    """Makes Triton build ``fn`` for sm_100 from PTX whose tcgen05.mma
    instruction descriptor says M = 48 (valid with .cta_group::1: 64, 128).
    ``build`` compiles it the way the test will (default: ``triton.compile``).
    Returns how many tcgen05.mma instructions read it."""
    name = fn.fn.__name__
    dump = tmp_path / f"dump-{name}"
    monkeypatch.setenv("TRITON_KERNEL_DUMP", "1")
    monkeypatch.setenv("TRITON_DUMP_DIR", str(dump))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / f"dump-cache-{name}"))
    (build or (lambda: compile_for(matmul_source(fn), 100)))()
    (ptx_file,) = dump.glob(f"*/{name}.ptx")
    ptx = ptx_file.read_text()
    mmas = re.findall(r"tcgen05\.mma\.cta_group::1\.kind::f16 [^,]+, %rd\d+, %rd\d+, (%r\d+),", ptx)
    assert len(mmas) >= 1 and len(set(mmas)) == 1, mmas
    reg = re.escape(mmas[0])
    (idesc,) = re.findall(rf"mov\.b32\s+{reg}, (\d+);", ptx)
    assert (int(idesc) >> 24) & 0x1F == 128 >> 4, "Triton's own descriptor says M = 128"
    broken = re.sub(rf"(mov\.b32\s+{reg}, )\d+;", rf"\g<1>{set_m(int(idesc), 48)};", ptx)
    override = tmp_path / "override" / ptx_file.parent.name
    override.mkdir(parents=True)
    (override / f"{name}.ptx").write_text(broken)
    monkeypatch.delenv("TRITON_KERNEL_DUMP")
    monkeypatch.setenv("TRITON_KERNEL_OVERRIDE", "1")
    monkeypatch.setenv("TRITON_OVERRIDE_DIR", str(tmp_path / "override"))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    return len(mmas)


@pytest.fixture
def broken_matmul(tmp_path, monkeypatch) -> int:
    return override_with_broken_idesc(tmp_path, monkeypatch, matmul)


def install(**kw):
    """hook.install with BASE_RULES under the caller's config dict."""
    config = dict(kw.pop("config", None) or {})
    config["rules"] = {**BASE_RULES, **config.get("rules", {})}
    hook.install(config=config, **kw)


def test_clean_kernels_give_no_warning():
    install()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for arch in (100, 120, 90):
            compile_for(matmul_source(), arch)
        compile_for(add_source(), 100)
    assert irlint_warnings(record) == []
    s = hook.stats()
    assert [(k.name, k.arch, k.cache_hit, k.findings, k.unchecked) for k in s.kernels] == [
        ("matmul", "sm_100", False, 0, None),
        ("matmul", "sm_120", False, 0, None),
        ("matmul", "sm_90", False, 0, None),
        ("add", "sm_100", False, 0, None),
    ]
    assert s.compiled == 4 and s.findings == 0
    assert all(k.triton_seconds > 0 and k.irlint_seconds > 0 for k in s.kernels)
    # The hook's cost against Triton's own compile time (the bound is 5 %).
    assert s.overhead < 0.05, s.summary()


def test_broken_descriptor_warns_once_at_the_dot_line(broken_matmul):
    install()
    with pytest.warns(hook.IrlintWarning) as record:
        kernel = compile_for(matmul_source(), 100)
    assert "tcgen05.mma" in kernel.asm["ptx"]
    (w,) = irlint_warnings(record)
    assert (w.filename, w.lineno) == (THIS_FILE, DOT_LINE)
    msg = w.message
    assert (msg.kernel, msg.arch, msg.rule, msg.level) == ("matmul", "sm_100", IDESC_RULE, "error")
    assert (msg.source_file, msg.source_line) == (THIS_FILE, DOT_LINE)
    assert len(msg.findings) == broken_matmul  # one finding per tcgen05.mma, one warning
    assert {(f.values["field"], f.values["value"]) for f in msg.findings} == {("m", 3)}
    assert msg.ptx_path.endswith("/matmul.ptx") and Path(msg.ptx_path).is_file()
    text = str(msg)
    assert text.startswith(f"error[{IDESC_RULE}] in Triton kernel matmul (sm_100): ")
    assert "m (bits 24-28) = 3" in text
    if broken_matmul > 1:
        assert text.endswith(f"[{broken_matmul} instructions]")
    assert hook.stats().findings == broken_matmul


def test_error_mode_raises_and_cache_hits_are_checked(broken_matmul):
    install(mode="error")
    with pytest.raises(hook.KernelCheckError) as info:
        compile_for(matmul_source(), 100)
    e = info.value
    assert isinstance(e, irlint.IrlintError)
    assert (e.kernel, e.arch) == ("matmul", "sm_100")
    assert {f.rule for f in e.findings} == {IDESC_RULE} and len(e.findings) == broken_matmul
    assert f"{THIS_FILE}:{DOT_LINE}: error[{IDESC_RULE}]" in str(e)
    # Triton cached the kernel before the listener ran: loading it again is a
    # cache hit, checked again.
    with pytest.raises(hook.KernelCheckError):
        compile_for(matmul_source(), 100)
    assert [k.cache_hit for k in hook.stats().kernels] == [False, True]
    # Unless cache hits are left alone.
    install(mode="error", check_cache_hits=False)
    compile_for(matmul_source(), 100)
    assert len(hook.stats().kernels) == 2


def test_rules_and_config_select_what_is_reported(broken_matmul, tmp_path):
    hook.install(rules=["wgmma-smem-descriptor", "atom-tcgen05-kind"])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        compile_for(matmul_source(), 100)
    assert irlint_warnings(record) == []

    install(config={"rules": {IDESC_RULE: "allow"}})
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        compile_for(matmul_source(), 100)
    assert irlint_warnings(record) == []

    toml = "".join(f'"{rule}" = "{level}"\n' for rule, level in {**BASE_RULES, IDESC_RULE: "warn"}.items())
    hook.install(rules=[IDESC_RULE], config="[rules]\n" + toml)
    with pytest.warns(hook.IrlintWarning) as record:
        compile_for(matmul_source(), 100)
    (w,) = irlint_warnings(record)
    assert (w.message.rule, w.message.level) == (IDESC_RULE, "warning")

    # A config file, as irlint.toml.
    (tmp_path / "irlint.toml").write_text("[rules]\n" + toml.replace('"warn"', '"allow"'))
    hook.install(rules=[IDESC_RULE], config=tmp_path / "irlint.toml")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        compile_for(matmul_source(), 100)
    assert irlint_warnings(record) == []

    with pytest.raises(irlint.ConfigError, match="no-such-rule"):
        hook.install(rules=["no-such-rule"])
    with pytest.raises(ValueError, match="mode must be one of 'warn', 'error'"):
        hook.install(mode="strict")
    with pytest.raises(TypeError, match="list of rule ids"):
        hook.install(rules=IDESC_RULE)


def test_suppression_comment_on_the_dot_line_hides_the_finding(tmp_path, monkeypatch):
    mmas = override_with_broken_idesc(tmp_path, monkeypatch, matmul_allowed)
    install(mode="error")
    kernel = compile_for(matmul_source(matmul_allowed), 100)
    assert re.search(r"mov\.b32\s+%r\d+, \d+;", kernel.asm["ptx"]) and mmas >= 1
    (k,) = hook.stats().kernels
    assert (k.name, k.findings) == ("matmul_allowed", 0)


class NoGpuDriver:
    """Just enough of Triton's driver for JIT compilation without a GPU: the
    ``@triton.jit`` path (``kernel.warmup``, as a launch compiles) up to the
    point where a launch would load the cubin."""

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return GPUTarget("cuda", 100, 32)


class Fp16:
    """A dtype as MockTensor wants it: its str() is a torch dtype's name."""

    def __str__(self):
        return "torch.float16"


def test_jit_compile_path_is_checked(tmp_path, monkeypatch):
    from triton.runtime.driver import driver
    from triton.runtime.jit import MockTensor

    # Triton has set_active but no way to get the previous driver back without
    # creating one (which needs a GPU): the attribute is `_active` from 3.5 on,
    # `active` in 3.4.
    monkeypatch.setattr(driver, "_active" if "_active" in vars(driver) else "active", NoGpuDriver())
    matmul.device_caches.clear()  # the JIT's in-memory kernel cache
    t = MockTensor(Fp16())

    def warm():
        matmul.device_caches.clear()
        return matmul.warmup(t, t, t, BM=128, BN=128, BK=64, grid=(1,))

    mmas = override_with_broken_idesc(tmp_path, monkeypatch, matmul, build=warm)
    install(mode="error")
    with pytest.raises(hook.KernelCheckError) as info:
        warm()
    assert (info.value.kernel, info.value.arch, len(info.value.findings)) == ("matmul", "sm_100", mmas)
    assert f"{THIS_FILE}:{DOT_LINE}: error[{IDESC_RULE}]" in str(info.value)
    matmul.device_caches.clear()


def test_tcgen05_descriptor_version_by_triton_version():
    """Triton's own sm_100 matmul: clean from 3.6 on; before, both operand
    descriptors of each tcgen05.mma carry version 0."""
    hook.install()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        compile_for(matmul_source(), 100)
    got = sorted(
        (w.message.rule, w.message.findings[0].values["operand"], w.message.findings[0].values["value"])
        for w in irlint_warnings(record)
    )
    if DESC_VERSION_0:
        assert got == [(SMEM_RULE, "a-desc", 0), (SMEM_RULE, "b-desc", 0)]
        assert all((w.filename, w.lineno) == (THIS_FILE, DOT_LINE) for w in irlint_warnings(record))
    else:
        assert got == []


def test_chains_with_a_user_listener_and_uninstall_restores_it():
    from triton import knobs

    seen = []

    def user_listener(*, src, metadata, metadata_group, times, cache_hit):
        seen.append((metadata["name"], cache_hit, any(k.endswith(".ptx") for k in metadata_group)))

    knobs.compilation.listener = user_listener
    hook.install()
    assert hook.installed() and knobs.compilation.listener is not user_listener
    hook.install(mode="error")  # reconfigures, does not wrap twice
    compile_for(add_source(), 100)
    compile_for(add_source(), 100)
    assert seen == [("add", False, True), ("add", True, True)]
    assert [k.cache_hit for k in hook.stats().kernels] == [False, True]
    hook.uninstall()
    assert not hook.installed() and knobs.compilation.listener is user_listener
    compile_for(add_source(), 90)
    # The user's listener still runs; irlint's no longer does (its stats stay readable).
    assert len(seen) == 3 and len(hook.stats().kernels) == 2


def test_kernel_without_ptx_is_named_not_checked(monkeypatch):
    monkeypatch.setenv("TRITON_STORE_BINARY_ONLY", "1")
    hook.install()
    with pytest.warns(hook.IrlintWarning, match=r"Triton kernel add \(sm_100\) not checked: no PTX") as record:
        compile_for(add_source(), 100)
    (w,) = irlint_warnings(record)
    assert w.message.rule is None and w.message.kernel == "add"
    assert w.filename == THIS_FILE  # the line that compiled it
    assert hook.stats().unchecked == 1


def test_ptx_irlint_cannot_read_is_named_or_raised(tmp_path):
    """Called as Triton calls its listener, with a .ptx that holds no PTX."""
    from triton import knobs

    bad = tmp_path / "k.ptx"
    bad.write_text("this is not PTX\n")
    call = dict(
        src=None,
        metadata={"name": "k", "target": GPUTarget("cuda", 100, 32)},
        metadata_group={"k.ptx": str(bad), "k.json": str(tmp_path / "k.json")},
        times=knobs.CompileTimes(ir_initialization=1000, lowering_stages=[("ptx", 2000)], store_results=0),
        cache_hit=False,
    )
    hook.install()
    with pytest.warns(hook.IrlintWarning, match=r"irlint: Triton kernel k \(sm_100\) not checked: ") as record:
        knobs.compilation.listener(**call)
    (w,) = irlint_warnings(record)
    assert w.message.ptx_path == str(bad) and w.message.findings == []
    (k,) = hook.stats().kernels
    assert (k.name, k.triton_seconds, k.unchecked is not None) == ("k", 0.003, True)
    hook.install(mode="error")
    with pytest.raises(hook.KernelCheckError, match="not checked") as info:
        knobs.compilation.listener(**call)
    assert isinstance(info.value.__cause__, irlint.IrlintError)


def test_versions_without_a_listener_are_refused(monkeypatch):
    monkeypatch.setattr(triton, "__version__", "3.3.1")
    with pytest.raises(hook.UnsupportedTritonError, match=r"needs Triton 3\.4 or later .* this is Triton 3\.3\.1"):
        hook.install()
    assert not hook.installed()


def test_stats_summary_and_debug_log(caplog):
    hook.install()
    with caplog.at_level("DEBUG", logger="irlint.triton"):
        compile_for(add_source(), 100)
        compile_for(add_source(), 100)
    assert [r.getMessage().split(" in ")[0] for r in caplog.records] == [
        "checked Triton kernel add (sm_100)",
        "checked Triton kernel add (sm_100)",
    ]
    assert "(Triton: compiled," in caplog.records[0].getMessage()
    assert "(Triton: cache hit," in caplog.records[1].getMessage()
    summary = hook.stats().summary()
    assert summary.startswith("irlint checked 1 compiled kernel: ")
    assert "; 1 cache hit: " in summary and summary.endswith("; 0 findings")
    hook.reset_stats()
    assert hook.stats().kernels == ()


def test_signature_of_the_listener_matches_triton():
    """The hook is called with the keywords Triton's CompilationListener names."""
    from triton import knobs

    params = set(inspect.signature(knobs.CompilationListener.__call__).parameters) - {"self"}
    assert params == {"src", "metadata", "metadata_group", "times", "cache_hit"}
