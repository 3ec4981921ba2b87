//! In-process throughput over `../shared/corpus` (files already in memory, one
//! thread): DXIL decode+lower, DXIL end-to-end check, SPIR-V lower, SPIR-V
//! end-to-end check, PTX read+lower, PTX end-to-end check. Prints modules/s and MB/s. Run: `cargo bench --bench throughput`.

use irlint::check::{self, CheckOptions, InputKind};
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

/// CPU seconds this process has used (user + system), from /proc/self/stat; 0
/// where that is not available. Divides out time lost to other processes on a
/// shared machine.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    let Some(rest) = stat.rsplit_once(')').map(|x| x.1) else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command name.
    (ticks(11) + ticks(12)) / 100.0
}

fn measure(name: &str, files: &[(String, Vec<u8>)], mut f: impl FnMut(&str, &[u8]) -> bool) {
    // IRLINT_BENCH=ptx runs only the measurements whose name contains "ptx".
    if let Ok(only) = std::env::var("IRLINT_BENCH") {
        if !name.contains(only.as_str()) {
            return;
        }
    }
    if files.is_empty() {
        println!("{name:<28} skipped (no files)");
        return;
    }
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    // Warm-up and correctness: count failures once.
    let failures = files.iter().filter(|(p, b)| !f(p, b)).count();
    let mut rounds = 0u32;
    let cpu0 = cpu_seconds();
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(1500) || rounds < 2 {
        for (p, b) in files {
            std::hint::black_box(f(p, b));
        }
        rounds += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    let modules = files.len() as f64 * f64::from(rounds);
    let per_cpu = if cpu > 0.0 { bytes as f64 * f64::from(rounds) / cpu / 1e6 } else { 0.0 };
    println!(
        "{name:<28} {:>9.0} modules/s {:>8.1} MB/s {per_cpu:>8.1} MB/CPU-s  ({} files, {:.1} MB, {} failed)",
        modules / secs,
        bytes as f64 * f64::from(rounds) / secs / 1e6,
        files.len(),
        bytes as f64 / 1e6,
        failures
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
    let mut ptx = Vec::new();
    collect(&shared.join("corpus/ptx"), &mut ptx);
    ptx.retain(|(p, _)| p.ends_with(".ptx"));
    let opts = CheckOptions::default();

    println!("irlint {} in-process, one thread", irlint::VERSION);
    measure("dxil decode+lower", &dxil, |p, b| check::load_module(check::classify(p, b), b, 0).is_ok());
    measure("dxil check (end to end)", &dxil, |p, b| {
        check::check_bytes(p, b, &opts).files.iter().all(|f| f.status == check::FileStatus::Ok)
    });
    measure("spirv lower", &spirv, |_, b| check::load_module(InputKind::Spirv, b, 0).is_ok());
    measure("spirv check (end to end)", &spirv, |p, b| {
        check::check_bytes(p, b, &opts).files.iter().all(|f| f.status == check::FileStatus::Ok)
    });
    measure("ptx read+lower", &ptx, |_, b| check::load_module(InputKind::Ptx, b, 0).is_ok());
    measure("ptx check (end to end)", &ptx, |p, b| {
        check::check_bytes(p, b, &opts).files.iter().all(|f| f.status == check::FileStatus::Ok)
    });
}
