//! Matrix-atom verifier throughput through the Rust API, one thread: a mixed
//! set of typed records (every verifier, valid and invalid, layouts already
//! parsed — compilers call these per atom). Prints calls/s; the target is
//! ≥ 10 M/s per core. Run: `cargo bench --bench atoms`.

use irlint::atoms::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn layouts() -> Vec<Layout> {
    [
        "((8,16),16):((64,512),1)",           // K-major SW128 f16 (valid)
        "((8,16),16):((32,512),1)",           // K-major, wrong row pitch
        "((64,2),(8,2)):((1,512),(64,1024))", // MN-major SW128 f16 (valid)
        "((32,4),(8,2)):((1,256),(32,1024))", // MN-major SW64 f16 (valid)
        "((8,16),(8,2)):((8,64),(1,1024))",   // K-major interleaved f16 (valid)
        "(12,64):(64,1)",                     // MN not a multiple of 8
        "(2,2):(1,2)",                        // register fragment
    ]
    .iter()
    .map(|s| Layout::parse(s).expect("bench layouts parse"))
    .collect()
}

fn atoms(l: &[Layout]) -> Vec<Atom<'_>> {
    let t = |s: &str| Target::parse(s).expect("bench targets parse");
    let umma = |d, bits, sw, layout| Atom::Umma(UmmaInput { direction: d, elem_bits: bits, swizzle: sw, layout });
    let tc = |raw: u16, collector: u8, arch: bool| {
        Atom::Tcgen05(Tcgen05Input { collector, is_arch_cond: arch, ..Tcgen05Input::new(raw) })
    };
    const S2: &[u64] = &[2];
    const S4: &[u64] = &[4];
    vec![
        tc(0x42, 0, false),
        tc(0x42, 0, true),
        tc(0xE2, 0, true),
        tc(0xC0, 6, true),
        tc(0x1E8, 0, true),
        tc(0x0AC, 0, true),
        umma(UmmaDirection::K, 16, Swizzle::SW128, &l[0]),
        umma(UmmaDirection::K, 16, Swizzle::SW128, &l[1]),
        umma(UmmaDirection::Mn, 16, Swizzle::SW128, &l[2]),
        umma(UmmaDirection::Mn, 16, Swizzle::SW64, &l[3]),
        umma(UmmaDirection::K, 16, Swizzle::NONE, &l[4]),
        umma(UmmaDirection::K, 16, Swizzle::SW128, &l[5]),
        umma(UmmaDirection::K, 16, Swizzle::new(3, 3, 3), &l[0]),
        Atom::Ldsm(LdsmTuple {
            mode: LdsmMode::MT1616,
            size: SizePattern::U8,
            num_matrices: 2,
            transpose: true,
            result_shape: S4,
        }),
        Atom::Ldsm(LdsmTuple {
            mode: LdsmMode::M88,
            size: SizePattern::U16,
            num_matrices: 3,
            transpose: false,
            result_shape: S4,
        }),
        Atom::Stsm(StsmTuple {
            mode: StsmMode::MT168,
            size: SizePattern::U8,
            num_matrices: 2,
            transpose: true,
            result_shape: S2,
        }),
        Atom::MatrixCopy(MatrixCopy {
            direction: CopyDirection::Load,
            src: MemSpace::Shared,
            dst: MemSpace::Register,
            mode: CopyMode::Ldsm(LdsmMode::M88),
            num_matrices: 4,
            result_shape: S4,
            shared_alignment: 128,
        }),
        Atom::RegisterFragment { layout: &l[6], register_count: 4 },
        Atom::RegisterFragment { layout: &l[6], register_count: 3 },
        Atom::Sm120(Sm120Input {
            k: 64,
            a_type: Sm120Type::E2m1,
            b_type: Sm120Type::E2m1,
            sf_type: ScaleFactorType::Ue4m3,
            scale_vector_size: 16,
            scale_fragment_bits: 32,
        }),
        Atom::SwizzleCommutation { swizzle: Swizzle::SW128, offset: 2048 },
        Atom::SwizzleCommutation { swizzle: Swizzle::SW128, offset: 32 },
        Atom::Tma { mode: TmaMode::Im2colW128, rank: 4, target: t("sm_100a") },
        Atom::Tma { mode: TmaMode::Im2col, rank: 2, target: t("sm_90a") },
    ]
}

fn main() {
    let l = layouts();
    let set = atoms(&l);
    let ok = set.iter().filter(|a| verify(a).is_ok()).count();
    let mut calls = 0u64;
    let mut accepted = 0u64;
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(2000) {
        for _ in 0..1000 {
            for a in &set {
                accepted += u64::from(verify(black_box(a)).is_ok());
            }
        }
        calls += 1000 * set.len() as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(accepted);
    println!(
        "atoms verify (mixed)         {:>9.2} M calls/s  ({} records: {} valid, {} invalid; {:.1} ns/call)",
        calls as f64 / secs / 1e6,
        set.len(),
        ok,
        set.len() - ok,
        secs * 1e9 / calls as f64
    );
    // The heaviest verifier alone.
    let umma: Vec<&Atom<'_>> = set.iter().filter(|a| matches!(a, Atom::Umma(_))).collect();
    let mut n = 0u64;
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(1000) {
        for _ in 0..1000 {
            for a in &umma {
                black_box(verify(black_box(a)).is_ok());
            }
        }
        n += 1000 * umma.len() as u64;
    }
    println!("atoms verify (umma only)     {:>9.2} M calls/s", n as f64 / start.elapsed().as_secs_f64() / 1e6);
}
