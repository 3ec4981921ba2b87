//! Every finding on `../shared/corpus` has been reviewed by hand; the reviewed
//! list with the reason for each lives in `tests/corpus_findings.tsv`. A new or
//! vanished finding fails this test. `IRLINT_UPDATE_CORPUS=1` rewrites the list
//! (then review the diff and keep or fix the reasons).

mod common;

use irlint::check::{check_bytes, CheckOptions, FileStatus};
use std::collections::BTreeMap;

fn reason(rule: &str, values: &str) -> String {
    match rule {
        "structured-buffer-stride-not-cache-aligned" => format!(
            "true: element stride {values} neither divides nor is a multiple of 32, so elements straddle \
             32-byte lines (stride checked against the module's own metadata / ArrayStride); kept because \
             an access's element index may differ between lanes (index= and why= say which and why)"
        ),
        "coopvec-fp8-with-non-optimal-layout" => {
            "true for the default specialization, hence possible (assumed = {15: 0}): E4M3 matrix with \
             MemoryLayout = spec constant 15 (default 0 = RowMajorNV); VUID-10090 requires an optimal \
             layout; the sample overrides the spec constant at pipeline creation"
                .to_string()
        }
        "coopvec-outer-product-layout" => {
            "true for the default specialization, hence possible (assumed = {15: 0}): OuterProductAccumulate with \
             MemoryLayout = spec constant 15 (default 0 = RowMajorNV); VUID-10093 requires TrainingOptimal"
                .to_string()
        }
        _ => "UNREVIEWED".to_string(),
    }
}

#[test]
fn corpus_findings_are_the_reviewed_ones() {
    let Some(corpus) = common::shared("corpus") else { return };
    let mut files = common::files_with_suffix(&corpus.join("dxil"), ".dxil");
    files.extend(common::files_with_suffix(&corpus.join("spirv"), ".spv"));
    assert!(files.len() >= 1900, "corpus has {} files", files.len());
    let opts = CheckOptions::default();
    let mut found: BTreeMap<String, usize> = BTreeMap::new();
    for p in &files {
        let bytes = std::fs::read(p).expect("read corpus file");
        let rel = p.strip_prefix(&corpus).unwrap_or(p).display().to_string();
        let r = check_bytes(&rel, &bytes, &opts);
        assert!(r.files.iter().all(|f| f.status == FileStatus::Ok), "{rel}: {:?}", r.files);
        for d in r.diagnostics {
            let values: Vec<String> = d.values.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let key = format!("{rel}\t{}\t{}", d.rule, values.join(" "));
            *found.entry(key).or_default() += 1;
        }
    }
    let list_path = common::root().join("tests/corpus_findings.tsv");
    let rendered: String = found
        .iter()
        .map(|(k, n)| {
            let mut parts = k.split('\t');
            let (_, rule, values) = (parts.next(), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            let stride = values.split(' ').find_map(|v| v.strip_prefix("stride=")).unwrap_or(values);
            format!("{k}\t{n}\t{}\n", reason(rule, stride))
        })
        .collect();
    if std::env::var_os("IRLINT_UPDATE_CORPUS").is_some() {
        std::fs::write(&list_path, &rendered).expect("write list");
        return;
    }
    let expected = std::fs::read_to_string(&list_path).expect("tests/corpus_findings.tsv");
    assert!(!expected.contains("UNREVIEWED"), "unreviewed findings in the list");
    if expected != rendered {
        let exp: Vec<&str> = expected.lines().collect();
        let got: Vec<&str> = rendered.lines().collect();
        let new: Vec<&&str> = got.iter().filter(|l| !exp.contains(l)).collect();
        let gone: Vec<&&str> = exp.iter().filter(|l| !got.contains(l)).collect();
        panic!("corpus findings changed.\nnew:\n{new:#?}\ngone:\n{gone:#?}");
    }
}
