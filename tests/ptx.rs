//! PTX front end: the Triton corpus, hand-written fixtures (tests/fixtures/ptx),
//! malformed mutants, recognition and IR snapshots.

mod common;

use irlint::check::{check_bytes, classify, CheckOptions, FileStatus, InputKind};
use irlint::ir::{self, FactKind, InstKind, PtxOp, ScaleVec, TmaMode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    common::root().join("tests/fixtures/ptx").join(name)
}

fn lower_file(p: &Path) -> ir::Module {
    let bytes = std::fs::read(p).unwrap();
    irlint::ptx::lower(&bytes, 0).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn corpus() -> Option<Vec<PathBuf>> {
    let dir = common::shared_dir()?.join("corpus/ptx/triton-3.6");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    Some(files)
}

#[test]
fn triton_corpus_reads_ok_with_no_findings() {
    let Some(files) = corpus() else {
        common::skip_shared("../shared/corpus/ptx/triton-3.6 not found");
        return;
    };
    assert_eq!(files.len(), 68);
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut words: BTreeMap<(String, u16), usize> = BTreeMap::new();
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        let name = p.display().to_string();
        assert_eq!(classify(&name, &bytes), InputKind::Ptx, "{name}");
        let r = check_bytes(&name, &bytes, &CheckOptions::default());
        assert_eq!(r.files.len(), 1);
        assert_eq!(r.files[0].status, FileStatus::Ok, "{name}: {:?}", r.files[0].message);
        assert!(r.diagnostics.is_empty(), "{name}: {:?}", r.diagnostics);
        let m = lower_file(p);
        assert_eq!(m.source, ir::SourceKind::Ptx);
        assert_eq!(m.entry_points.len(), 1, "{name}");
        for f in &m.facts {
            let FactKind::Ptx(x) = &f.kind else { panic!("non-PTX fact") };
            let k = match &x.op {
                PtxOp::LdStMatrix(l) => {
                    assert_eq!(l.registers, l.expected_registers, "{name}: {}", x.word);
                    assert!(l.shared && (l.m, l.n) == (8, 8) && l.format == "b16", "{name}: {}", x.word);
                    "ldst"
                }
                PtxOp::Tcgen05Mma(t) => {
                    *words.entry((t.kind_text.as_deref().unwrap_or_default().to_string(), t.kind_word)).or_default() +=
                        1;
                    assert_eq!(x.target.map(|t| t.name()).as_deref(), Some("sm_100a"));
                    "tcgen05"
                }
                PtxOp::BlockScaledMma(b) => {
                    assert_eq!(x.target.map(|t| t.name()).as_deref(), Some("sm_120a"));
                    assert!(matches!((b.k, b.scale_vec), (32, ScaleVec::X1) | (64, ScaleVec::X2)), "{}", x.word);
                    "mma"
                }
                PtxOp::TensorCopy(c) => {
                    assert_eq!((c.rank, c.mode, c.coords), (2, TmaMode::Tile, 2), "{}", x.word);
                    "tma"
                }
                PtxOp::Mbarrier(b) => {
                    assert!(b.address.is_some(), "{}", x.word);
                    "mbarrier"
                }
                PtxOp::Wgmma(w) => {
                    assert!(w.b_desc.is_some(), "{}", x.word);
                    "wgmma"
                }
            };
            *kinds.entry(k).or_default() += 1;
        }
    }
    // mbarrier: 36 init + 36 inval + 32 try_wait + 10 arrive.expect_tx + 28 tcgen05.commit.
    assert_eq!(
        kinds,
        BTreeMap::from([
            ("ldst", 1480),
            ("mbarrier", 142),
            ("mma", 192),
            ("tcgen05", 104),
            ("tma", 23),
            ("wgmma", 134)
        ])
    );
    // The kind word of ptx-atoms.md §2.1 (bit 5 block_scale, bits 2-3 scale vector, bits 6-8 kind).
    let expect = [("f16", 192), ("f8f6f4", 320), ("mxf4", 488), ("mxf8f6f4", 164), ("tf32", 256)];
    let got: Vec<(&str, u16)> = words.keys().map(|(k, w)| (k.as_str(), *w)).collect();
    assert_eq!(got, expect);
}

/// Triton addresses shared memory as `global_smem` (`.extern .shared .align 16`)
/// plus offsets: with the symbol's alignment every ldmatrix/stmatrix row,
/// mbarrier and TMA address is recovered, all aligned as required except
/// that a TMA buffer is only known `0 mod 16` (the declared alignment), which
/// decides nothing about 128 bytes (and so stays silent).
#[test]
fn triton_shared_addresses_are_recovered_from_the_symbol_alignment() {
    use irlint::analysis::{analyze, AnalysisOptions};
    let Some(files) = corpus() else {
        common::skip_shared("../shared/corpus/ptx/triton-3.6 not found");
        return;
    };
    let mut got: BTreeMap<(&str, u64, u64), usize> = BTreeMap::new();
    for p in &files {
        let m = lower_file(p);
        let a = analyze(&m, &AnalysisOptions::default());
        for f in &m.facts {
            let FactKind::Ptx(x) = &f.kind else { continue };
            let ops: Vec<(&str, Option<ir::Operand>)> = match &x.op {
                PtxOp::LdStMatrix(l) => vec![("row", l.address)],
                PtxOp::Mbarrier(b) => vec![("mbarrier", b.address)],
                PtxOp::TensorCopy(c) => vec![("tma", c.smem), ("tma-mbarrier", c.mbarrier)],
                _ => continue,
            };
            for (what, op) in ops {
                let Some(op) = op else { continue };
                let (rem, k) = a.value(&m, f.function, op).to_congruence(64).unwrap();
                *got.entry((what, rem, 1u64 << k.min(63))).or_default() += 1;
            }
        }
    }
    assert_eq!(
        got,
        BTreeMap::from([
            (("mbarrier", 0, 8), 45),
            (("mbarrier", 0, 16), 62),
            (("mbarrier", 8, 16), 35),
            (("row", 0, 16), 1480),
            (("tma", 0, 16), 23),
            (("tma-mbarrier", 0, 8), 6),
            (("tma-mbarrier", 0, 16), 8),
            (("tma-mbarrier", 8, 16), 6),
        ])
    );
}

#[test]
fn facts_carry_ptx_line_and_python_source_line() {
    let Some(files) = corpus() else {
        common::skip_shared("../shared/corpus not found");
        return;
    };
    let Some(p) = files.iter().find(|p| p.ends_with("mm_scaled_e2m1_128x128x128.sm100.ptx")) else { return };
    let m = lower_file(p);
    let (f, x) = m
        .facts
        .iter()
        .find_map(|f| match &f.kind {
            FactKind::Ptx(x) if matches!(x.op, PtxOp::Tcgen05Mma(_)) => Some((f, x)),
            _ => None,
        })
        .unwrap();
    assert_eq!(x.word, "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X");
    let inst = &m.functions[f.function].insts[f.inst];
    assert_eq!(inst.span.id, 1323, "PTX line");
    let loc = &m.locs[inst.span.loc.unwrap()];
    assert_eq!((m.source_files[loc.file as usize].name.as_str(), loc.line, loc.column), ("generate.py", 45, 52));
    let PtxOp::Tcgen05Mma(t) = &x.op else { unreachable!() };
    assert_eq!((t.kind_word, t.block_scale, t.scale_vec, t.cta_group, t.a_tmem), (488, true, ScaleVec::X2, 1, false));
    // The instruction descriptor is a constant the dataflow sees.
    let Some(ir::Operand::Value(v)) = t.idesc else { panic!("no idesc") };
    assert_eq!(m.const_int(v), Some(144_704_640));
}

#[test]
fn loop_fixture_builds_phis_at_joins() {
    let m = lower_file(&fixture("loop_phis.ptx"));
    let f = m.functions.values().next().unwrap();
    let phis: Vec<usize> = f
        .blocks
        .values()
        .map(|b| b.insts.iter().filter(|h| matches!(f.insts[**h].kind, InstKind::Phi { .. })).count())
        .collect();
    assert_eq!(phis, [0, 2, 0, 0, 0, 1], "phis per block");
    // The predicated `@%p3 mov.u32 %r3, 11` keeps the old value where the guard is off.
    assert!(f.insts.values().any(|i| matches!(i.kind, InstKind::Select { .. })));
    // The loop's induction variable is the analysis' business: it sees constants through phis.
    let a = irlint::analysis::analyze(&m, &Default::default());
    assert!(!a.budget_exceeded);
    insta::assert_snapshot!("ptx_loop_phis_ir", ir::print::module(&m));
    let bytes = std::fs::read(fixture("loop_phis.ptx")).unwrap();
    let d = irlint::dump::dump_bytes("loop_phis.ptx", &bytes, &Default::default());
    assert_eq!(d.kind, InputKind::Ptx);
    let text = irlint::dump::render_text(&[d]);
    assert!(text.contains("  function loop_phis: 2 params, 6 blocks, 20 instructions, 3 phis"), "{text}");
}

#[test]
fn inline_asm_scopes_calls_and_debug_sections() {
    let m = lower_file(&fixture("inline_asm_call.ptx"));
    assert_eq!(m.target.as_deref(), Some("sm_100a, debug"));
    assert_eq!(m.producer.as_deref(), Some("PTX ISA 9.0"));
    let names: Vec<&str> = m.source_files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["/src/k.cu", "/usr/include/helpers.h"]);
    let fnames: Vec<(&str, bool)> = m.functions.values().map(|f| (f.name.as_str(), f.is_declaration)).collect();
    assert_eq!(fnames, [("vprintf", true), ("helper", false), ("inline_asm_call", false)]);
    assert_eq!(m.globals.values().filter_map(|g| g.name.as_deref()).collect::<Vec<_>>(), ["$str", "tile"]);
    // `.loc 2 40 3, function_name …, inlined_at 1 12 5`: helpers.h:40 inlined at k.cu:12.
    type Frame = (String, u32, u32);
    let frames: Vec<(Frame, Option<Frame>)> = m
        .locs
        .values()
        .map(|l| {
            let name = |f: u32| m.source_files[f as usize].name.clone();
            let outer = l.inlined_at.map(|h| (name(m.locs[h].file), m.locs[h].line, m.locs[h].column));
            ((name(l.file), l.line, l.column), outer)
        })
        .filter(|f| f.1.is_some())
        .collect();
    assert_eq!(frames, [(("/usr/include/helpers.h".to_string(), 40, 3), Some(("/src/k.cu".to_string(), 12, 5)))]);
    insta::assert_snapshot!("ptx_inline_asm_call_ir", ir::print::module(&m));
}

#[test]
fn malformed_text_is_an_input_error_with_line_and_column() {
    let bytes = std::fs::read(fixture("bad_operand.ptx")).unwrap();
    let r = check_bytes("bad_operand.ptx", &bytes, &CheckOptions::default());
    assert_eq!(r.files[0].kind, InputKind::Ptx);
    assert_eq!(r.files[0].status, FileStatus::Error);
    assert_eq!(
        r.files[0].message.as_deref(),
        Some("malformed: line 8, column 20: expected ',' or ';', found '%r3' at byte offset 0x6c (108) in PTX module")
    );
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(r.diagnostics[0].rule, "input-error");
    for (text, what) in [
        (".version 8.7\n.target sm_90\n.entry k()\n{\n\tbra L1;\n\tret;\n}\n", "line 5, column 2: undefined label L1"),
        (".version 8.7\n.entry k()\n{\n\tret;\n", "expected '}' closing the function body"),
        (".version 8.7\n.entry k()\n{\n\tmov.u32 %r1, 1; /* open\n}\n", "line 4, column 18: unterminated /* comment"),
        (".version 8.7\n.bogus 1\n", "line 2, column 1: unknown directive .bogus"),
        (".version 8.7\n.entry k()\n{\n.reg .b32 %r<99999999>;\nret;\n}\n", "too many registers in one function"),
    ] {
        let e = irlint::ptx::lower(text.as_bytes(), 0).unwrap_err().to_string();
        assert!(e.contains(what), "{what:?} not in {e:?}");
    }
}

/// xorshift64*, deterministic.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
    }
}

#[test]
fn truncated_and_bit_flipped_ptx_never_panics() {
    let mut inputs = vec![fixture("loop_phis.ptx"), fixture("inline_asm_call.ptx")];
    if let Some(files) = corpus() {
        inputs.extend(files.into_iter().step_by(9));
    } else {
        eprintln!("corpus not found: mutating the fixtures only");
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut errors) = (0, 0);
    for p in &inputs {
        let bytes = std::fs::read(p).unwrap();
        let n = bytes.len();
        let mut mutants: Vec<Vec<u8>> = [0, 9, n / 7, n / 3, n / 2, n * 5 / 6, n.saturating_sub(2)]
            .iter()
            .map(|&c| bytes[..c.min(n)].to_vec())
            .collect();
        // IRLINT_PTX_MUTANTS=N for a longer sweep (default 24 per input).
        let count: usize = std::env::var("IRLINT_PTX_MUTANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(24);
        for _ in 0..count {
            let mut m = bytes.clone();
            match rng.below(3) {
                0 => {
                    for _ in 0..=rng.below(3) {
                        let i = rng.below(n);
                        m[i] ^= 1 << rng.below(8);
                    }
                }
                1 => {
                    // Swap in a structural byte.
                    let i = rng.below(n);
                    m[i] = b"{}[](),;:@!%.<>|-\n\"0x"[rng.below(19)];
                }
                _ => {
                    // Delete a span.
                    let i = rng.below(n);
                    let j = (i + rng.below(64)).min(n);
                    m.drain(i..j);
                }
            }
            mutants.push(m);
        }
        for m in mutants {
            let r = check_bytes("mutant.ptx", &m, &CheckOptions::default());
            for d in &r.diagnostics {
                assert_ne!(d.rule, "internal-error", "{}: {}", p.display(), d.message);
                // Whatever the lowering accepts passes the IR verifier.
                assert!(!d.message.starts_with("malformed module"), "{}: {}", p.display(), d.message);
            }
            match r.files[0].status {
                FileStatus::Error => errors += 1,
                _ => ok += 1,
            }
        }
    }
    assert!(ok > 0 && errors > 0, "ok {ok}, errors {errors}");
}

#[test]
fn directory_walk_reports_ptx_kind() {
    let dir = common::root().join("tests/fixtures/ptx");
    let report = irlint::input::batch::check_paths(&[dir], Default::default());
    let kinds: Vec<(String, InputKind, FileStatus)> = report
        .files
        .iter()
        .map(|f| (Path::new(&f.path).file_name().unwrap().to_string_lossy().into_owned(), f.kind, f.status))
        .collect();
    assert_eq!(
        kinds,
        [
            ("atoms_sm100a.ptx".to_string(), InputKind::Ptx, FileStatus::Ok),
            ("atoms_sm100f.ptx".to_string(), InputKind::Ptx, FileStatus::Ok),
            ("atoms_sm103a.ptx".to_string(), InputKind::Ptx, FileStatus::Ok),
            ("atoms_sm120a.ptx".to_string(), InputKind::Ptx, FileStatus::Ok),
            ("atoms_sm80.ptx".to_string(), InputKind::Ptx, FileStatus::Ok),
            ("atoms_sm90a.ptx".to_string(), InputKind::Ptx, FileStatus::Ok),
            ("bad_operand.ptx".to_string(), InputKind::Ptx, FileStatus::Error),
            ("inline_asm_call.ptx".to_string(), InputKind::Ptx, FileStatus::Ok),
            ("loop_phis.ptx".to_string(), InputKind::Ptx, FileStatus::Ok),
        ]
    );
    let json = serde_json::to_value(&report.files[4]).unwrap();
    assert_eq!(json["kind"], "ptx");
}

/// `(line, rule)` of every `// expect: RULE` annotation: the finding is on the next line.
fn expectations(text: &str) -> Vec<(u64, String)> {
    let mut v: Vec<(u64, String)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let rules = l.trim().strip_prefix("// expect: ")?;
            let rules = rules.split_whitespace().take_while(|w| !w.starts_with('(')).filter(|w| w.starts_with("atom-"));
            Some(rules.map(move |r| (i as u64 + 2, r.to_string())))
        })
        .flatten()
        .collect();
    v.sort();
    v
}

fn findings(path: &Path) -> Vec<(u64, String)> {
    let bytes = std::fs::read(path).unwrap();
    let r = check_bytes(&path.display().to_string(), &bytes, &CheckOptions::default());
    assert_eq!(r.files[0].status, FileStatus::Ok, "{}: {:?}", path.display(), r.files[0].message);
    // The atom fixtures check the atom rules; their placeholder descriptors are
    // the descriptor rules' business (tests/fixtures/ptx_desc).
    let mut v: Vec<(u64, String)> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule.starts_with("atom-"))
        .map(|d| {
            let line = d.values.iter().find(|(k, _)| k == "ptx-line").map(|(_, v)| v.to_string());
            (line.and_then(|l| l.parse().ok()).unwrap_or(0), d.rule.clone())
        })
        .collect();
    v.sort();
    v
}

const ATOM_FIXTURES: [&str; 6] = [
    "atoms_sm100a.ptx",
    "atoms_sm100f.ptx",
    "atoms_sm120a.ptx",
    "atoms_sm90a.ptx",
    "atoms_sm103a.ptx",
    "atoms_sm80.ptx",
];

#[test]
fn atom_rules_fire_on_the_annotated_lines_only() {
    for name in ATOM_FIXTURES {
        let p = fixture(name);
        let want = expectations(&std::fs::read_to_string(&p).unwrap());
        assert!(!want.is_empty());
        assert_eq!(findings(&p), want, "{name}");
    }
    // The verbatim seed strings reach the report.
    let bytes = std::fs::read(fixture("atoms_sm100f.ptx")).unwrap();
    let r = check_bytes("atoms_sm100f.ptx", &bytes, &CheckOptions::default());
    let msgs: Vec<&str> = r.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "INT8 type is supported only on arch-conditional variants.",
            "Explicit scale vector size is supported only on arch-conditional variants.",
            "MXF4 and MXF4NVF4 types with Sparsity are supported only on arch-conditional variants.",
        ]
    );
    assert!(r.diagnostics.iter().all(|d| d.location.function.as_deref() == Some("family_forms")));
}

/// Oracle on the hand-written fixtures: the lines ptxas rejects are exactly the
/// lines irlint flags.
#[test]
fn ptxas_rejects_exactly_the_flagged_lines() {
    let Some(ptxas) = common::ptxas() else {
        common::skip("ptxas not found (pip install nvidia-cuda-nvcc, or set PTXAS)");
        return;
    };
    for name in ATOM_FIXTURES {
        let p = fixture(name);
        let text = std::fs::read_to_string(&p).unwrap();
        let target = text.lines().find_map(|l| l.trim().strip_prefix(".target ")).unwrap().trim().to_string();
        let out = std::process::Command::new(&ptxas)
            .args([format!("-arch={target}"), "-o".into(), "/dev/null".into(), p.display().to_string()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut rejected: Vec<u64> =
            stderr.lines().filter_map(|l| l.split(", line ").nth(1)?.split(';').next()?.parse().ok()).collect();
        rejected.dedup();
        let mut flagged: Vec<u64> = findings(&p).into_iter().map(|(l, _)| l).collect();
        flagged.dedup();
        assert_eq!(flagged, rejected, "{name}: ptxas said\n{stderr}");
    }
}

#[test]
fn human_output_shows_ptx_line_and_python_source_line() {
    let p = common::root().join("tests/fixtures/ptx_loc/dot_scaled.ptx");
    let bytes = std::fs::read(&p).unwrap();
    let path = p.display().to_string();
    let r = check_bytes(&path, &bytes, &CheckOptions::default());
    assert_eq!(r.diagnostics.len(), 1);
    let d = &r.diagnostics[0];
    assert_eq!(d.rule, "atom-tcgen05-kind");
    assert_eq!(d.location.line, Some(14));
    let src = d.location.source.as_ref().unwrap();
    // `.file` records `dot_scaled.py`; reports name the file beside the PTX,
    // relative to the working directory (the package root under `cargo test`).
    assert_eq!((src.file.as_str(), src.line, src.column), ("tests/fixtures/ptx_loc/dot_scaled.py", 6, 11));
    assert_eq!(d.location.source_text.as_deref(), Some("    acc = tl.dot_scaled(a, sa, \"e2m1\", b, sb, \"e2m1\")"));
    let text = irlint::report::human::render_diagnostic(d, false);
    assert!(text.contains(" --> tests/fixtures/ptx_loc/dot_scaled.py:6:11"), "{text}");
    assert!(text.contains("6 |     acc = tl.dot_scaled("), "{text}");
    assert!(text.contains(&format!("{path}:14 (function kernel, instruction 0)")), "{text}");
}

/// The whole oracle of `reference/ptx-atoms.md` §4 (scripts/ptx_oracle.py, ~29,500
/// assemblies, a few seconds): no form ptxas accepts is flagged except the D7 class,
/// and no form ptxas rejects goes unflagged.
#[test]
fn ptxas_oracle_agrees_on_the_variant_spaces() {
    let Some(ptxas) = common::ptxas() else {
        common::skip("ptxas not found (pip install nvidia-cuda-nvcc, or set PTXAS)");
        return;
    };
    let out = std::process::Command::new("python3")
        .arg(common::root().join("scripts/ptx_oracle.py"))
        .args(["--check", "--ptxas"])
        .arg(&ptxas)
        .arg("--irlint")
        .arg(env!("CARGO_BIN_EXE_irlint"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let all = stdout.lines().find(|l| l.starts_with("| **all**")).unwrap();
    // forms, both accept, both reject, flagged-but-accepted, of which D7, missed, missed (seed reason)
    let cells: Vec<&str> = all.split('|').map(|c| c.trim().trim_matches('*')).filter(|c| !c.is_empty()).collect();
    assert_eq!(&cells[1..], ["29531", "2623", "26868", "40", "40", "0", "0"], "{stdout}");
}

#[test]
fn real_nvcc_output_reads_and_points_at_the_cu_file() {
    let dir = common::root().join("tests/fixtures/ptx_nvcc");
    for (name, target) in [
        ("k.sm_90a.ptx", "sm_90a"),
        ("k.sm_100a.ptx", "sm_100a"),
        ("k.sm_120a.ptx", "sm_120a"),
        ("k.G.sm_90a.ptx", "sm_90a, debug"),
    ] {
        let p = dir.join(name);
        let bytes = std::fs::read(&p).unwrap();
        let r = check_bytes(&p.display().to_string(), &bytes, &CheckOptions::default());
        assert_eq!(r.files[0].status, FileStatus::Ok, "{name}: {:?}", r.files[0].message);
        assert!(r.diagnostics.is_empty(), "{name}: {:?}", r.diagnostics);
        let m = lower_file(&p);
        assert_eq!(m.target.as_deref(), Some(target));
        let entries: Vec<&str> = m.entry_points.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(entries, ["saxpy_loop", "ldsm"], "{name}");
        // helper (a .func) and vprintf (an .extern .func) are functions too.
        assert!(m.functions.values().any(|f| f.name == "vprintf" && f.is_declaration), "{name}");
        let fact = m.facts.iter().find_map(|f| match &f.kind {
            FactKind::Ptx(x) => Some((f, x)),
            _ => None,
        });
        let (f, x) = fact.expect("the inline-asm ldmatrix is a fact");
        assert_eq!(x.word, "ldmatrix.sync.aligned.m8n8.x4.shared.b16");
        let loc = &m.locs[m.functions[f.function].insts[f.inst].span.loc.unwrap()];
        assert_eq!((m.source_files[loc.file as usize].name.as_str(), loc.line), ("/tmp/nv/k.cu", 20), "{name}");
        // The saxpy loop is a real loop: its induction variable gets a phi.
        let saxpy = m.functions.values().find(|f| f.name == "saxpy_loop").unwrap();
        assert!(saxpy.insts.values().any(|i| matches!(i.kind, InstKind::Phi { .. })), "{name}");
    }
    // Edited from real output: `.m8n16` has no transposed form.
    let p = dir.join("k.sm_100a.edited.ptx");
    let bytes = std::fs::read(&p).unwrap();
    let r = check_bytes(&p.display().to_string(), &bytes, &CheckOptions::default());
    assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
    let d = &r.diagnostics[0];
    assert_eq!(d.rule, "atom-ldsm-mode");
    assert_eq!(d.message, "`transpose` is true, expected false for mode M816");
    assert_eq!(d.location.line, Some(146));
    // `.file` names /tmp/nv/k.cu; the copy next to the PTX file supplies the line.
    assert_eq!(d.location.source.as_ref().map(|s| s.line), Some(20));
    assert!(d.location.source_text.as_deref().is_some_and(|t| t.contains("asm volatile(\"ldmatrix")));
}

#[test]
fn address_expressions_pairs_initializers_and_unknown_attributes() {
    let text = "\
.version 8.7
.target sm_90
.address_size 64
.global .align 8 .u64 ptrs[2] = {generic(tab), tab+4};
.global .align 4 .b32 tab[4] = {1, 2, 3, 4};
.visible .entry e(.param .u64 p)
.maxnreg 64
.abi_preserve 8
{
\t.reg .b64 %rd<4>;
\t.reg .b32 %r<4>;
\t.reg .pred %p<3>;
\tmov.u64 %rd1, tab+8;
\tld.global.u32 %r1, [%rd1+-4];
\tshfl.sync.bfly.b32 %r2|%p1, %r1, 1, 31, -1;
\tatom.global.add.u32 %r3, [tab], 1;
\t@!%p1 bra $L_end;
\tmov.b64 {%r1, %r2}, %rd1;
$L_end:
\tret;
}
";
    let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
    let ir = ir::print::module(&m);
    for want in [
        "%0 = add i64 @tab, i64 8",
        "%1 = add i64 %0, i64 -4",
        "%3 = shfl.sync.bfly.b32 {i32, bool} %2, i32 1, i32 31, i32 -1",
        "%4 = atom.global.add.u32 i32 @tab, i32 1",
        // The shuffle's members are made where they are read: the
        // predicate by the branch, the value at the block's end.
        "%5 = extractvalue %3, [1]",
        "%6 = extractvalue %3, [0]",
        "br %5, bb1, bb2",
        // An unpacking mov is a shift and truncations the dataflow evaluates.
        "%8 = trunc %0 to i32",
        "%9 = lshr i64 %0, i64 32",
        "%10 = trunc %9 to i32",
    ] {
        assert!(ir.contains(want), "{want:?} not in\n{ir}");
    }
}

/// `(line, rule, field)` of every `// expect: RULE field=F` annotation (finding on the next line).
/// Several annotations may precede one instruction: each names the next line that is not a comment.
fn value_expectations(text: &str) -> Vec<(u64, String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut v: Vec<(u64, String, String)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let rest = l.trim().strip_prefix("// expect: ")?;
            let mut words = rest.split_whitespace();
            let rule = words.next()?.to_string();
            let field = words.find_map(|w| w.strip_prefix("field="))?.to_string();
            let next = (i + 1..lines.len()).find(|j| !lines[*j].trim().starts_with("//"))?;
            Some((next as u64 + 1, rule, field))
        })
        .collect();
    v.sort();
    v
}

fn value_findings(path: &Path) -> Vec<(u64, String, String)> {
    let bytes = std::fs::read(path).unwrap();
    let r = check_bytes(&path.display().to_string(), &bytes, &CheckOptions::default());
    assert_eq!(r.files[0].status, FileStatus::Ok, "{}: {:?}", path.display(), r.files[0].message);
    let mut v: Vec<(u64, String, String)> = r
        .diagnostics
        .iter()
        .map(|d| {
            let get = |k: &str| d.values.iter().find(|(key, _)| key == k).map(|(_, v)| v.to_string());
            let line = get("ptx-line").and_then(|l| l.parse().ok()).unwrap_or(0);
            (line, d.rule.clone(), get("field").unwrap_or_default())
        })
        .collect();
    v.sort();
    v
}

/// The descriptor and shared-address value rules fire on the annotated lines,
/// with the annotated `values.field`, and nowhere else (the valid variants in
/// the same files stay silent).
#[test]
fn descriptor_rules_fire_on_the_annotated_lines_only() {
    let dir = common::root().join("tests/fixtures/ptx_desc");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    assert!(!names.is_empty());
    for p in names {
        let want = value_expectations(&std::fs::read_to_string(&p).unwrap());
        assert!(!want.is_empty(), "{}", p.display());
        assert_eq!(value_findings(&p), want, "{}", p.display());
    }
}

/// The messages state the recovered field values.
#[test]
fn smem_descriptor_messages_state_the_recovered_values() {
    let p = common::root().join("tests/fixtures/ptx_desc/tcgen05_smem_desc.ptx");
    let bytes = std::fs::read(&p).unwrap();
    let r = check_bytes("tcgen05_smem_desc.ptx", &bytes, &CheckOptions::default());
    let msgs: Vec<&str> = r.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "b-desc of tcgen05.mma has version (bits 46-48) = 0, must be 1 (0b001) on sm_100 (0 is the Hopper wgmma encoding)",
            "a-desc of tcgen05.mma has reserved bits 53-60 set (0x1 there), they must be 0",
            "b-desc of tcgen05.mma has reserved bits 14-15 set (0x1 there), they must be 0",
            "a-desc of tcgen05.mma has layout_type (bits 61-63) = 3, which is not defined (valid: 0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B)",
            "b-desc of tcgen05.mma has layout_type (bits 61-63) = 3 or 5, which is not defined (valid: 0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B)",
            "a-desc of tcgen05.mma has layout_type (bits 61-63) = 5 or 7, which is not defined (valid: 0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B)",
            "a-desc of tcgen05.mma has layout_type 1 (SWIZZLE_128B_BASE32B), which is for MN-major operands only, but the instruction descriptor says A is K-major (bit 15 = 0)",
        ]
    );
    for d in &r.diagnostics {
        assert!(d.message.starts_with(|c: char| c.is_lowercase()) && !d.message.ends_with('.'), "{}", d.message);
    }
    let sets: Vec<String> =
        r.diagnostics.iter().map(|d| d.values.iter().find(|(k, _)| k == "value").unwrap().1.to_string()).collect();
    assert_eq!(sets[0], "0");
    assert_eq!(r.diagnostics.iter().filter(|d| d.certainty == irlint::report::Certainty::Proven).count(), 7);
}

/// Instruction-descriptor findings name the field, its value (decoded for M
/// and N) and what is valid.
#[test]
fn instr_descriptor_messages_state_the_field_and_what_is_valid() {
    let p = common::root().join("tests/fixtures/ptx_desc/tcgen05_instr_desc.ptx");
    let bytes = std::fs::read(&p).unwrap();
    let r = check_bytes("tcgen05_instr_desc.ptx", &bytes, &CheckOptions::default());
    let msgs: Vec<&str> = r.diagnostics.iter().map(|d| d.message.as_str()).collect();
    for want in [
        "idesc of tcgen05.mma.kind::f16 has m (bits 24-28) = 16 or 24, M = 256 or 384, not valid for .kind::f16 with .cta_group::1 (M 64 or 128)",
        "idesc of tcgen05.mma.kind::i8 has n (bits 17-22) = 5, N = 40, not valid for .kind::i8 with .cta_group::1 (N 8, 16, 24, 32, then 48 to 256 in steps of 16)",
        "idesc of tcgen05.mma.kind::f8f6f4 has n (bits 17-22) = 1, N = 8, not valid for a transposed 8-bit B (bit 16) with .cta_group::1 (N 16 to 256 in steps of 16)",
        "idesc of tcgen05.mma.kind::f16 has n (bits 17-22) = 32, N = 256, not valid for .kind::f16 with .sp and .ws (N 64 or 128)",
        "idesc of tcgen05.mma.kind::mxf8f6f4 has m (bits 24-28) = 8, M = 128, not valid for .kind::mxf8f6f4 with .sp and .cta_group::2 (M 256)",
        "idesc of tcgen05.mma.kind::f16 has reserved bits 23 and 29 set (0x20800000), they must be 0",
        "idesc of tcgen05.mma.kind::mxf4 has a_sf_id (bits 29-30) = 1, not valid with two scale factors per 32-bit word (scale_vec::2X / block32) (valid: 0 or 2)",
        "idesc of tcgen05.mma.kind::mxf4 has b_major (bit 16) = 1, transpose B (MN-major) is not supported by .kind::mxf4",
        "idesc of tcgen05.mma.kind::mxf4 has k_size (bit 31) = 1, K = 96 is only for sm_103a, and the target is sm_100a",
    ] {
        assert!(msgs.contains(&want), "{want:?} not in {msgs:#?}");
    }
    let reserved = r.diagnostics.iter().find(|d| d.message.contains("reserved bit 6 set")).unwrap();
    let value = reserved.values.iter().find(|(k, _)| k == "value").unwrap().1.to_string();
    assert_eq!(value, "64");
}

/// Shared-address findings state the recovered address; a set with aligned
/// members is `possible` and one level lower.
#[test]
fn shared_address_findings_are_proven_or_possible() {
    let p = common::root().join("tests/fixtures/ptx_desc/shared_address.ptx");
    let bytes = std::fs::read(&p).unwrap();
    let r = check_bytes("shared_address.ptx", &bytes, &CheckOptions::default());
    let got: Vec<(String, String, String)> = r
        .diagnostics
        .iter()
        .map(|d| {
            let addr = d.values.iter().find(|(k, _)| k == "address").unwrap().1.to_string();
            (d.message.clone(), format!("{:?}", d.certainty), addr)
        })
        .collect();
    let want = |m: &str, c: &str, a: &str| (m.to_string(), c.to_string(), a.to_string());
    assert_eq!(got[0], want("ldmatrix row address is always 8 mod 16, never 16-byte aligned", "Proven", "8 mod 16"));
    assert_eq!(
        got[2],
        want("ldmatrix row address is 16 or 24, not always 16-byte aligned (24 is not)", "Possible", "{16, 24}")
    );
    assert_eq!(got[3], want("mbarrier.init object address 1028 is not 8-byte aligned", "Proven", "1028"));
    assert_eq!(r.diagnostics[2].level, irlint::report::Level::Warning);
    assert_eq!(r.diagnostics.iter().filter(|d| d.level == irlint::report::Level::Error).count(), 8);
}

/// `bfe` (unsigned and signed, field past the top), `bfi` and packing /
/// unpacking `mov` lower to IR the dataflow evaluates exactly (read back
/// through the idesc operands of tcgen05.mma facts).
#[test]
fn bit_field_forms_reach_the_dataflow() {
    let text = "\
.version 8.7
.target sm_100a
.address_size 64
.visible .entry e(.param .u32 p)
{
\t.reg .b32 %r<32>;
\t.reg .b64 %rd<8>;
\t.reg .pred %p<2>;
\tld.param.u32 %r20, [p];
\tmov.u32 %r1, 0xABCD1234;
\tbfe.u32 %r2, %r1, 8, 8;
\tbfe.s32 %r3, %r1, 28, 8;
\tbfe.u32 %r4, %r1, 28, 8;
\tbfi.b32 %r5, 15, %r1, 4, 4;
\tmov.u32 %r6, 1;
\tmov.b64 %rd1, {%r1, %r6};
\tmov.b64 {%r7, %r8}, %rd1;
\tbfe.s32 %r9, %r1, 40, 4;
\tbfe.u32 %r10, %r20, 4, 14;
\tbfi.b32 %r11, %r20, 0, 8, 8;
\tcvt.u32.u64 %r12, %rd1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r2, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r3, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r4, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r5, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd1, %r7, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r8, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r9, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r10, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r11, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r12, %p1;
\tret;
}
";
    use irlint::analysis::{analyze, AbsValue, AnalysisOptions, KnownBits};
    let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
    let a = analyze(&m, &AnalysisOptions::default());
    let mut idesc = Vec::new();
    let mut bdesc = Vec::new();
    for f in &m.facts {
        let FactKind::Ptx(x) = &f.kind else { continue };
        let PtxOp::Tcgen05Mma(t) = &x.op else { continue };
        idesc.push(a.value(&m, f.function, t.idesc.unwrap()));
        bdesc.push(a.value(&m, f.function, t.b_desc.unwrap()));
    }
    let c = |x: u64| AbsValue::Set(smallvec::smallvec![x]);
    assert_eq!(idesc[0], c(0x12));
    assert_eq!(idesc[1], c(0xFFFF_FFFA), "sign of bit 31");
    assert_eq!(idesc[2], c(0xA));
    assert_eq!(idesc[3], c(0xABCD_12F4));
    assert_eq!(bdesc[4], c(0x1_ABCD_1234));
    assert_eq!(idesc[4], c(0xABCD_1234));
    assert_eq!(idesc[5], c(1));
    assert_eq!(idesc[6], c(0xFFFF_FFFF), "position past the width: the sign");
    // Unknown input: the extracted 14-bit field has every bit above 13 known 0.
    assert_eq!(idesc[7], AbsValue::Known(KnownBits { zero: 0xFFFF_C000, one: 0 }));
    // bfi into a constant: only bits 8-15 unknown.
    assert_eq!(idesc[8], AbsValue::Known(KnownBits { zero: 0xFFFF_00FF, one: 0 }));
    assert_eq!(idesc[9], c(0xABCD_1234));
}

/// `bfe`/`bfi` with a position or length in a register, and `prmt` (default
/// mode) with an immediate, a register, a partly known or an unknown selector,
/// reach the dataflow: joined over the few parameter values admitted, else what
/// holds for any (an unsigned field's high zeros, the base bits no insert can
/// reach, the bytes every candidate shares).
#[test]
fn bit_field_forms_with_register_parameters_reach_the_dataflow() {
    let text = "\
.version 8.7
.target sm_100a
.address_size 64
.visible .entry e(.param .u32 p)
{
\t.reg .b32 %r<40>;
\t.reg .b64 %rd<8>;
\t.reg .pred %p<2>;
\tld.param.u32 %r20, [p];
\tsetp.ne.u32 %p1, %r20, 0;
\tmov.u32 %r1, 0xABCD1234;
\tselp.b32 %r2, 4, 8, %p1;
\tbfe.u32 %r3, %r1, %r2, 8;
\tbfe.u32 %r4, %r20, %r20, 6;
\tbfe.s32 %r5, %r20, %r20, 6;
\tselp.b32 %r6, 8, 16, %p1;
\tbfi.b32 %r7, %r20, %r1, %r6, 4;
\tand.b32 %r8, %r20, 12;
\tor.b32 %r9, %r8, 16;
\tbfi.b32 %r10, %r20, %r1, %r9, 4;
\tprmt.b32 %r11, %r1, 0, 0x3210;
\tselp.b32 %r12, 0x0123, 0x3210, %p1;
\tprmt.b32 %r13, %r1, 0, %r12;
\tand.b32 %r14, %r20, 0x4444;
\tprmt.b32 %r15, 0x11111111, 0x22222222, %r14;
\tprmt.b32 %r16, 0, 0, %r20;
\tprmt.b32.f4e %r17, %r1, 0, %r20;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r3, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r4, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r5, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r7, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r10, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r11, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r13, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r15, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r16, %p1;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd0, %r17, %p1;
\tret;
}
";
    use irlint::analysis::{analyze, AbsValue, AnalysisOptions, KnownBits};
    let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
    let a = analyze(&m, &AnalysisOptions::default());
    let idesc: Vec<AbsValue> = m
        .facts
        .iter()
        .filter_map(|f| match &f.kind {
            FactKind::Ptx(x) => match &x.op {
                PtxOp::Tcgen05Mma(t) => Some(a.value(&m, f.function, t.idesc.unwrap())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let known = |zero: u64, one: u64| AbsValue::Known(KnownBits { zero, one });
    // Position 4 or 8 of 0xABCD1234: 0x23 or 0x12.
    assert_eq!(idesc[0], AbsValue::Set(smallvec::smallvec![0x12, 0x23]));
    // Unknown position, length 6: bits 6 and up are 0 (unsigned), nothing (signed).
    assert_eq!(idesc[1], known(0xFFFF_FFC0, 0));
    assert_eq!(idesc[2], AbsValue::Top);
    // Insert 4 bits at 8 or 16: everything else of the base stays.
    let base = 0xABCD_1234u64;
    let touched = 0x000F_0F00u64;
    assert_eq!(idesc[3], known(!base & !touched & 0xFFFF_FFFF, base & !touched));
    // Position (x & 12) | 16, one of 16, 20, 24, 28 (known bits, 2 free): bits 0-15 stay.
    let touched = 0xFFFF_0000u64;
    assert_eq!(idesc[4], known(!base & !touched & 0xFFFF_FFFF, base & !touched));
    assert_eq!(idesc[5], AbsValue::Set(smallvec::smallvec![base]), "identity selector");
    // Selector 0x0123 or 0x3210: the bytes reversed, or not.
    assert_eq!(idesc[6], AbsValue::Set(smallvec::smallvec![0x3412_CDAB, base]));
    // Selector nibbles 0 or 4 (bit 2 free): bytes of 0x11111111 or 0x22222222.
    assert_eq!(idesc[7], known(0xCCCC_CCCC, 0));
    // Unknown selector over zeros: zero.
    assert_eq!(idesc[8], AbsValue::Set(smallvec::smallvec![0]));
    // Other modes stay opaque.
    assert_eq!(idesc[9], AbsValue::Top);
}

/// The members of a multi-result instruction are made where a register is
/// read (or at the end of its block): registers written again first get
/// none, and the values read are those of the last write.
#[test]
fn overwritten_members_are_never_made() {
    let text = ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
                .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [p];\n\
                ld.global.v2.u32 {%r1, %r2}, [%rd1];\nld.global.v2.u32 {%r1, %r2}, [%rd1+8];\n\
                add.s32 %r3, %r1, %r2;\nst.global.u32 [%rd1], %r3;\nret;\n}\n";
    let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
    let ir = ir::print::module(&m);
    assert_eq!(ir.matches("extractvalue").count(), 2, "{ir}");
    for want in
        ["%2 = load {i32, i32}, %1", "%3 = extractvalue %2, [0]", "%4 = extractvalue %2, [1]", "%5 = add i32 %3, %4"]
    {
        assert!(ir.contains(want), "{want:?} not in\n{ir}");
    }
}
