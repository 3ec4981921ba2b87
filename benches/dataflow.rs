//! The dataflow over every function of the lowered corpus modules (the
//! lattice's worst case: `check` analyses only functions holding facts), next to
//! the end-to-end check of the same files, one thread, files in memory.
//! Run: `cargo bench --bench dataflow`; `-- dxil` runs only the measures whose
//! name contains `dxil`. `IRLINT_BENCH_ROUNDS=N` runs exactly N rounds: under
//! `valgrind --tool=callgrind`, the instruction counts of N = 1 and N = 3
//! differ by two rounds whatever the load of a shared machine
//! (`docs/performance.md`).

use irlint::analysis::{analyze, AnalysisOptions};
use irlint::check::{self, CheckOptions, InputKind};
use irlint::ir::Module;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn shared() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("IRLINT_SHARED") {
        return Some(PathBuf::from(p));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [root.join("../shared"), root.join("../../shared")].into_iter().find(|p| p.is_dir())
}

fn collect(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if let Ok(b) = std::fs::read(&p) {
            out.push((p.display().to_string(), b));
        }
    }
}

/// Whether a measure is selected by the command-line filter (arguments not
/// starting with `--`; none selects all).
fn selected(name: &str) -> bool {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

/// Runs `round` at least 1.5 s and twice, or exactly `IRLINT_BENCH_ROUNDS` times;
/// returns the rounds and seconds.
fn run(mut round: impl FnMut()) -> (u32, f64) {
    let fixed = std::env::var("IRLINT_BENCH_ROUNDS").ok().and_then(|v| v.parse::<u32>().ok());
    let mut rounds = 0u32;
    let start = Instant::now();
    loop {
        let done = match fixed {
            Some(n) => rounds >= n,
            None => start.elapsed() >= Duration::from_millis(1500) && rounds >= 2,
        };
        if done {
            break;
        }
        round();
        rounds += 1;
    }
    (rounds, start.elapsed().as_secs_f64())
}

fn measure_check(name: &str, files: &[(String, Vec<u8>)]) {
    if !selected(name) {
        return;
    }
    let opts = CheckOptions::default();
    let (rounds, secs) = run(|| {
        for (p, b) in files {
            std::hint::black_box(check::check_bytes(p, b, &opts));
        }
    });
    println!("{name:<28} {:>9.0} modules/s ({} files)", files.len() as f64 * f64::from(rounds) / secs, files.len());
}

fn measure_dataflow(name: &str, kind: Option<InputKind>, files: &[(String, Vec<u8>)]) {
    if !selected(name) {
        return;
    }
    let modules: Vec<Module> = files
        .iter()
        .filter_map(|(p, b)| check::load_module(kind.unwrap_or_else(|| check::classify(p, b)), b, 0).ok().flatten())
        .collect();
    let opts = AnalysisOptions { all_functions: true, ..Default::default() };
    let steps: u64 = modules.iter().map(|m| analyze(m, &opts).steps).sum();
    let (rounds, secs) = run(|| {
        for m in &modules {
            std::hint::black_box(analyze(m, &opts));
        }
    });
    println!(
        "{name:<28} {:>9.0} modules/s {:>8.1} Msteps/s ({} modules, {steps} steps a round)",
        modules.len() as f64 * f64::from(rounds) / secs,
        steps as f64 * f64::from(rounds) / secs / 1e6,
        modules.len()
    );
}

fn main() {
    let Some(shared) = shared() else {
        println!("skipping: ../shared not found (set IRLINT_SHARED)");
        return;
    };
    let mut dxil = Vec::new();
    collect(&shared.join("corpus/dxil"), &mut dxil);
    let mut spirv = Vec::new();
    collect(&shared.join("corpus/spirv"), &mut spirv);
    println!("irlint {} dataflow, one thread", irlint::VERSION);
    measure_check("dxil check (end to end)", &dxil);
    measure_dataflow("dxil dataflow (all fns)", None, &dxil);
    measure_check("spirv check (end to end)", &spirv);
    measure_dataflow("spirv dataflow (all fns)", Some(InputKind::Spirv), &spirv);
}
