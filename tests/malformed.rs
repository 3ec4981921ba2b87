//! Malformed-input sweep: truncations, seeded bit flips and overwritten header
//! fields of every fixture and a sample of corpus files. Each mutant must give
//! success or an input error whose message names a byte offset — never a panic
//! (a caught panic shows up as `internal-error`).

mod common;

use irlint::check::{check_bytes, CheckOptions, FileStatus};
use std::path::PathBuf;

/// xorshift64* — deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Mutants of one input: truncations, bit flips, overwritten dwords.
fn mutants(bytes: &[u8], seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(count);
    let n = bytes.len();
    // Truncations at fixed fractions and near the header.
    for cut in [0, 1, 4, 20, 31, 32, 36, 60, n / 4, n / 2, n * 3 / 4, n.saturating_sub(1)] {
        if cut < n {
            out.push(bytes[..cut].to_vec());
        }
    }
    while out.len() < count {
        let mut m = bytes.to_vec();
        if m.is_empty() {
            break;
        }
        match rng.below(4) {
            0 => {
                // 1-4 single-bit flips.
                for _ in 0..=rng.below(4) {
                    let i = rng.below(m.len());
                    m[i] ^= 1 << rng.below(8);
                }
            }
            1 => {
                // Overwrite a header / table dword with an extreme value.
                let i = rng.below(m.len().min(256)) & !3;
                let v: u32 = [0, 1, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000, 0x10000][rng.below(6)];
                for (k, b) in v.to_le_bytes().iter().enumerate() {
                    if let Some(x) = m.get_mut(i + k) {
                        *x = *b;
                    }
                }
            }
            2 => {
                // Overwrite a random dword anywhere.
                let i = rng.below(m.len()) & !3;
                let v = rng.next() as u32;
                for (k, b) in v.to_le_bytes().iter().enumerate() {
                    if let Some(x) = m.get_mut(i + k) {
                        *x = *b;
                    }
                }
            }
            _ => {
                // Truncate at a random point and flip a byte.
                let cut = rng.below(m.len());
                m.truncate(cut.max(1));
                let i = rng.below(m.len());
                m[i] = rng.next() as u8;
            }
        }
        out.push(m);
    }
    out
}

fn inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let fx = common::fixtures();
    files.extend(common::files_with_suffix(&fx.join("dxil"), ".dxil"));
    files.extend(common::files_with_suffix(&fx.join("spirv"), ".spv"));
    if let Some(corpus) = common::shared("corpus") {
        // Every 8th corpus file keeps CI time bounded while covering each producer.
        let mut all = common::files_with_suffix(&corpus.join("dxil"), ".dxil");
        all.extend(common::files_with_suffix(&corpus.join("spirv"), ".spv"));
        all.extend(common::files_with_suffix(&corpus.join("dxbc"), ".dxbc"));
        files.extend(all.into_iter().step_by(8));
    }
    files
}

#[test]
fn mutants_never_panic_and_errors_name_an_offset() {
    let opts = CheckOptions::default();
    let mut total = 0usize;
    let mut errors = 0usize;
    let mut problems = Vec::new();
    for (i, path) in inputs().iter().enumerate() {
        let bytes = std::fs::read(path).expect("read input");
        for (j, m) in mutants(&bytes, 0x9E37_79B9_7F4A_7C15 ^ (i as u64) << 20, 52).iter().enumerate() {
            total += 1;
            let name = format!("{}#mutant{j}", path.display());
            let r = check_bytes(&name, m, &opts);
            assert_eq!(r.files.len().min(1), 1, "{name}: no files entry");
            for f in &r.files {
                if f.status == FileStatus::Error {
                    errors += 1;
                    let msg = f.message.clone().unwrap_or_default();
                    if !msg.contains("offset") {
                        problems.push(format!("{name}: error without byte offset: {msg}"));
                    }
                }
            }
            for d in &r.diagnostics {
                if d.rule == irlint::report::INTERNAL_ERROR {
                    problems.push(format!("{name}: {}", d.message));
                }
                if d.location.path != name {
                    problems.push(format!("{name}: diagnostic names another path {}", d.location.path));
                }
            }
        }
    }
    eprintln!("{total} mutants, {errors} input errors");
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems[..problems.len().min(40)].join("\n"));
    let want = if common::shared_dir().is_some() { 20_000 } else { 2_000 };
    assert!(total >= want, "only {total} mutants (want {want})");
}

#[test]
fn malformed_spirv_corpus_reports_offsets() {
    let Some(dir) = common::shared("corpus-malformed/spirv") else { return };
    let files = common::files_with_suffix(&dir, ".spv");
    assert_eq!(files.len(), 3, "expected the three damaged files");
    for p in files {
        let bytes = std::fs::read(&p).expect("read");
        let r = check_bytes(&p.display().to_string(), &bytes, &CheckOptions::default());
        assert_eq!(r.files[0].status, FileStatus::Error, "{}", p.display());
        let msg = r.files[0].message.clone().unwrap_or_default();
        assert!(msg.contains("byte offset"), "{}: {msg}", p.display());
    }
}
