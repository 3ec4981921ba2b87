//! Single-thread decode throughput over the DXIL corpus:
//! `cargo run --release --example decode_bench [DIR] [ITERATIONS]`.
//! DIR defaults to `../shared/corpus/dxil/vkd3d-proton`.

use irlint::read::dxbc::{self, FourCc};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Counts heap allocations so the report can show allocations per module.
struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}
#[global_allocator]
static GLOBAL: Counting = Counting;

/// CPU time of this thread in seconds (Linux `schedstat`), so a loaded machine
/// does not distort the figure; `None` elsewhere.
fn thread_cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "../shared/corpus/dxil/vkd3d-proton".to_string());
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    // Optional: run only the named measurement (walk, decode, decode+verify).
    let only = args.next();
    let mut files: Vec<Vec<u8>> = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("corpus dir").flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.extension().is_some_and(|e| e == "dxil") {
            files.push(std::fs::read(&p).expect("read"));
        }
    }
    let bytes: usize = files.iter().map(|f| f.len()).sum();
    let bitcode = |f: &[u8]| -> (Vec<u8>, u64) {
        let c = dxbc::parse(f, 0).expect("container");
        let (_, bc, base) = dxbc::program(c.part(FourCc::DXIL).expect("DXIL part")).expect("program");
        (bc.to_vec(), base)
    };
    let programs: Vec<(Vec<u8>, u64)> = files.iter().map(|f| bitcode(f)).collect();
    let bc_bytes: usize = programs.iter().map(|p| p.0.len()).sum();
    println!(
        "{} modules, {:.2} MB files, {:.2} MB bitcode, {iters} iterations",
        files.len(),
        bytes as f64 / 1e6,
        bc_bytes as f64 / 1e6
    );

    let run = |name: &str, f: &dyn Fn(&[u8]) -> usize| {
        if only.as_deref().is_some_and(|o| o != name) {
            return;
        }
        // Warm-up.
        let mut sink = 0usize;
        for file in &files {
            sink = sink.wrapping_add(f(file));
        }
        let a0 = ALLOCS.load(Ordering::Relaxed);
        let t = Instant::now();
        let c0 = thread_cpu();
        for _ in 0..iters {
            for file in &files {
                sink = sink.wrapping_add(f(file));
            }
        }
        let wall = t.elapsed().as_secs_f64();
        let s = match (c0, thread_cpu()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => wall,
        };
        let n = (iters * files.len()) as f64;
        let allocs = (ALLOCS.load(Ordering::Relaxed) - a0) as f64 / n;
        println!(
            "{name:>14}: {:>9.0} modules/s  {:>7.1} MB/s (file bytes) per CPU-second; {allocs:.0} allocs/module; wall {wall:.2}s [{sink}]",
            n / s,
            (iters * bytes) as f64 / 1e6 / s
        );
    };
    run("walk", &|file| {
        let c = dxbc::parse(file, 0).expect("container");
        let (_, bc, base) = dxbc::program(c.part(FourCc::DXIL).expect("part")).expect("program");
        irlint::read::bitstream::walk(bc, base).expect("walk") as usize
    });
    run("decode", &|file| {
        let c = dxbc::parse(file, 0).expect("container");
        let (_, bc, base) = dxbc::program(c.part(FourCc::DXIL).expect("part")).expect("program");
        let m = irlint::dxil::llvm::decode(bc, base).expect("decode");
        m.module.functions.len()
    });
    run("decode+verify", &|file| {
        let c = dxbc::parse(file, 0).expect("container");
        let (_, bc, base) = dxbc::program(c.part(FourCc::DXIL).expect("part")).expect("program");
        let m = irlint::dxil::llvm::decode(bc, base).expect("decode");
        irlint::ir::verify::verify(&m.module).expect("verify");
        m.module.functions.len()
    });
}
