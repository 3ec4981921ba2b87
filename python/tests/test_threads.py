"""The GIL is released while irlint analyses: another Python thread runs
during a long check, and checks on several threads give the sequential results."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import irlint
from conftest import ROOT, zero_seconds


def big_ptx(entries: int) -> str:
    """A valid PTX module with `entries` kernels (each with one finding)."""
    src = (ROOT / "tests/fixtures/ptx_desc/wgmma_desc.ptx").read_text()
    start = src.index(".visible .entry invalid_wgmma")
    head, entry = src[: src.index(".visible .entry valid_wgmma")], src[start:]
    return head + "".join(entry.replace("invalid_wgmma", f"k{i}") for i in range(entries))


def long_input():
    """A PTX module that takes at least 0.2 s to check (doubled until it does)."""
    n = 500
    while True:
        text = big_ptx(n)
        t = time.perf_counter()
        report = irlint.check(text)
        if time.perf_counter() - t >= 0.2 or n >= 64000:
            return text, report
        n *= 2


def test_another_thread_runs_during_a_check():
    text, expected = long_input()
    assert len(expected) == 4 * text.count(".visible .entry")
    span = {}

    def work():
        span["start"] = time.perf_counter()
        span["report"] = irlint.check(text)
        span["end"] = time.perf_counter()

    ticks = []
    worker = threading.Thread(target=work)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    assert span["end"] - span["start"] >= 0.1
    # Ticks well inside the check: impossible if the check held the GIL (the
    # main thread could only run before it started or after it returned).
    inside = [t for t in ticks if span["start"] + 0.02 < t < span["end"] - 0.02]
    assert len(inside) > 100, (len(ticks), span["end"] - span["start"])
    assert zero_seconds(span["report"].to_json()) == zero_seconds(expected.to_json())


def test_checks_on_several_threads_match_sequential_ones():
    rels = [
        "shaders/examples/sb_stride20_pos_uv.dxil",
        "shaders/examples/sl_coopvec_stride_mismatch.spv",
        "tests/fixtures/ptx/atoms_sm100a.ptx",
        "tests/fixtures/ptx_desc/tcgen05_instr_desc.ptx",
    ] * 4
    data = [(ROOT / r).read_bytes() for r in rels]
    sequential = [zero_seconds(irlint.check(d, path=r).to_json()) for d, r in zip(data, rels)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda dr: zero_seconds(irlint.check(dr[0], path=dr[1]).to_json()), zip(data, rels)))
    assert parallel == sequential
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda _: zero_seconds(irlint.check_paths(["shaders/examples"]).to_json()), range(4)))
    assert len(set(runs)) == 1
