//! Hostile PTX (issue 25, the classes that live in the PTX front end): each
//! input is built here, run through the real binary with a time limit and a
//! peak-RSS check, alone and in a batch with a fixture that has findings (the
//! batch goes on and keeps them).
//!
//! - class 1: a constant shared address before N nested loops, used by an
//!   `ldmatrix` inside them, keeps its finding at every depth;
//! - class 7: SSA construction of a long single-predecessor chain followed by
//!   reads of distinct registers, and of many joins × live registers;
//! - class 8: many distinct `.file` names;
//! - class 14: hundreds of thousands of tiny `.entry` functions;
//! - class 17: one `brx.idx` table shared by many `brx.idx`.
//!
//! Time limits are the (5 s a file) for a release build; an
//! unoptimised test build gets eight times as long (it runs on a shared machine).

mod common;

#[path = "support/runner.rs"]
mod runner;
#[path = "support/scratch.rs"]
mod tmp;
use irlint::check::{check_bytes, CheckOptions, FileStatus};
use runner::{irlint, json, limit};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> tmp::Scratch {
    tmp::scratch_in("irlint-ptx-hostile", name)
}

/// The fixture with findings every batch carries.
fn finding_fixture() -> PathBuf {
    common::fixtures().join("ptx_desc/shared_address.ptx")
}

/// The hostile file alone, then in a batch after the fixture with findings:
/// returns the hostile file's report entry (status, message) and checks the
/// batch kept the fixture's 8 errors.
fn alone_and_in_batch(path: &Path) -> (String, Option<String>) {
    let p = path.to_str().unwrap();
    let alone = json(&irlint(&["check", "--format", "json", p], limit(5)));
    let fixture = finding_fixture();
    let batch = irlint(&["check", "--format", "json", "-j", "1", fixture.to_str().unwrap(), p], limit(10));
    let report = json(&batch);
    let errors = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"].as_str().is_some_and(|s| s.ends_with("shared_address.ptx")) && f["level"] == "error")
        .count();
    assert_eq!(errors, 8, "batch lost the fixture's findings:\n{report:#}");
    assert!(batch.code >= 1, "the fixture has errors, exit {}", batch.code);
    let entry = alone["files"][0].clone();
    let status = entry["status"].as_str().unwrap().to_string();
    let message = entry["message"].as_str().map(str::to_string);
    (status, message)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write input");
    p
}

const HEADER: &str = ".version 8.7\n.target sm_90a\n.address_size 64\n";

// ---------------------------------------------------------------------------
// Class 1: trivial-phi chains of any length

/// `mov.u32 %r3, 8` before `depth` nested counted loops; the innermost body
/// reads `[%r3]` with `ldmatrix` (a row address of 8, never 16-byte aligned).
fn nested_loops(depth: usize) -> String {
    let mut s = String::from(HEADER);
    let _ = write!(
        s,
        ".visible .entry deep(.param .u32 n)\n{{\n.reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b32 %c<{}>;\n\
         ld.param.u32 %r1, [n];\nmov.u32 %r3, 8;\n",
        depth + 1
    );
    for k in 0..depth {
        let _ = writeln!(s, "mov.u32 %c{k}, 0;\n$L_h{k}:");
    }
    s.push_str("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r4, %r5, %r6, %r7}, [%r3];\n");
    for k in (0..depth).rev() {
        let _ = writeln!(s, "add.u32 %c{k}, %c{k}, 1;\nsetp.lt.u32 %p1, %c{k}, %r1;\n@%p1 bra $L_h{k};");
    }
    s.push_str("ret;\n}\n");
    s
}

/// The verifier refuses an operand naming an instruction no block lists (a
/// phi folded away but still used): take one phi out of its block.
#[test]
fn class1_the_verifier_refuses_a_removed_value() {
    let text = nested_loops(3);
    let mut m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
    irlint::ir::verify::verify(&m).unwrap();
    let fh = m.functions.iter().map(|(h, _)| h).next().unwrap();
    let f = &mut m.functions[fh];
    let (bh, pos) = f
        .blocks
        .iter()
        .find_map(|(bh, b)| {
            b.insts.iter().position(|i| matches!(f.insts[*i].kind, irlint::ir::InstKind::Phi { .. })).map(|p| (bh, p))
        })
        .expect("a loop counter phi");
    let removed = f.blocks[bh].insts.remove(pos);
    let e = irlint::ir::verify::verify(&m).unwrap_err();
    assert_eq!(e.message, format!("operand %{} names a removed instruction (in no block)", removed.index()));
}

#[test]
fn class1_a_constant_address_keeps_its_finding_in_any_loop_nest() {
    for depth in [1, 64, 65, 200, 1000] {
        let text = nested_loops(depth);
        let r = check_bytes("deep.ptx", text.as_bytes(), &CheckOptions::default());
        assert_eq!(r.files[0].status, FileStatus::Ok, "depth {depth}: {:?}", r.files[0].message);
        let got: Vec<(&str, &str)> = r.diagnostics.iter().map(|d| (d.rule.as_str(), d.message.as_str())).collect();
        assert_eq!(
            got,
            vec![("ptx-shared-address-misaligned", "ldmatrix row address 8 is not 16-byte aligned")],
            "depth {depth}"
        );
        // No operand names a folded phi (the verifier would refuse the module).
        let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
        irlint::ir::verify::verify(&m).unwrap();
    }
    let dir = scratch("class1");
    let p = write(&dir, "deep300.ptx", &nested_loops(300));
    let (status, _) = alone_and_in_batch(&p);
    assert_eq!(status, "ok");
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------
// Class 7: SSA construction cost

/// `regs` registers set at the top (with `twice`, set again under a guard:
/// two writers), `blocks` single-predecessor blocks (each after a guarded
/// branch to it; with `dummy`, each writes one more register), then one read
/// of every register.
fn chain_then_reads(blocks: usize, regs: usize, dummy: bool, twice: bool) -> String {
    let mut s = String::from(HEADER);
    let _ = writeln!(
        s,
        ".visible .entry k(.param .u32 p)\n{{\n.reg .pred %p<2>;\n.reg .b32 %r<{regs}>;\n.reg .b32 %x, %d;\n\
         ld.param.u32 %x, [p];\nsetp.eq.u32 %p1, %x, 0;"
    );
    for i in 0..regs {
        let _ = writeln!(s, "mov.u32 %r{i}, {i};");
    }
    if twice {
        s.push_str("@%p1 bra Lw;\n");
        for i in 0..regs {
            let _ = writeln!(s, "mov.u32 %r{i}, {};", i + 1);
        }
        s.push_str("Lw:\n");
    }
    for i in 0..blocks {
        let _ = writeln!(s, "@%p1 bra L{i};\nL{i}:");
        if dummy {
            let _ = writeln!(s, "mov.u32 %d, {i};");
        }
    }
    for i in 0..regs {
        let _ = writeln!(s, "add.u32 %x, %x, %r{i};");
    }
    s.push_str("st.global.u32 [%x], %x;\nret;\n}\n");
    s
}

/// [`chain_then_reads`] with the blocks' dummy register added to the stored
/// address: the check needs its writes too.
fn chain_then_reads_dummy(blocks: usize, regs: usize) -> String {
    chain_then_reads(blocks, regs, true, true).replace("st.global.u32 [%x]", "add.u32 %x, %x, %d;\nst.global.u32 [%x]")
}

/// `regs` registers live across `joins` diamonds (each: a guarded branch
/// around one add), then read.
fn joins_times_live(joins: usize, regs: usize) -> String {
    let mut s = String::from(HEADER);
    let _ = writeln!(
        s,
        ".visible .entry k(.param .u32 p)\n{{\n.reg .pred %p<2>;\n.reg .b32 %r<{regs}>;\n.reg .b32 %x;\n\
         ld.param.u32 %x, [p];\nsetp.eq.u32 %p1, %x, 0;"
    );
    for i in 0..regs {
        let _ = writeln!(s, "mov.u32 %r{i}, {i};");
    }
    for i in 0..joins {
        let _ = writeln!(s, "@%p1 bra L{i};\nadd.u32 %x, %x, 1;\nL{i}:");
    }
    for i in 0..regs {
        let _ = writeln!(s, "add.u32 %x, %x, %r{i};");
    }
    s.push_str("st.global.u32 [%x], %x;\nret;\n}\n");
    s
}

#[test]
fn class7_ssa_construction_is_bounded() {
    let dir = scratch("class7");
    // The shape (270 KB took 14.6 s and 1.7 GB): empty blocks are
    // passed over once, so 7,000 × 7,000 costs O(B + R).
    let p = write(&dir, "chain.ptx", &chain_then_reads(7000, 7000, false, false));
    assert!(std::fs::metadata(&p).unwrap().len() > 270_000);
    let (status, msg) = alone_and_in_batch(&p);
    assert_eq!(status, "ok", "{msg:?}");
    // Each block writing a register: the registers' one writer (the entry)
    // dominates the reads, which take its values without a walk.
    let p = write(&dir, "chain_big.ptx", &chain_then_reads(4200, 4200, true, false));
    let (status, msg) = alone_and_in_batch(&p);
    assert_eq!(status, "ok", "{msg:?}");
    // The same with every register written in two blocks: 4,200 × 4,200
    // walk steps, past the budget: an input error naming it, not minutes
    // and gigabytes, from the whole lowering (`dump`). `check` lowers only
    // what its rules read: the stored address does not read the blocks'
    // dummy register, whose writes are left out, and without them the
    // blocks pass every value through in one step.
    let text = chain_then_reads(4200, 4200, true, true);
    let msg = irlint::ptx::lower(text.as_bytes(), 0).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains("SSA construction needs more than 16777216 steps"), "{msg}");
    let p = write(&dir, "chain_twice.ptx", &text);
    let (status, msg) = alone_and_in_batch(&p);
    assert_eq!(status, "ok", "{msg:?}");
    // The address reading the dummy register too: the check needs the walk,
    // and stops at the budget.
    let p = write(&dir, "chain_twice_read.ptx", &chain_then_reads_dummy(4200, 4200));
    let (status, msg) = alone_and_in_batch(&p);
    assert_eq!(status, "error");
    let msg = msg.unwrap();
    assert!(msg.contains("SSA construction needs more than 16777216 steps"), "{msg}");
    // Many joins × live registers.
    let p = write(&dir, "joins.ptx", &joins_times_live(20_000, 100));
    let (status, msg) = alone_and_in_batch(&p);
    assert!(status == "ok" || msg.as_deref().is_some_and(|m| m.contains("SSA construction")), "{status} {msg:?}");
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------
// Class 8 (PTX part): many `.file` names

#[test]
fn class8_many_file_names_are_interned_in_linear_time() {
    let mut s = String::from(HEADER);
    for i in 0..100_000 {
        let _ = writeln!(s, ".file {} \"/src/dir/f{i}.cu\"", i + 1);
    }
    s.push_str(".visible .entry k()\n{\n.loc 1 1 1\nret;\n.loc 99999 2 1\nret;\n}\n");
    let m = irlint::ptx::lower(s.as_bytes(), 0).unwrap();
    assert_eq!(m.source_files.len(), 100_000);
    assert_eq!(m.source_files[99_998].name, "/src/dir/f99998.cu");
    let dir = scratch("class8");
    let p = write(&dir, "files.ptx", &s);
    let (status, msg) = alone_and_in_batch(&p);
    assert_eq!(status, "ok", "{msg:?}");
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------
// Class 14: many tiny functions

#[test]
fn class14_too_many_functions_is_an_input_error() {
    let dir = scratch("class14");
    let many = |n: usize| {
        let mut s = String::from(HEADER);
        for i in 0..n {
            let _ = writeln!(s, ".entry e{i}(){{ret;}}");
        }
        s
    };
    let p = write(&dir, "entries.ptx", &many(450_000));
    let (status, msg) = alone_and_in_batch(&p);
    assert_eq!(status, "error");
    let msg = msg.unwrap();
    assert!(msg.contains("line 65540, column 1: too many functions in one module (more than 65536)"), "{msg}");
    let p = write(&dir, "entries_ok.ptx", &many(65_536));
    let (status, msg) = alone_and_in_batch(&p);
    assert_eq!(status, "ok", "{msg:?}");
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------
// Class 17: one branch table, many `brx.idx`

fn shared_table(labels: usize, uses: usize) -> String {
    let mut s = String::from(HEADER);
    s.push_str(".visible .entry k(.param .u32 p)\n{\n.reg .b32 %r<2>;\nld.param.u32 %r1, [p];\nT: .branchtargets ");
    for i in 0..labels {
        let _ = write!(s, "{}L{i}", if i == 0 { "" } else { ", " });
    }
    s.push_str(";\n");
    for _ in 0..uses {
        s.push_str("brx.idx %r1, T;\n");
    }
    for i in 0..labels {
        let _ = writeln!(s, "L{i}:");
    }
    s.push_str("ret;\n}\n");
    s
}

#[test]
fn class17_shared_branch_tables_count_their_edges() {
    let m = irlint::ptx::lower(shared_table(100, 50).as_bytes(), 0).unwrap();
    let cases: usize = m
        .functions
        .iter()
        .flat_map(|(_, f)| f.insts.iter())
        .map(|(_, i)| match &i.kind {
            irlint::ir::InstKind::Switch { cases, .. } => cases.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(cases, 100 * 50);
    let dir = scratch("class17");
    let p = write(&dir, "brx.ptx", &shared_table(3000, 3000));
    let (status, msg) = alone_and_in_batch(&p);
    assert_eq!(status, "error");
    let msg = msg.unwrap();
    assert!(msg.contains("too many brx.idx branch-table edges in one module (more than 4194304)"), "{msg}");
    let _ = std::fs::remove_dir_all(dir);
}
