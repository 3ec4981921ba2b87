//! Stable text form of the IR (used by `irlint dump --ir`, golden snapshots and
//! the IR line of human diagnostics).

use super::module::*;
use crate::read::limits::MAX_PRINTED_ITEM;
use std::fmt::Write;

/// Prints a type (at most about [`MAX_PRINTED_ITEM`] bytes; the rest is `...`).
pub fn type_name(m: &Module, ty: TypeH) -> String {
    let mut s = String::new();
    write_type(m, ty, &mut s, 0, MAX_PRINTED_ITEM);
    s
}

/// True once `out` has reached `limit` bytes; marks the cut with `...` once.
/// Aggregates nest and repeat, so their text can grow exponentially with the
/// input: every writer stops at the limit, and every loop over members breaks.
fn full(out: &mut String, limit: usize) -> bool {
    if out.len() < limit {
        return false;
    }
    if !out.ends_with("...") {
        out.push_str("...");
    }
    true
}

fn write_type(m: &Module, ty: TypeH, out: &mut String, depth: u32, limit: usize) {
    if depth > 16 {
        out.push_str("...");
        return;
    }
    if full(out, limit) {
        return;
    }
    let Some(t) = m.types.try_get(ty) else {
        out.push_str("<bad type>");
        return;
    };
    match t {
        Type::Void => out.push_str("void"),
        Type::Bool => out.push_str("bool"),
        Type::Int { bits } => {
            let _ = write!(out, "i{bits}");
        }
        Type::Float { bits } => {
            let _ = write!(out, "f{bits}");
        }
        Type::Vector { elem, count } => {
            let _ = write!(out, "<{count} x ");
            write_type(m, *elem, out, depth + 1, limit);
            out.push('>');
        }
        Type::Array { elem, count, stride } => {
            out.push('[');
            match count {
                Some(n) => {
                    let _ = write!(out, "{n} x ");
                }
                None => out.push_str("? x "),
            }
            write_type(m, *elem, out, depth + 1, limit);
            if let Some(s) = stride {
                let _ = write!(out, ", stride {s}");
            }
            out.push(']');
        }
        Type::Struct { name: Some(n), .. } => {
            let _ = write!(out, "%{n}");
        }
        Type::Struct { name: None, members } => {
            out.push('{');
            for (i, mt) in members.iter().enumerate() {
                if full(out, limit) {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(m, *mt, out, depth + 1, limit);
            }
            out.push('}');
        }
        Type::Pointer { pointee, space } => {
            write_type(m, *pointee, out, depth + 1, limit);
            if *space != 0 {
                let _ = write!(out, " addrspace({space})");
            }
            out.push('*');
        }
        Type::Function { ret, params } => {
            write_type(m, *ret, out, depth + 1, limit);
            out.push_str(" (");
            for (i, p) in params.iter().enumerate() {
                if full(out, limit) {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(m, *p, out, depth + 1, limit);
            }
            out.push(')');
        }
        Type::Label => out.push_str("label"),
        Type::Metadata => out.push_str("metadata"),
        Type::Opaque { name } => {
            let _ = write!(out, "opaque({name})");
        }
    }
}

/// Prints a value operand (`%12`, `@g`, `i32 7`, `undef`).
pub fn value(m: &Module, f: Option<&Function>, v: Value) -> String {
    let mut s = String::new();
    write_value(m, f, v, &mut s, 0, MAX_PRINTED_ITEM);
    s
}

fn write_value(m: &Module, f: Option<&Function>, v: Value, out: &mut String, depth: u32, limit: usize) {
    match v {
        Value::Inst(h) => {
            let _ = write!(out, "%{}", h.index());
        }
        Value::Arg(i) => {
            let _ = write!(out, "%arg{i}");
        }
        Value::Global(g) => match m.globals.try_get(g).and_then(|g| g.name.as_deref()) {
            Some(n) if !n.is_empty() => {
                let _ = write!(out, "@{n}");
            }
            _ => {
                let _ = write!(out, "@g{}", g.index());
            }
        },
        Value::Function(fh) => match m.functions.try_get(fh) {
            Some(func) => {
                let _ = write!(out, "@{}", func.name);
            }
            None => out.push_str("@<bad function>"),
        },
        Value::Const(c) => write_const(m, f, c, out, depth, limit),
    }
}

fn write_const(m: &Module, f: Option<&Function>, c: ConstH, out: &mut String, depth: u32, limit: usize) {
    let Some(k) = m.constants.try_get(c) else {
        out.push_str("<bad const>");
        return;
    };
    if depth > 8 {
        out.push_str("...");
        return;
    }
    if full(out, limit) {
        return;
    }
    if let Some(id) = k.spec_id {
        let _ = write!(out, "spec({id}) ");
    }
    write_type(m, k.ty, out, 0, limit);
    out.push(' ');
    match &k.kind {
        ConstKind::Int(x) => {
            // Print as signed when the top bit of the width is set, like LLVM.
            let bits = m.int_bits(k.ty).unwrap_or(64);
            if bits == 1 {
                out.push_str(if *x != 0 { "true" } else { "false" });
            } else if (2..64).contains(&bits) && (x >> (bits - 1)) & 1 == 1 {
                let signed = (*x as i64) - (1i64 << bits);
                let _ = write!(out, "{signed}");
            } else {
                let _ = write!(out, "{}", *x as i64);
            }
        }
        ConstKind::Float(bits) => {
            let _ = write!(out, "0x{bits:X}");
        }
        ConstKind::Undef => out.push_str("undef"),
        ConstKind::Null => match m.types.try_get(k.ty) {
            Some(Type::Int { bits: 1 }) | Some(Type::Bool) => out.push_str("false"),
            Some(Type::Int { .. }) => out.push('0'),
            Some(Type::Float { .. }) => out.push_str("0.0"),
            _ => out.push_str("zeroinitializer"),
        },
        ConstKind::Aggregate(vals) => {
            out.push_str("{ ");
            for (i, v) in vals.iter().enumerate() {
                if full(out, limit) {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(m, f, *v, out, depth + 1, limit);
            }
            out.push_str(" }");
        }
        ConstKind::String(b) => {
            let _ = write!(out, "c{:?}", String::from_utf8_lossy(b));
        }
        ConstKind::Expr(e) => {
            let (name, ops): (String, Vec<Value>) = match &**e {
                ConstExpr::Binary(op, a, b) => (format!("{op:?}").to_lowercase(), vec![*a, *b]),
                ConstExpr::Unary(op, a) => (format!("{op:?}").to_lowercase(), vec![*a]),
                ConstExpr::Cast(op, a) => (format!("{op:?}").to_lowercase(), vec![*a]),
                ConstExpr::Cmp(p, a, b) => (format!("cmp{}", p.0), vec![*a, *b]),
                ConstExpr::Select(a, b, c) => ("select".into(), vec![*a, *b, *c]),
                ConstExpr::Gep { base, indices } => {
                    let mut v = vec![*base];
                    v.extend(indices.iter().copied());
                    ("getelementptr".into(), v)
                }
                ConstExpr::Extract(a, idx) => (format!("extract{idx:?}"), vec![*a]),
                ConstExpr::Other(op, v) => (format!("op{op}"), v.clone()),
            };
            let _ = write!(out, "{name}(");
            for (i, v) in ops.iter().enumerate() {
                if full(out, limit) {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(m, f, *v, out, depth + 1, limit);
            }
            out.push(')');
        }
    }
}

/// Prints one instruction (`%5 = add i32 %3, i32 12`).
pub fn inst(m: &Module, f: &Function, h: InstH) -> String {
    let Some(i) = f.insts.try_get(h) else {
        return "<bad instruction>".into();
    };
    let mut out = String::new();
    let has_result = !matches!(m.types.try_get(i.ty), Some(Type::Void) | None);
    if has_result {
        let _ = write!(out, "%{} = ", h.index());
    }
    let v = |x: Value| value(m, Some(f), x);
    let blk = |b: BlockH| format!("bb{}", b.index());
    let list = |xs: &[Value]| xs.iter().map(|x| v(*x)).collect::<Vec<_>>().join(", ");
    let ty = type_name(m, i.ty);
    let body = match &i.kind {
        InstKind::Binary { op, lhs, rhs } => {
            format!("{} {ty} {}, {}", format!("{op:?}").to_lowercase(), v(*lhs), v(*rhs))
        }
        InstKind::Unary { op, value } => format!("{} {ty} {}", format!("{op:?}").to_lowercase(), v(*value)),
        InstKind::Cast { op, value } => format!("{} {} to {ty}", format!("{op:?}").to_lowercase(), v(*value)),
        InstKind::Cmp { pred, lhs, rhs } => format!("cmp {} {}, {}", pred.0, v(*lhs), v(*rhs)),
        InstKind::Select { cond, if_true, if_false } => {
            format!("select {ty} {}, {}, {}", v(*cond), v(*if_true), v(*if_false))
        }
        InstKind::Phi { incoming } => {
            let parts: Vec<String> = incoming.iter().map(|(x, b)| format!("[{}, {}]", v(*x), blk(*b))).collect();
            format!("phi {ty} {}", parts.join(", "))
        }
        InstKind::Alloca { ty: t } => format!("alloca {}", type_name(m, *t)),
        InstKind::Load { ptr } => format!("load {ty}, {}", v(*ptr)),
        InstKind::Store { ptr, value } => format!("store {}, {}", v(*value), v(*ptr)),
        InstKind::Gep { base, indices } => format!("getelementptr {}, {}", v(*base), list(indices)),
        InstKind::ExtractValue { agg, indices } => format!("extractvalue {}, {indices:?}", v(*agg)),
        InstKind::InsertValue { agg, value, indices } => {
            format!("insertvalue {}, {}, {indices:?}", v(*agg), v(*value))
        }
        InstKind::ExtractElement { vector, index } => format!("extractelement {}, {}", v(*vector), v(*index)),
        InstKind::InsertElement { vector, value, index } => {
            format!("insertelement {}, {}, {}", v(*vector), v(*value), v(*index))
        }
        InstKind::Shuffle { a, b, mask } => format!("shufflevector {}, {}, {}", v(*a), v(*b), v(*mask)),
        InstKind::Composite { elements } => format!("composite {ty} {}", list(elements)),
        InstKind::Call { callee, args, .. } => format!("call {ty} {}({})", v(*callee), list(args)),
        InstKind::AtomicRmw { op, ptr, value } => format!("atomicrmw {op} {}, {}", v(*ptr), v(*value)),
        InstKind::CmpXchg { ptr, cmp, new } => format!("cmpxchg {}, {}, {}", v(*ptr), v(*cmp), v(*new)),
        InstKind::Br { target } => format!("br {}", blk(*target)),
        InstKind::CondBr { cond, if_true, if_false } => {
            format!("br {}, {}, {}", v(*cond), blk(*if_true), blk(*if_false))
        }
        InstKind::Switch { value, default, cases } => {
            let parts: Vec<String> = cases.iter().map(|(c, b)| format!("{c}: {}", blk(*b))).collect();
            format!("switch {}, default {} [{}]", v(*value), blk(*default), parts.join(", "))
        }
        InstKind::Ret { value: Some(x) } => format!("ret {}", v(*x)),
        InstKind::Ret { value: None } => "ret void".into(),
        InstKind::Unreachable => "unreachable".into(),
        InstKind::Other { opcode, operands } => format!("{} {ty} {}", other_name(m, *opcode), list(operands)),
    };
    out.push_str(&body);
    out
}

/// Prints a whole function.
pub fn function(m: &Module, f: &Function) -> String {
    function_noted(m, f, &|_| None, &|_| None)
}

/// A note on a value for [`module_noted`]: what the dataflow knows of a phi
/// or an argument (`None`: nothing to say).
pub type Note<'a> = &'a dyn Fn(FuncH, Value) -> Option<String>;

/// A one-character marker per instruction for [`module_annotated`] (`U` / `D`
/// in `dump --ir`: uniform / divergent; `None`: no marker).
pub type Mark<'a> = &'a dyn Fn(FuncH, InstH) -> Option<char>;

/// [`function`] with a `; %argN = …` line per noted parameter, the note
/// after each noted phi (`%7 = phi … ; = 0 mod 16`), and each instruction's
/// marker in place of its first column of indentation.
fn function_noted(
    m: &Module,
    f: &Function,
    note: &dyn Fn(Value) -> Option<String>,
    mark: &dyn Fn(InstH) -> Option<char>,
) -> String {
    let mut out = String::new();
    let params: Vec<String> = f.params.iter().map(|p| type_name(m, *p)).collect();
    let ret = f.ret.map(|r| type_name(m, r)).unwrap_or_else(|| "void".into());
    if f.is_declaration {
        let _ = writeln!(out, "declare {ret} @{}({})", f.name, params.join(", "));
        return out;
    }
    let _ = writeln!(out, "define {ret} @{}({}) {{", f.name, params.join(", "));
    for i in 0..f.params.len() {
        if let Some(n) = note(Value::Arg(i as u32)) {
            let _ = writeln!(out, "  ; %arg{i} = {n}");
        }
    }
    for (bh, b) in f.blocks.iter() {
        let _ = writeln!(out, "bb{}:", bh.index());
        for ih in &b.insts {
            let text = inst(m, f, *ih);
            let is_phi = matches!(f.insts.try_get(*ih).map(|i| &i.kind), Some(InstKind::Phi { .. }));
            let lead = mark(*ih).map_or_else(|| "  ".to_string(), |c| format!("{c} "));
            match note(Value::Inst(*ih)).filter(|_| is_phi) {
                Some(n) => {
                    let _ = writeln!(out, "{lead}{text} ; = {n}");
                }
                None => {
                    let _ = writeln!(out, "{lead}{text}");
                }
            }
        }
    }
    out.push_str("}\n");
    out
}

/// Prints the whole module: resources, facts and function bodies.
pub fn module(m: &Module) -> String {
    module_noted(m, &|_, _| None)
}

/// [`module`] with notes on phis and parameters (`irlint dump --ir` gives
/// what the dataflow recovered for loop phis and `.func` parameters).
pub fn module_noted(m: &Module, note: Note<'_>) -> String {
    module_annotated(m, note, &|_, _| None)
}

/// [`module_noted`] with a marker per instruction (`dump --ir`: uniformity).
pub fn module_annotated(m: &Module, note: Note<'_>, mark: Mark<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "; source {:?}, target {}", m.source, m.target.as_deref().unwrap_or("?"));
    for (h, r) in m.resources.iter() {
        let _ = writeln!(
            out,
            "; resource {} {:?} {} {:?} binding {:?} stride {:?}",
            h.index(),
            r.class,
            r.kind.name(),
            r.name.as_deref().unwrap_or(""),
            r.binding,
            r.stride
        );
    }
    for fact in &m.facts {
        let _ = writeln!(out, "; fact fn{} %{}: {:?}", fact.function.index(), fact.inst.index(), fact.kind);
    }
    for (fh, f) in m.functions.iter() {
        if !f.is_declaration {
            out.push_str(&function_noted(m, f, &|v| note(fh, v), &|ih| mark(fh, ih)));
        }
    }
    out
}

/// Name of an opcode kept verbatim: the SPIR-V instruction name, or `opN`.
fn other_name(m: &Module, opcode: u32) -> String {
    if m.source == SourceKind::Spirv {
        if let Some(op) = spirv::Op::from_u32(opcode) {
            return format!("Op{op:?}");
        }
    }
    if m.source == SourceKind::Ptx {
        if let Some(name) = m.op_names.get(opcode as usize) {
            return name.clone();
        }
    }
    format!("op{opcode}")
}
