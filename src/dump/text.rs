//! The text form of `irlint dump` (`--format text`): one block per file,
//! rendered from the same JSON details the `--format json` output carries.

use super::DumpFile;
use crate::check::FileStatus;
use crate::dxil::dxop;
use serde_json::Value as Json;
use std::fmt::Write;

/// Human-readable text for a set of dumped files.
pub fn render_text(files: &[DumpFile]) -> String {
    let mut out = String::new();
    for f in files {
        render_one(&mut out, f);
    }
    out
}

fn s(j: Option<&Json>) -> Option<&str> {
    j.and_then(|v| v.as_str())
}

fn render_one(out: &mut String, f: &DumpFile) {
    let status = match f.status {
        FileStatus::Ok => "ok",
        FileStatus::Skipped => "skipped",
        FileStatus::Error => "error",
    };
    let kind = serde_json::to_value(f.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
    let _ = writeln!(out, "{}: {kind}, {status}", f.path);
    if let Some(msg) = &f.message {
        let _ = writeln!(out, "  {msg}");
    }
    let d = &f.details;
    if let Some(c) = d.get("container") {
        let digest = s(c.get("digest")).unwrap_or("?");
        let _ = writeln!(
            out,
            "  container: version {}, {} bytes, digest {digest}",
            s(c.get("version")).unwrap_or("?"),
            c.get("size").map(|v| v.to_string()).unwrap_or_default()
        );
        if let Some(parts) = c.get("parts").and_then(|p| p.as_array()) {
            let list: Vec<String> = parts
                .iter()
                .map(|p| {
                    format!(
                        "{} ({} B)",
                        s(p.get("fourcc")).unwrap_or("?"),
                        p.get("size").cloned().unwrap_or(Json::Null)
                    )
                })
                .collect();
            let _ = writeln!(out, "  parts: {}", list.join(", "));
        }
    }
    if let Some(p) = d.get("program") {
        let _ = writeln!(
            out,
            "  program: {} part, {} ({}), DXIL {}{}",
            s(p.get("part")).unwrap_or("?"),
            s(p.get("shader_model")).unwrap_or("?"),
            s(p.get("stage")).unwrap_or("?"),
            s(p.get("dxil_version")).unwrap_or("?"),
            if p.get("debug_info").is_some() { ", with debug info" } else { "" }
        );
    } else if let Some(t) = s(d.get("target")) {
        let _ = writeln!(out, "  target: {t}");
    }
    if let Some(p) = s(d.get("producer")) {
        let _ = writeln!(out, "  producer: {p}");
    }
    for e in d.get("entry_points").and_then(|v| v.as_array()).into_iter().flatten() {
        let _ = writeln!(out, "  entry {} ({})", s(e.get("name")).unwrap_or("?"), s(e.get("stage")).unwrap_or("?"));
    }
    for f in d.get("functions").and_then(|v| v.as_array()).into_iter().flatten() {
        let n = |k: &str| f.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        if f.get("declaration").and_then(|v| v.as_bool()) == Some(true) {
            let _ =
                writeln!(out, "  function {}: declaration, {} params", s(f.get("name")).unwrap_or("?"), n("params"));
        } else {
            let _ = writeln!(
                out,
                "  function {}: {} params, {} blocks, {} instructions, {} phis",
                s(f.get("name")).unwrap_or("?"),
                n("params"),
                n("blocks"),
                n("instructions"),
                n("phis")
            );
        }
    }
    for r in d.get("resources").and_then(|v| v.as_array()).into_iter().flatten() {
        let mut line = format!(
            "  resource #{}: {} {} {}",
            r.get("index").cloned().unwrap_or(Json::Null),
            s(r.get("class")).unwrap_or("?"),
            s(r.get("kind")).unwrap_or("?"),
            s(r.get("binding")).unwrap_or("?"),
        );
        if let Some(n) = s(r.get("name")) {
            let _ = write!(line, " \"{n}\"");
        }
        if let Some(st) = r.get("stride").and_then(|v| v.as_u64()) {
            let _ = write!(line, " stride={st}");
        }
        if let Some(src) = r.get("source").filter(|v| !v.is_null()) {
            line.push_str(&loc_text(src));
        }
        let _ = writeln!(out, "{line}");
    }
    for o in d.get("ops").and_then(|v| v.as_array()).into_iter().flatten() {
        let mut line = format!(
            "  op {} %{}: {}",
            s(o.get("function")).unwrap_or("?"),
            o.get("inst").cloned().unwrap_or(Json::Null),
            s(o.get("text")).unwrap_or("?")
        );
        if let Some(src) = o.get("source") {
            line.push_str(&loc_text(src));
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(ops) = d.get("dx_ops").and_then(|v| v.as_array()) {
        let list: Vec<String> = ops
            .iter()
            .map(|o| {
                format!(
                    "{}({}) x{}",
                    s(o.get("name")).unwrap_or("?"),
                    o.get("opcode")
                        .and_then(|v| v.as_u64())
                        .map(|v| {
                            if v >= u64::from(dxop::EXPERIMENTAL) {
                                format!("0x{v:X}")
                            } else {
                                v.to_string()
                            }
                        })
                        .unwrap_or_default(),
                    o.get("count").cloned().unwrap_or(Json::Null)
                )
            })
            .collect();
        if !list.is_empty() {
            let _ = writeln!(out, "  dx.op calls: {}", list.join(", "));
        }
    }
    for r in d.get("remarks").and_then(|v| v.as_array()).into_iter().flatten() {
        let _ = writeln!(out, "  remark: {}", r.as_str().unwrap_or("?"));
    }
    if let Some(ir) = &f.ir {
        out.push_str(ir);
    }
}

fn loc_text(src: &Json) -> String {
    format!(
        "  [{}:{}:{}]",
        s(src.get("file")).unwrap_or("?"),
        src.get("line").cloned().unwrap_or(Json::Null),
        src.get("column").cloned().unwrap_or(Json::Null)
    )
}
