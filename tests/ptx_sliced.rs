//! The sliced lowering (`irlint::ptx::lower_sliced`, what `irlint check`
//! runs first on PTX) against the whole lowering (`irlint::ptx::lower`): for
//! every module, the analysis must give the same value to every operand the
//! rules read (each matrix fact's value operands, each memory access's
//! address, size and alignment operands), and the rules the same findings,
//! instruction indices aside. Run over every PTX fixture (where the findings
//! are), `../shared/corpus/ptx`, and the folders in `$IRLINT_SLICE_DIRS`
//! (colon-separated) when set.

mod common;

use irlint::analysis::{analyze, AnalysisOptions};
use irlint::check::{check_module, CheckOptions};
use irlint::ir::{access_operands, FactKind, Module, Operand};
use std::path::{Path, PathBuf};

fn modules() -> Vec<PathBuf> {
    let mut files = common::files_with_suffix(&common::root().join("tests/fixtures"), ".ptx");
    if let Some(dir) = common::shared("corpus/ptx") {
        files.extend(common::files_with_suffix(&dir, ".ptx"));
    }
    if let Ok(dirs) = std::env::var("IRLINT_SLICE_DIRS") {
        for d in dirs.split(':').filter(|d| !d.is_empty()) {
            files.extend(common::files_with_suffix(Path::new(d), ".ptx"));
        }
    }
    files.sort();
    files
}

/// What the rules read of `m`, as text: per fact its word and the values of
/// its value operands; per memory access its word and the values of its
/// checked operands.
fn read_values(m: &Module) -> Vec<String> {
    let a = analyze(m, &AnalysisOptions::default());
    let mut out = Vec::new();
    for x in &m.facts {
        let FactKind::Ptx(p) = &x.kind else { continue };
        let vals: Vec<String> =
            p.op.value_operands().into_iter().map(|o| format!("{:?}", a.value(m, x.function, o))).collect();
        out.push(format!("fact {} in {}: {}", p.word, m.functions[x.function].name, vals.join(", ")));
    }
    for (fh, f) in m.functions.iter() {
        for &(h, word) in &f.mem_accesses {
            let (Some(form), Some(i)) = (m.op_access(word), f.insts.try_get(h)) else { continue };
            let ops = access_operands(&i.kind);
            let vals: Vec<String> = form
                .slots()
                .map(|s| match ops.get(s) {
                    Some(v) => format!("{:?}", a.value(m, fh, Operand::Value(*v))),
                    None => "-".into(),
                })
                .collect();
            let name = m.op_names.get(word as usize).map_or("?", |n| n.as_str());
            out.push(format!("access {name} in {}: {}", f.name, vals.join(", ")));
        }
    }
    out
}

/// The findings, with everything but the instruction index.
fn findings(m: &Module) -> Vec<String> {
    check_module(m, &CheckOptions::default())
        .into_iter()
        .map(|d| {
            format!(
                "{} {:?} {:?} {:?} line {:?}: {} {:?}",
                d.rule, d.level, d.certainty, d.location.function, d.location.line, d.message, d.values
            )
        })
        .collect()
}

#[test]
fn sliced_lowering_gives_the_rules_the_same_values() {
    let files = modules();
    assert!(files.len() >= 40, "only {} PTX modules found", files.len());
    let (mut compared, mut facts, mut accesses, mut found) = (0, 0, 0, 0);
    let (mut whole_size, mut sliced_size) = (0, 0);
    let mut failures = Vec::new();
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        let (whole, sliced) = (irlint::ptx::lower(&bytes, 0), irlint::ptx::lower_sliced(&bytes, 0));
        let (whole, sliced) = match (whole, sliced) {
            (Ok(w), Ok(s)) => (w, s),
            (Err(_), Err(_)) => continue,
            (w, s) => {
                failures.push(format!("{}: whole {:?}, sliced {:?}", p.display(), w.err(), s.err()));
                continue;
            }
        };
        compared += 1;
        let (rw, rs) = (read_values(&whole), read_values(&sliced));
        facts += rw.iter().filter(|x| x.starts_with("fact")).count();
        accesses += rw.iter().filter(|x| x.starts_with("access")).count();
        if rw != rs {
            let first = rw.iter().zip(&rs).find(|(a, b)| a != b);
            failures.push(format!(
                "{}: values differ ({} vs {} entries), first: {first:?}",
                p.display(),
                rw.len(),
                rs.len()
            ));
        }
        let (fw, fs) = (findings(&whole), findings(&sliced));
        found += fw.len();
        if fw != fs {
            failures.push(format!("{}: findings differ\n  whole:  {fw:?}\n  sliced: {fs:?}", p.display()));
        }
        // The sliced module is smaller or the same, never larger.
        let size = |m: &Module| m.functions.iter().map(|(_, f)| f.insts.len()).sum::<usize>();
        assert!(size(&sliced) <= size(&whole), "{}: sliced IR larger", p.display());
        whole_size += size(&whole);
        sliced_size += size(&sliced);
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
    assert!(compared >= 40 && facts > 0 && accesses > 0 && found > 0, "{compared} {facts} {accesses} {found}");
    // The slice leaves something out (on real kernels about half the IR).
    assert!(sliced_size * 10 < whole_size * 9, "sliced {sliced_size} of {whole_size} IR instructions");
    eprintln!(
        "{compared} modules, {facts} facts, {accesses} accesses, {found} findings: same values and findings \
         ({sliced_size} of {whole_size} IR instructions lowered)"
    );
}
