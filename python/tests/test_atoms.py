"""irlint.atoms: the seed's worked examples, the pinned record format, and the
same results as `irlint atoms --format json`."""

import json

import pytest

import irlint
from conftest import ROOT, cli_json

MIXED = "tests/data/atoms/mixed.json"


def fields(r):
    return {k: getattr(r, k) for k in ("index", "id", "verifier", "ok", "rule", "message", "value")}


def test_worked_example_0x42():
    """Seed 002: raw 0x42 is cta_group::2 with kind i8; rule 1 fires unless the
    target is arch-conditional, and then the ladder ends at opcode 10522."""
    plain, arch = irlint.atoms(
        [
            {"verifier": "tcgen05-kind", "id": "0x42", "raw": 0x42},
            {"verifier": "tcgen05-kind", "id": "0x42-arch", "raw": "0x42", "is_arch_cond": True},
        ]
    )
    assert fields(plain) == {
        "index": 0,
        "id": "0x42",
        "verifier": "tcgen05-kind",
        "ok": False,
        "rule": "atom-tcgen05-kind",
        "message": "INT8 type is supported only on arch-conditional variants.",
        "value": None,
    }
    assert fields(arch) == {
        "index": 1,
        "id": "0x42-arch",
        "verifier": "tcgen05-kind",
        "ok": True,
        "rule": None,
        "message": None,
        "value": {"opcode": 10522},
    }


def test_worked_example_0xe2():
    """Seed 002: raw 0xE2 sets block scale with kind f16: rule 6."""
    (r,) = irlint.atoms([{"verifier": "tcgen05-kind", "raw": 0xE2, "isa": "sm_100a"}])
    assert (r.ok, r.rule, r.message, r.id) == (
        False,
        "atom-tcgen05-kind",
        "Block scale is not supported for f16, tf32, f8f6f4, and i8 types",
        None,
    )


def test_umma_and_the_other_verifiers():
    results = irlint.atoms(
        [
            {
                "verifier": "umma-layout",
                "direction": "K",
                "elem_bits": 16,
                "swizzle": [3, 4, 3],
                "layout": "((8,16),16):((64,512),1)",
            },
            {"verifier": "ldsm", "mode": "MT1616", "size": "u8", "num_matrices": 2, "transpose": True, "result_shape": [4]},
            {"verifier": "swizzle-commutation", "swizzle": (3, 4, 3), "offset": 2048},
            {"verifier": "tma", "mode": "im2col", "rank": 2, "target": "sm_90a"},
            {"verifier": "sm120-block-scale", "k": 32, "a_type": "e4m3", "b_type": "e5m2", "sf_type": "ue8m0",
             "scale_vector_size": 32, "scale_fragment_bits": 8},
        ]
    )
    assert [(r.ok, r.value) for r in results[:3]] == [
        (True, {"elem_class": 2, "k_size": 16, "mn_size": 128}),
        (True, {"registers": 4}),
        (True, {"period": 1024}),
    ]
    assert (results[3].rule, results[3].message) == ("atom-tma-rank-mode", "`rank` is 2, expected 3 to 5 for mode im2col")
    assert (results[4].ok, results[4].value) == (True, None)


def test_same_results_as_the_cli(irlint_bin):
    code, cli, _ = cli_json(irlint_bin, ["atoms", "--format", "json", MIXED])
    assert code == 2
    want = [{k: v for k, v in r.items() if k != "path"} for r in cli["results"]]
    text = (ROOT / MIXED).read_text()
    from_dicts = [fields(r) for r in irlint.atoms(json.loads(text))]
    from_text = [fields(r) for r in irlint.atoms(text)]
    assert from_dicts == want
    assert from_text == want
    assert len(want) == 22
    assert sum(r["ok"] for r in want) == 8


def test_malformed_records_are_results_and_the_others_still_run():
    results = irlint.atoms(
        [
            {"verifier": "ldsm", "id": "bad", "mode": "M99", "size": "u16", "num_matrices": 1, "transpose": False,
             "result_shape": [1]},
            {"verifier": "tma", "mode": "tile", "rank": 3, "target": "sm_90"},
            {"verifier": "nope"},
            {"verifier": "tma", "mode": "tile", "rank": 3, "target": "sm_90", "colour": 1},
            ["not", "a", "record"],
        ]
    )
    assert [(r.ok, r.rule, r.message) for r in results] == [
        (False, "input-error", 'key `mode`: unknown value "M99" (one of: M88, MT88, M816, M832, MT1616)'),
        (True, None, None),
        (
            False,
            "input-error",
            'key `verifier`: unknown value "nope" (one of: ldsm, stsm, matrix-copy, register-fragment, '
            "umma-layout, tcgen05-kind, sm120-block-scale, swizzle-commutation, tma)",
        ),
        (False, "input-error", "key `colour`: unknown key for verifier tma (keys: id, mode, rank, target)"),
        (False, "input-error", "a record is a JSON object, got an array"),
    ]


def test_json_lines_and_a_single_record():
    text = (
        '{"verifier": "swizzle-commutation", "id": "a", "swizzle": [2, 4, 3], "offset": 512}\n'
        "\n"
        '{"verifier": "tma", "id": "b", "mode": \n'
    )
    a, b = irlint.atoms(text)
    assert (a.id, a.ok, a.value) == ("a", True, {"period": 512})
    assert (b.id, b.ok, b.rule) == (None, False, "input-error")
    assert b.message.startswith("invalid JSON: ")
    (one,) = irlint.atoms({"verifier": "tma", "mode": "tile", "rank": 3, "target": "sm_90", "id": {"op": 3}})
    assert (one.id, one.value) == ({"op": 3}, {"rank": 3})
    assert repr(one) == "AtomResult(index=0, id={'op': 3}, ok=True, value={'rank': 3})"


def test_unreadable_input_raises(irlint_bin, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    code, cli, _ = cli_json(irlint_bin, ["atoms", "--format", "json", str(bad)])
    assert code == 2
    with pytest.raises(irlint.InputError) as e:
        irlint.atoms("[1, 2")
    assert e.value.message == cli["findings"][0]["message"]
    assert e.value.path == "<records>"
    assert e.value.report.exit_code == 2
    with pytest.raises(TypeError, match=r"^record 0: key `rank`: set cannot be written as JSON$"):
        irlint.atoms([{"verifier": "tma", "rank": {1, 2}}])
    with pytest.raises(TypeError, match=r"^record 1: key `offset`: NaN is not a JSON number$"):
        irlint.atoms([{}, {"offset": float("nan")}])
    loop = []
    loop.append(loop)
    with pytest.raises(TypeError, match="nested deeper than 64 levels"):
        irlint.atoms([{"verifier": loop}])


@pytest.mark.parametrize("data", [b"[]", bytearray(b'{"verifier": "tma"}'), memoryview(b"[1]")])
def test_bytes_are_not_records(data):
    # Iterating bytes would run each byte as an integer record; bytes are refused
    # like any other non-record (decode JSON text to str first).
    with pytest.raises(TypeError, match=r"^atoms\(\) takes a record \(dict\), an iterable of records, or the JSON text as str, not (bytes|bytearray|memoryview) \(decode it first\)$"):
        irlint.atoms(data)
    with pytest.raises(TypeError):
        irlint.atoms(5)
    assert irlint.atoms(b"[]".decode()) == []
