//! Mutation test of the PTX atom rules (issue 23): one-token edits of the real
//! matrix instructions in `../shared/corpus/ptx` (shape, type, count, modifier,
//! modifier order, coordinate and register counts), each judged by ptxas 13.5
//! (`scripts/ptx_mutants.py`). irlint must flag every mutant ptxas rejects and
//! none that it accepts. Skips with a visible message without ptxas or the corpus.

mod common;

/// The cells of a `| family | target | ... |` row, bold markers removed.
fn cells(line: &str) -> Vec<String> {
    line.split('|').map(|c| c.trim().trim_matches('*').to_string()).filter(|c| !c.is_empty()).collect()
}

#[test]
fn every_rejected_mutant_of_a_real_instruction_is_flagged_and_no_accepted_one() {
    let Some(corpus) = common::shared("corpus/ptx") else { return };
    let Some(ptxas) = common::ptxas() else {
        common::skip("ptxas not found (pip install nvidia-cuda-nvcc, or set PTXAS): mutation test skipped");
        return;
    };
    let out = std::process::Command::new("python3")
        .arg(common::root().join("scripts/ptx_mutants.py"))
        .arg("--check")
        .arg("--examples")
        .arg("--corpus")
        .arg(&corpus)
        .arg("--ptxas")
        .arg(&ptxas)
        .arg("--irlint")
        .arg(env!("CARGO_BIN_EXE_irlint"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // | family | target | instructions | mutants | accepted | rejected | flagged, ptxas accepts | missed |
    let rows: Vec<Vec<String>> =
        stdout.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| family")).map(cells).collect();
    let all = rows.iter().find(|r| r[0] == "all").expect("the total row");
    let n = |i: usize| all[i].parse::<u64>().unwrap();
    let (instructions, mutants, accepted, rejected, false_pos, missed) = (n(1), n(2), n(3), n(4), n(5), n(6));
    assert_eq!((false_pos, missed), (0, 0), "{stdout}");
    assert_eq!(accepted + rejected, mutants, "{stdout}");
    // The corpus has Triton and nvcc output for sm_80 to sm_120a: every modelled
    // family contributes instructions, and both verdicts occur in numbers.
    for fam in ["ldst", "mma", "tcgen05", "tma", "wgmma"] {
        assert!(rows.iter().any(|r| r[0] == fam), "no {fam} instruction in the corpus?\n{stdout}");
    }
    assert!(instructions >= 50 && mutants >= 1000, "{stdout}");
    assert!(accepted >= 300 && rejected >= 800, "{stdout}");
}
