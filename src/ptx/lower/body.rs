//! One function body → blocks of SSA instructions.
//!
//! Pass 1 splits the statements into blocks (at labels and after branches,
//! `ret`, `exit`, `trap`) and resolves branch targets through the `{ }` scopes
//! they were written in. Pass 2 fills the blocks in order, turning registers
//! into SSA values with the on-the-fly construction of Braun et al. ("Simple
//! and Efficient SSA Construction", CC 2013): a block is sealed once all its
//! predecessors are filled, reads in unsealed blocks create operand-less phis
//! that are completed on sealing, and a final pass folds trivial phis. Reads
//! walk single-predecessor chains and complete phis from a work list, so deep
//! CFGs cannot overflow the stack.

use super::{span, Cx};
use crate::ir::{
    BinOp, BlockH, CastOp, CmpPred, DebugLoc, Function, Inst, InstH, InstKind, LocH, Span, TypeH, UnOp, Value,
};
use crate::ptx::facts;
use crate::ptx::lex::{error_at, Pos};
use crate::ptx::parse::{Address, FuncDecl, Instruction, LocDirective, Operand, Space, Stmt, VarDecl};
use crate::ptx::{scalar_type, Opcode};
use crate::read::limits::{MAX_BLOCKS, MAX_PTX_REGISTERS, MAX_VALUES};
use crate::read::{ErrorKind, Result};
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Term<'a> {
    Fall,
    Br(&'a str, u32),
    CondBr(&'a str, u32),
    Switch(&'a str),
    Ret,
    CondRet,
    Trap,
    CondTrap,
}

struct Pre<'a> {
    first: usize,
    end: usize,
    term: Term<'a>,
    term_pos: Pos,
}

#[derive(Default)]
struct Blk {
    phis: Vec<InstH>,
    body: Vec<InstH>,
    defs: FxHashMap<u32, Value>,
    sealed: bool,
    unfilled: u32,
    incomplete: Vec<(u32, InstH)>,
    preds: Vec<usize>,
    succs: Vec<usize>,
    ir: Option<BlockH>,
}

#[derive(Clone, Copy)]
enum Slot {
    Var(u32),
    Sym(Value),
    Param(u32),
}

#[derive(Default)]
struct Scope<'a> {
    names: FxHashMap<&'a str, Slot>,
    ranges: FxHashMap<&'a str, (u32, u32)>,
}

fn control(op: &str) -> Option<&str> {
    let base = op.split('.').next().unwrap_or(op);
    matches!(base, "bra" | "brx" | "ret" | "exit" | "trap").then_some(base)
}

/// What the lowering needs to know about an instruction word, computed once per word.
#[derive(Debug, Clone, Copy)]
pub(super) struct OpInfo<'a> {
    /// The part before the first dot.
    pub base: &'a str,
    /// A branch, `ret`, `exit` or `trap`.
    pub control: bool,
    /// The first operand is read, not written.
    pub no_dest: bool,
    /// Class letter of the type suffix (`s`, `u`, `b`, `f`, `p`).
    pub class: Option<u8>,
    /// Type of immediates (from the type suffix).
    pub imm_ty: TypeH,
    /// How the lowering models it.
    pub kind: OpKind,
    /// A matrix instruction that may become a fact.
    pub maybe_fact: bool,
}

/// The modelled operations, decided once per instruction word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OpKind {
    Bin(BinOp),
    MulWide,
    MadLo,
    MadWide,
    Not(UnOp),
    Neg(UnOp),
    Mov,
    Cvta,
    Setp(CmpPred),
    Selp,
    /// `cvt`: the cast (None: same width and class, a copy) and the source type.
    Cvt(Option<CastOp>, TypeH),
    /// `bfe.{u,s}N`: signed when `.sNN`.
    Bfe(bool),
    /// `bfi.bN`.
    Bfi,
    LdParam,
    Ld,
    St,
    Call,
    Other,
}

impl<'a> OpInfo<'a> {
    pub(super) fn new(cx: &mut Cx<'a>, word: &'a str) -> Self {
        let op = Opcode::new(word);
        let last = op.last();
        let class = last.and_then(scalar_type).map(|t| t.0);
        let float = class == Some(b'f');
        let signed = class == Some(b's');
        let bin = |o: BinOp, fo: BinOp| OpKind::Bin(if float { fo } else { o });
        let plain = !op.has("cc") && !op.has("sat");
        let base = op.base();
        let kind = match base {
            "add" if plain => bin(BinOp::Add, BinOp::FAdd),
            "sub" if plain => bin(BinOp::Sub, BinOp::FSub),
            "mul" if float || op.has("lo") => bin(BinOp::Mul, BinOp::FMul),
            "mul" if op.has("wide") => OpKind::MulWide,
            "div" if float => OpKind::Bin(BinOp::FDiv),
            "div" => OpKind::Bin(if signed { BinOp::SDiv } else { BinOp::UDiv }),
            "rem" if !float => OpKind::Bin(if signed { BinOp::SRem } else { BinOp::URem }),
            "and" => OpKind::Bin(BinOp::And),
            "or" => OpKind::Bin(BinOp::Or),
            "xor" => OpKind::Bin(BinOp::Xor),
            "shl" => OpKind::Bin(BinOp::Shl),
            "shr" => OpKind::Bin(if signed { BinOp::AShr } else { BinOp::LShr }),
            "mad" if op.has("wide") => OpKind::MadWide,
            "mad" if op.has("lo") => OpKind::MadLo,
            "not" => OpKind::Not(if class == Some(b'p') { UnOp::LogicalNot } else { UnOp::Not }),
            "neg" => OpKind::Neg(if float { UnOp::FNeg } else { UnOp::Neg }),
            "mov" => OpKind::Mov,
            "cvta" => OpKind::Cvta,
            "setp" => match cmp_pred(&op, class) {
                Some(p) => OpKind::Setp(p),
                None => OpKind::Other,
            },
            "selp" => OpKind::Selp,
            "cvt" => {
                let mut types = op.mods().filter_map(|m| scalar_type(m).map(|t| (m, t)));
                match (types.next(), types.next()) {
                    (Some((_, dt)), Some((s, st))) => {
                        let cast = match (dt.0 == b'f', st.0 == b'f') {
                            (false, false) if dt.1 > st.1 => {
                                Some(if st.0 == b's' { CastOp::SExt } else { CastOp::ZExt })
                            }
                            (false, false) if dt.1 < st.1 => Some(CastOp::Trunc),
                            (false, false) => None,
                            (true, true) if dt.1 > st.1 => Some(CastOp::FpExt),
                            (true, true) if dt.1 < st.1 => Some(CastOp::FpTrunc),
                            (true, true) => None,
                            (true, false) => Some(if st.0 == b's' { CastOp::SiToFp } else { CastOp::UiToFp }),
                            (false, true) => Some(if dt.0 == b's' { CastOp::FpToSi } else { CastOp::FpToUi }),
                        };
                        OpKind::Cvt(cast, cx.scalar(Some(s)))
                    }
                    _ => OpKind::Other,
                }
            }
            "bfe" => OpKind::Bfe(signed),
            "bfi" => OpKind::Bfi,
            "ld" if op.has("param") => OpKind::LdParam,
            "ld" => OpKind::Ld,
            "st" => OpKind::St,
            "call" => OpKind::Call,
            _ => OpKind::Other,
        };
        OpInfo {
            base,
            control: control(word).is_some(),
            no_dest: no_dest(&op),
            class,
            imm_ty: cx.scalar(last),
            kind,
            maybe_fact: matches!(base, "ldmatrix" | "stmatrix" | "tcgen05" | "mma" | "cp" | "mbarrier" | "wgmma"),
        }
    }
}

/// Instructions whose first register operand is read, not written.
fn no_dest(op: &Opcode<'_>) -> bool {
    match op.base() {
        "bar" | "barrier" => !op.has("red"),
        "tcgen05" => op.second() != Some("ld"),
        "wgmma" => op.second() != Some("mma_async"),
        "multimem" => !op.has("ld_reduce"),
        "bra" | "brx" | "call" | "ret" | "exit" | "trap" | "nanosleep" | "membar" | "fence" | "prefetch"
        | "prefetchu" | "setmaxnreg" | "griddepcontrol" | "pmevent" | "st" | "red" | "stmatrix" | "cp"
        | "tensormap" | "discard" | "applypriority" => true,
        _ => false,
    }
}

struct Body<'c, 'a> {
    cx: &'c mut Cx<'a>,
    f: Function,
    blocks: Vec<Blk>,
    vars: Vec<TypeH>,
    scopes: Vec<Scope<'a>>,
    cur: usize,
    sp: Span,
    loc: Option<(LocDirective, LocH)>,
    work: Vec<(u32, InstH, usize)>,
    phis: Vec<InstH>,
    entry_allocas: Vec<InstH>,
    facts: Vec<facts::Pending>,
    cond: Option<(Value, bool)>,
    switch_value: Option<Value>,
}

/// Lowers the body `stmts` of `fd` into `f` (which carries the signature).
pub(super) fn lower_body<'a>(
    cx: &mut Cx<'a>,
    fd: &FuncDecl<'a>,
    stmts: &[Stmt<'a>],
    f: Function,
) -> Result<(Function, Vec<facts::Pending>)> {
    // ---- pass 1: blocks and edges -------------------------------------------------
    let mut pres = vec![Pre { first: 0, end: stmts.len(), term: Term::Fall, term_pos: fd.pos }];
    let mut parents: Vec<u32> = vec![0];
    let mut stack: Vec<u32> = vec![0];
    let mut labels: FxHashMap<(u32, &str), usize> = FxHashMap::default();
    let mut tables: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
    let mut terminated = false;
    let mut content = false;
    // Labels no branch names (`$L__tmp0`, `$L__func_begin0`) do not split blocks.
    let mut targets: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    for s in stmts {
        match s {
            Stmt::Inst(ins) if control(ins.op).is_some() => {
                if let Some(Operand::Sym(l)) = ins.operands.last() {
                    targets.insert(l);
                }
            }
            Stmt::BranchTargets(_, ls, _) => targets.extend(ls.iter().copied()),
            _ => {}
        }
    }
    for (i, s) in stmts.iter().enumerate() {
        let scope = stack.last().copied().unwrap_or(0);
        let new_block = match s {
            Stmt::Label(name, _) => targets.contains(name) && (content || terminated || pres.len() == 1),
            Stmt::Inst(_) => terminated,
            _ => false,
        };
        if new_block {
            if pres.len() >= MAX_BLOCKS {
                return Err(error_at(fd.pos, ErrorKind::LimitExceeded, "too many basic blocks"));
            }
            if let Some(p) = pres.last_mut() {
                p.end = i;
            }
            pres.push(Pre { first: i, end: stmts.len(), term: Term::Fall, term_pos: fd.pos });
            terminated = false;
            content = false;
        }
        let cur = pres.len() - 1;
        match s {
            Stmt::Open(_) => {
                let id = parents.len() as u32;
                parents.push(scope);
                stack.push(id);
            }
            Stmt::Close(_) => {
                stack.pop();
            }
            Stmt::Label(name, pos) if targets.contains(name) && labels.insert((scope, name), cur).is_some() => {
                return Err(error_at(*pos, ErrorKind::Malformed, format!("label {name} defined twice")));
            }
            Stmt::BranchTargets(name, targets, _) => {
                tables.insert(name, targets.clone());
            }
            Stmt::Inst(ins) => {
                content = true;
                if let Some(base) = control(ins.op) {
                    let guarded = ins.guard.is_some();
                    let target = match ins.operands.as_slice() {
                        [Operand::Sym(l)] => Some(*l),
                        _ => None,
                    };
                    let term = match (base, guarded) {
                        ("bra", _) => {
                            let Some(l) = target else {
                                return Err(error_at(ins.pos, ErrorKind::Malformed, "branch without a label"));
                            };
                            if guarded {
                                Term::CondBr(l, scope)
                            } else {
                                Term::Br(l, scope)
                            }
                        }
                        ("brx", _) => match ins.operands.as_slice() {
                            [_, Operand::Sym(t)] => Term::Switch(t),
                            _ => {
                                return Err(error_at(
                                    ins.pos,
                                    ErrorKind::Malformed,
                                    "brx.idx needs an index and a table",
                                ))
                            }
                        },
                        ("trap", false) => Term::Trap,
                        ("trap", true) => Term::CondTrap,
                        (_, false) => Term::Ret,
                        (_, true) => Term::CondRet,
                    };
                    if let Some(p) = pres.last_mut() {
                        p.term = term;
                        p.term_pos = ins.pos;
                    }
                    terminated = true;
                }
            }
            _ => {}
        }
    }
    let falls_off =
        matches!(pres.last().map(|p| p.term), Some(Term::Fall | Term::CondBr(..) | Term::CondRet | Term::CondTrap));
    if falls_off {
        pres.push(Pre { first: stmts.len(), end: stmts.len(), term: Term::Ret, term_pos: fd.pos });
    }
    let resolve = |name: &str, mut scope: u32, pos: Pos| -> Result<usize> {
        loop {
            if let Some(b) = labels.get(&(scope, name)) {
                return Ok(*b);
            }
            if scope == 0 {
                return Err(error_at(pos, ErrorKind::Malformed, format!("undefined label {name}")));
            }
            scope = parents.get(scope as usize).copied().unwrap_or(0);
        }
    };
    let n = pres.len();
    let mut blocks: Vec<Blk> = (0..n).map(|_| Blk::default()).collect();
    for (i, p) in pres.iter().enumerate() {
        let next = if i + 1 < n { vec![i + 1] } else { vec![] };
        let succs = match p.term {
            Term::Fall | Term::CondRet | Term::CondTrap => next,
            Term::Br(l, s) => vec![resolve(l, s, p.term_pos)?],
            Term::CondBr(l, s) => {
                let mut v = vec![resolve(l, s, p.term_pos)?];
                v.extend(next);
                v
            }
            Term::Switch(t) => {
                let Some(targets) = tables.get(t) else {
                    return Err(error_at(p.term_pos, ErrorKind::Malformed, format!("undefined branch table {t}")));
                };
                let mut v = Vec::with_capacity(targets.len());
                for l in targets {
                    v.push(resolve(l, 0, p.term_pos)?);
                }
                v
            }
            Term::Ret | Term::Trap => vec![],
        };
        for &s in &succs {
            if let Some(b) = blocks.get_mut(s) {
                b.preds.push(i);
                b.unfilled += 1;
            }
        }
        if let Some(b) = blocks.get_mut(i) {
            b.succs = succs;
        }
    }
    let mut f = f;
    f.is_declaration = false;
    for b in blocks.iter_mut() {
        b.ir = Some(f.blocks.append(Default::default()));
    }
    // ---- pass 2: fill blocks -------------------------------------------------------
    let mut body = Body {
        cx,
        f,
        blocks,
        vars: Vec::new(),
        scopes: vec![Scope::default()],
        cur: 0,
        sp: span(fd.pos),
        loc: None,
        work: Vec::new(),
        phis: Vec::new(),
        entry_allocas: Vec::new(),
        facts: Vec::new(),
        cond: None,
        switch_value: None,
    };
    for (i, p) in fd.params.iter().enumerate() {
        body.scopes[0].names.insert(p.name, Slot::Param(i as u32));
    }
    for r in &fd.rets {
        body.declare(r)?;
    }
    for (i, p) in pres.iter().enumerate() {
        body.cur = i;
        body.cond = None;
        body.switch_value = None;
        body.blocks[i].sealed = body.blocks[i].unfilled == 0;
        body.blocks[i].defs.reserve(p.end.saturating_sub(p.first).min(1 << 16));
        for s in stmts.get(p.first..p.end).unwrap_or(&[]) {
            body.stmt(s)?;
        }
        if body.f.insts.len() > MAX_VALUES {
            return Err(error_at(fd.pos, ErrorKind::LimitExceeded, "too many instructions in one function"));
        }
        body.terminate(i, p.term, p.term_pos);
        let succs = body.blocks[i].succs.clone();
        for s in succs {
            let b = &mut body.blocks[s];
            b.unfilled = b.unfilled.saturating_sub(1);
            if b.unfilled == 0 && s <= i && !b.sealed {
                body.seal(s);
            }
        }
    }
    body.finish()
}

impl<'c, 'a> Body<'c, 'a> {
    fn ir_block(&self, b: usize) -> BlockH {
        self.blocks.get(b).and_then(|b| b.ir).unwrap_or_else(first_block)
    }

    fn emit(&mut self, ty: TypeH, kind: InstKind) -> Value {
        let h = self.f.insts.append(Inst { ty, kind, span: self.sp });
        self.blocks[self.cur].body.push(h);
        Value::Inst(h)
    }

    fn emit_term(&mut self, b: usize, kind: InstKind) {
        let ty = self.cx.void();
        let h = self.f.insts.append(Inst { ty, kind, span: self.sp });
        self.blocks[b].body.push(h);
    }

    fn terminate(&mut self, i: usize, term: Term<'a>, pos: Pos) {
        self.sp = Span { offset: u64::from(pos.offset), id: pos.line, loc: self.sp.loc };
        let succs = self.blocks[i].succs.clone();
        let first = succs.first().map(|&s| self.ir_block(s));
        let (cond, neg) = self.cond.unwrap_or((Value::Arg(u32::MAX), false));
        let kind = match (term, first) {
            (Term::Fall | Term::Br(..), Some(t)) => InstKind::Br { target: t },
            (Term::CondBr(..), Some(t)) => {
                let other = succs.get(1).map(|&s| self.ir_block(s)).unwrap_or(t);
                let (if_true, if_false) = if neg { (other, t) } else { (t, other) };
                InstKind::CondBr { cond, if_true, if_false }
            }
            (Term::CondRet | Term::CondTrap, Some(next)) => {
                let exit = self.f.blocks.append(Default::default());
                let ty = self.cx.void();
                let k = if term == Term::CondRet { InstKind::Ret { value: None } } else { InstKind::Unreachable };
                let h = self.f.insts.append(Inst { ty, kind: k, span: self.sp });
                self.f.blocks[exit].insts.push(h);
                let (if_true, if_false) = if neg { (next, exit) } else { (exit, next) };
                InstKind::CondBr { cond, if_true, if_false }
            }
            (Term::Switch(_), Some(default)) => {
                let cases = succs.iter().enumerate().map(|(k, &s)| (k as u64, self.ir_block(s))).collect();
                let value = self.switch_value.unwrap_or(cond);
                InstKind::Switch { value, default, cases }
            }
            (Term::Trap, _) => InstKind::Unreachable,
            _ => InstKind::Ret { value: None },
        };
        // A conditional terminator whose guard was never read (cannot happen for
        // parsed input) falls back to an undefined condition.
        let kind = match kind {
            InstKind::CondBr { cond: Value::Arg(u32::MAX), if_true, if_false } => {
                let bool_ty = self.cx.int(1);
                InstKind::CondBr { cond: self.cx.undef(bool_ty), if_true, if_false }
            }
            InstKind::Switch { value: Value::Arg(u32::MAX), default, cases } => {
                let t = self.cx.int(32);
                InstKind::Switch { value: self.cx.undef(t), default, cases }
            }
            k => k,
        };
        self.emit_term(i, kind);
    }

    // ---- names ----------------------------------------------------------------------

    fn declare(&mut self, d: &VarDecl<'a>) -> Result<()> {
        let ty = self.cx.decl_type(d);
        let scope = self.scopes.len() - 1;
        if d.space == Space::Reg {
            let count = d.range.unwrap_or(1);
            let base = self.vars.len();
            if base.saturating_add(count as usize) > MAX_PTX_REGISTERS {
                return Err(error_at(d.pos, ErrorKind::LimitExceeded, "too many registers in one function"));
            }
            self.vars.resize(base + count as usize, ty);
            let base = base as u32;
            if d.range.is_some() {
                self.scopes[scope].ranges.insert(d.name, (base, count));
            } else {
                self.scopes[scope].names.insert(d.name, Slot::Var(base));
            }
        } else if d.space == Space::Shared {
            // A `.shared` variable has static storage, one per CTA, as at module
            // scope (nvcc declares its demoted `__shared__` arrays here): a global
            // visible in this scope, with its alignment.
            let v = self.cx.add_global(d);
            self.scopes[scope].names.insert(d.name, Slot::Sym(v));
        } else {
            // A local or param variable: an address, allocated at entry.
            let k = InstKind::Alloca { ty };
            let pty = self.cx.ptr(ty, d.space.address_space());
            let h = self.f.insts.append(Inst { ty: pty, kind: k, span: span(d.pos) });
            self.entry_allocas.push(h);
            self.scopes[scope].names.insert(d.name, Slot::Sym(Value::Inst(h)));
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<Slot> {
        let digits = name.len() - name.bytes().rev().take_while(|b| b.is_ascii_digit()).count();
        let (prefix, num) = name.split_at(digits);
        let num: Option<u32> =
            if num.is_empty() || (num.len() > 1 && num.starts_with('0')) { None } else { num.parse().ok() };
        for s in self.scopes.iter().rev() {
            if let (Some(n), Some((base, count))) = (num, s.ranges.get(prefix)) {
                if n < *count {
                    return Some(Slot::Var(base + n));
                }
            }
            if !s.names.is_empty() {
                if let Some(slot) = s.names.get(name) {
                    return Some(*slot);
                }
            }
        }
        None
    }

    // ---- SSA ------------------------------------------------------------------------

    fn new_phi(&mut self, b: usize, var: u32) -> InstH {
        let ty = self.vars.get(var as usize).copied().unwrap_or_else(|| self.cx.int(32));
        let sp = Span { offset: self.sp.offset, id: self.sp.id, loc: None };
        let h = self.f.insts.append(Inst { ty, kind: InstKind::Phi { incoming: Vec::new() }, span: sp });
        self.blocks[b].phis.push(h);
        self.phis.push(h);
        h
    }

    fn read_var(&mut self, var: u32, block: usize) -> Value {
        let mut chain = Vec::new();
        let mut b = block;
        let val = loop {
            if let Some(v) = self.blocks[b].defs.get(&var) {
                break *v;
            }
            if !self.blocks[b].sealed {
                let phi = self.new_phi(b, var);
                self.blocks[b].incomplete.push((var, phi));
                break Value::Inst(phi);
            }
            match self.blocks[b].preds.as_slice() {
                [] => {
                    let ty = self.vars.get(var as usize).copied().unwrap_or_else(|| self.cx.int(32));
                    break self.cx.undef(ty);
                }
                [p] if chain.len() <= self.blocks.len() => {
                    chain.push(b);
                    b = *p;
                }
                [_] => {
                    let ty = self.vars.get(var as usize).copied().unwrap_or_else(|| self.cx.int(32));
                    break self.cx.undef(ty);
                }
                _ => {
                    let phi = self.new_phi(b, var);
                    self.blocks[b].defs.insert(var, Value::Inst(phi));
                    self.work.push((var, phi, b));
                    break Value::Inst(phi);
                }
            }
        };
        self.blocks[b].defs.insert(var, val);
        for c in chain {
            self.blocks[c].defs.insert(var, val);
        }
        val
    }

    fn drain(&mut self) {
        while let Some((var, phi, b)) = self.work.pop() {
            let preds = self.blocks[b].preds.clone();
            for p in preds {
                let v = self.read_var(var, p);
                let pb = self.ir_block(p);
                if let InstKind::Phi { incoming } = &mut self.f.insts[phi].kind {
                    incoming.push((v, pb));
                }
            }
        }
    }

    fn seal(&mut self, b: usize) {
        self.blocks[b].sealed = true;
        let inc = std::mem::take(&mut self.blocks[b].incomplete);
        for (var, phi) in inc {
            self.work.push((var, phi, b));
        }
        self.drain();
    }

    fn read(&mut self, var: u32) -> Value {
        let v = self.read_var(var, self.cur);
        self.drain();
        v
    }

    fn write(&mut self, var: u32, v: Value) {
        self.blocks[self.cur].defs.insert(var, v);
    }

    fn var_ty(&mut self, var: u32) -> TypeH {
        self.vars.get(var as usize).copied().unwrap_or_else(|| self.cx.int(32))
    }

    // ---- statements -----------------------------------------------------------------

    fn stmt(&mut self, s: &Stmt<'a>) -> Result<()> {
        match s {
            Stmt::Open(_) => self.scopes.push(Scope::default()),
            Stmt::Close(_) => {
                if self.scopes.len() > 1 {
                    self.scopes.pop();
                }
            }
            Stmt::Decl(d) => self.declare(d)?,
            Stmt::Loc(l) => self.set_loc(l),
            Stmt::Label(..) | Stmt::BranchTargets(..) => {}
            Stmt::Inst(ins) => self.inst(ins)?,
        }
        Ok(())
    }

    fn file_index(&mut self, file: u32) -> u32 {
        match self.cx.files.get(&file) {
            Some(i) => *i,
            None => self.cx.m.source_file_index(&format!("<file {file}>")),
        }
    }

    fn set_loc(&mut self, l: &LocDirective) {
        if let Some((prev, h)) = self.loc {
            if prev == *l {
                self.sp.loc = Some(h);
                return;
            }
        }
        let inlined_at = l.inlined_at.map(|(f, line, column)| {
            let file = self.file_index(f);
            self.cx.m.add_loc(DebugLoc { file, line, column, inlined_at: None })
        });
        let file = self.file_index(l.file);
        let h = self.cx.m.add_loc(DebugLoc { file, line: l.line, column: l.col, inlined_at });
        self.loc = Some((*l, h));
        self.sp.loc = Some(h);
    }

    /// The value of a source operand; `ty` types immediates.
    fn value(&mut self, op: &Operand<'a>, ty: TypeH) -> Value {
        match op {
            Operand::Reg(name) | Operand::Sym(name) => self.name_value(name, ty),
            Operand::NotReg(name) => {
                let bool_ty = self.cx.int(1);
                let v = self.name_value(name, bool_ty);
                self.emit(bool_ty, InstKind::Unary { op: UnOp::LogicalNot, value: v })
            }
            Operand::Int(v) => {
                let ty = if self.cx.m.int_bits(ty).is_some() {
                    ty
                } else {
                    self.cx.int(if *v as u64 > u64::from(u32::MAX) { 64 } else { 32 })
                };
                self.cx.const_int(ty, *v as u64)
            }
            Operand::Float(bits, w) => {
                let t = self.cx.float(*w);
                self.cx.const_float(t, *bits)
            }
            Operand::Sink => self.cx.undef(ty),
            Operand::Vector(items) | Operand::List(items) => {
                let elems: Vec<Value> = items.iter().map(|o| self.value(o, ty)).collect();
                let tys = elems.iter().map(|v| self.value_ty(*v)).collect();
                let t = self.cx.tuple(tys);
                self.emit(t, InstKind::Composite { elements: elems })
            }
            Operand::Pair(a, b) => {
                let a = self.value(a, ty);
                let b = self.value(b, ty);
                let tys = vec![self.value_ty(a), self.value_ty(b)];
                let t = self.cx.tuple(tys);
                self.emit(t, InstKind::Composite { elements: vec![a, b] })
            }
            Operand::Addr(a) => self.address(a),
        }
    }

    fn value_ty(&mut self, v: Value) -> TypeH {
        match v {
            Value::Inst(h) => self.f.insts.try_get(h).map(|i| i.ty),
            Value::Const(c) => self.cx.m.constants.try_get(c).map(|c| c.ty),
            Value::Global(g) => self.cx.m.globals.try_get(g).map(|g| g.ty),
            Value::Arg(i) => self.f.params.get(i as usize).copied(),
            Value::Function(_) => None,
        }
        .unwrap_or_else(|| self.cx.int(64))
    }

    fn name_value(&mut self, name: &'a str, ty: TypeH) -> Value {
        match self.lookup(name) {
            Some(Slot::Var(v)) => self.read(v),
            Some(Slot::Sym(v)) => v,
            Some(Slot::Param(i)) => Value::Arg(i),
            None => {
                if let Some(v) = self.cx.globals.get(name) {
                    return *v;
                }
                if name.starts_with('%') {
                    // A special register (`%tid.x`, `%clock64`): an opaque read.
                    let bits =
                        if name.contains("64") || name.contains("globaltimer") || name == "%gridid" { 64 } else { 32 };
                    let t = self.cx.int(bits);
                    let op = self.cx.op_name(name);
                    return self.emit(t, InstKind::Other { opcode: op, operands: Vec::new() });
                }
                self.cx.undef(ty)
            }
        }
    }

    /// The address `[base + offset]` as a value (base plus a constant).
    fn address(&mut self, a: &Address<'a>) -> Value {
        let i64_ty = self.cx.int(64);
        let base = self.value(&a.base, i64_ty);
        if a.offset == 0 {
            return base;
        }
        let ty = self.value_ty(base);
        let ty = if self.cx.m.int_bits(ty).is_some() { ty } else { i64_ty };
        let off = self.cx.const_int(ty, a.offset as u64);
        self.emit(ty, InstKind::Binary { op: BinOp::Add, lhs: base, rhs: off })
    }

    /// Flattens source operands into values (addresses with their extra operands).
    fn flatten(&mut self, op: &Operand<'a>, ty: TypeH, out: &mut Vec<Value>) {
        match op {
            Operand::Vector(items) | Operand::List(items) => items.iter().for_each(|o| self.flatten(o, ty, out)),
            Operand::Pair(a, b) => {
                self.flatten(a, ty, out);
                self.flatten(b, ty, out);
            }
            Operand::Sink => {}
            Operand::Addr(a) => {
                let v = self.address(a);
                out.push(v);
                for e in &a.extra {
                    self.flatten(e, ty, out);
                }
            }
            o => {
                let v = self.value(o, ty);
                out.push(v);
            }
        }
    }

    /// The registers an operand defines: one per element (`None` for `_` or a non-register).
    fn dest_vars(&self, op: &Operand<'a>) -> Option<Vec<Option<u32>>> {
        let one = |o: &Operand<'a>| -> Option<Option<u32>> {
            match o {
                Operand::Reg(n) | Operand::Sym(n) => match self.lookup(n) {
                    Some(Slot::Var(v)) => Some(Some(v)),
                    _ => None,
                },
                Operand::Sink => Some(None),
                _ => None,
            }
        };
        match op {
            Operand::Reg(_) | Operand::Sym(_) | Operand::Sink => Some(vec![one(op)?]),
            Operand::Vector(items) => items.iter().map(one).collect(),
            Operand::Pair(a, b) => Some(vec![one(a)?, one(b)?]),
            _ => None,
        }
    }

    fn inst(&mut self, ins: &Instruction<'a>) -> Result<()> {
        self.sp = Span { offset: u64::from(ins.pos.offset), id: ins.pos.line, loc: self.sp.loc };
        let op = Opcode::new(ins.op);
        let info = self.cx.op_info(ins.op);
        let bool_ty = self.cx.int(1);
        let guard = ins.guard.map(|(name, neg)| (self.name_value(name, bool_ty), neg));
        if info.control {
            self.cond = guard;
            if info.base == "brx" {
                if let Some(idx) = ins.operands.first() {
                    let t = self.cx.int(32);
                    self.switch_value = Some(self.value(idx, t));
                }
            }
            return Ok(());
        }
        let dests = if info.no_dest { None } else { ins.operands.first().and_then(|o| self.dest_vars(o)) };
        let srcs = if dests.is_some() { ins.operands.get(1..).unwrap_or(&[]) } else { &ins.operands[..] };
        let imm_ty = info.imm_ty;
        if let (OpKind::Mov, Some(d), [src]) = (info.kind, &dests, srcs) {
            if d.len() > 1 {
                if let Some(parts) = self.unpack(src, d, imm_ty) {
                    for (var, part) in d.clone().into_iter().zip(parts) {
                        let Some(var) = var else { continue };
                        let v = self.guarded(var, part, guard);
                        self.write(var, v);
                    }
                    return Ok(());
                }
            }
        }
        let result = match &dests {
            Some(d) if d.len() == 1 => {
                let dty = match d[0] {
                    Some(v) => self.var_ty(v),
                    None => imm_ty,
                };
                self.compute(&info, srcs, dty)
            }
            _ => None,
        };
        let result = match result {
            Some(v) => Some(v),
            None => {
                // Generic: loads and stores, calls, everything else as an opaque operation.
                match (info.kind, &dests) {
                    (OpKind::St, _) if ins.operands.len() == 2 => {
                        let ptr = self.value(&ins.operands[0], imm_ty);
                        let value = self.value(&ins.operands[1], imm_ty);
                        let void = self.cx.void();
                        self.emit(void, InstKind::Store { ptr, value });
                        None
                    }
                    (OpKind::Call, _) => {
                        self.call(ins, imm_ty);
                        None
                    }
                    _ => {
                        let rty = match &dests {
                            Some(d) if d.len() == 1 => match d[0] {
                                Some(v) => self.var_ty(v),
                                None => imm_ty,
                            },
                            Some(d) => {
                                let tys = d.iter().map(|v| v.map_or(imm_ty, |v| self.var_ty(v))).collect();
                                self.cx.tuple(tys)
                            }
                            None => self.cx.void(),
                        };
                        let mut operands = Vec::with_capacity(srcs.len());
                        for s in srcs {
                            self.flatten(s, imm_ty, &mut operands);
                        }
                        let v = if matches!(info.kind, OpKind::Ld | OpKind::LdParam) && operands.len() == 1 {
                            self.emit(rty, InstKind::Load { ptr: operands[0] })
                        } else {
                            let opcode = self.cx.op_name(ins.op);
                            self.emit(rty, InstKind::Other { opcode, operands })
                        };
                        if let (Value::Inst(h), true) = (v, info.maybe_fact) {
                            if let Some(p) = facts::recognise(&op, ins, h, &self.f.insts[h].kind, self.cx.target) {
                                self.facts.push(p);
                            }
                        }
                        if dests.is_some() {
                            Some(v)
                        } else {
                            None
                        }
                    }
                }
            }
        };
        let (Some(result), Some(dests)) = (result, dests) else { return Ok(()) };
        if dests.len() == 1 {
            if let Some(var) = dests[0] {
                let v = self.guarded(var, result, guard);
                self.write(var, v);
            }
        } else {
            for (k, d) in dests.iter().enumerate() {
                let Some(var) = *d else { continue };
                let ty = self.var_ty(var);
                let part = self.emit(ty, InstKind::ExtractValue { agg: result, indices: vec![k as u32] });
                let v = self.guarded(var, part, guard);
                self.write(var, v);
            }
        }
        Ok(())
    }

    /// A predicated definition keeps the old value where the guard is off.
    fn guarded(&mut self, var: u32, new: Value, guard: Option<(Value, bool)>) -> Value {
        let Some((cond, neg)) = guard else { return new };
        let old = self.read(var);
        let ty = self.var_ty(var);
        let (if_true, if_false) = if neg { (old, new) } else { (new, old) };
        self.emit(ty, InstKind::Select { cond, if_true, if_false })
    }

    fn call(&mut self, ins: &Instruction<'a>, ty: TypeH) {
        // call{.uni} (rets), callee, (args){, prototype};  — rets and args are .param names.
        let mut it = ins.operands.iter().peekable();
        let mut rets = Vec::new();
        if let Some(Operand::List(r)) = it.peek() {
            for o in r {
                self.flatten(o, ty, &mut rets);
            }
            it.next();
        }
        let callee = match it.next() {
            Some(o) => self.value(o, ty),
            None => self.cx.undef(ty),
        };
        let mut args = Vec::new();
        if let Some(Operand::List(a)) = it.next() {
            for o in a {
                self.flatten(o, ty, &mut args);
            }
        }
        args.extend(rets);
        let void = self.cx.void();
        self.emit(void, InstKind::Call { callee, args, dx_op: None });
    }

    /// Modelled arithmetic; `None` falls back to an opaque operation.
    fn compute(&mut self, info: &OpInfo<'a>, srcs: &[Operand<'a>], dty: TypeH) -> Option<Value> {
        let imm_ty = info.imm_ty;
        let signed = info.class == Some(b's');
        let v = match (info.kind, srcs) {
            (OpKind::Bin(o), [a, b]) => {
                let a = self.value(a, imm_ty);
                let b = self.value(b, imm_ty);
                self.emit(dty, InstKind::Binary { op: o, lhs: a, rhs: b })
            }
            (OpKind::MulWide, [a, b]) => {
                let a = self.widen(a, signed, dty);
                let b = self.widen(b, signed, dty);
                self.emit(dty, InstKind::Binary { op: BinOp::Mul, lhs: a, rhs: b })
            }
            (OpKind::MadLo | OpKind::MadWide, [a, b, c]) => {
                let (a, b) = if info.kind == OpKind::MadWide {
                    (self.widen(a, signed, dty), self.widen(b, signed, dty))
                } else {
                    (self.value(a, imm_ty), self.value(b, imm_ty))
                };
                let c = self.value(c, dty);
                let m = self.emit(dty, InstKind::Binary { op: BinOp::Mul, lhs: a, rhs: b });
                self.emit(dty, InstKind::Binary { op: BinOp::Add, lhs: m, rhs: c })
            }
            (OpKind::Not(o) | OpKind::Neg(o), [a]) => {
                let a = self.value(a, imm_ty);
                self.emit(dty, InstKind::Unary { op: o, value: a })
            }
            (OpKind::Mov, [a]) if !matches!(a, Operand::Vector(_)) => self.value(a, dty),
            (OpKind::Mov, [Operand::Vector(items)]) => self.pack(items, dty)?,
            (OpKind::Bfe(signed), [a, Operand::Int(pos), Operand::Int(len)]) => {
                let a = self.value(a, dty);
                self.bfe(a, *pos as u64 & 0xff, *len as u64 & 0xff, signed, dty)?
            }
            (OpKind::Bfi, [a, b, Operand::Int(pos), Operand::Int(len)]) => {
                let a = self.value(a, dty);
                let b = self.value(b, dty);
                self.bfi(a, b, *pos as u64 & 0xff, *len as u64 & 0xff, dty)?
            }
            (OpKind::Cvta, [a]) => {
                let v = self.value(a, dty);
                self.emit(dty, InstKind::Cast { op: CastOp::AddrSpaceCast, value: v })
            }
            (OpKind::Setp(pred), [a, b]) => {
                let a = self.value(a, imm_ty);
                let b = self.value(b, imm_ty);
                self.emit(dty, InstKind::Cmp { pred, lhs: a, rhs: b })
            }
            (OpKind::Selp, [a, b, c]) => {
                let a = self.value(a, imm_ty);
                let b = self.value(b, imm_ty);
                let bool_ty = self.cx.int(1);
                let c = self.value(c, bool_ty);
                self.emit(dty, InstKind::Select { cond: c, if_true: a, if_false: b })
            }
            (OpKind::Cvt(cast, sty), [a]) => {
                let v = self.value(a, sty);
                match cast {
                    Some(c) => self.emit(dty, InstKind::Cast { op: c, value: v }),
                    None => v,
                }
            }
            (OpKind::LdParam, [Operand::Addr(a)]) if a.offset == 0 && a.extra.is_empty() => match &a.base {
                Operand::Sym(n) if matches!(self.lookup(n), Some(Slot::Param(_))) => self.name_value(n, dty),
                _ => return None,
            },
            _ => return None,
        };
        Some(v)
    }

    fn bin(&mut self, ty: TypeH, op: BinOp, lhs: Value, rhs: u64) -> Value {
        let rhs = self.cx.const_int(ty, rhs);
        self.emit(ty, InstKind::Binary { op, lhs, rhs })
    }

    /// `bfe` with constant position and length, as shifts and a mask (the
    /// known-bits transfer functions are exact on them): unsigned
    /// `(a >> pos) & mask(len)`, signed `(a << (w-1-msb)) >>s (w-1-msb+pos)`
    /// with `msb = min(pos+len-1, w-1)`; PTX semantics for `len = 0` and `pos ≥ w`.
    fn bfe(&mut self, a: Value, pos: u64, len: u64, signed: bool, ty: TypeH) -> Option<Value> {
        let w = u64::from(self.cx.m.int_bits(ty)?);
        if len == 0 || (!signed && pos >= w) {
            return Some(self.cx.const_int(ty, 0));
        }
        if !signed {
            let shifted = if pos == 0 { a } else { self.bin(ty, BinOp::LShr, a, pos) };
            let n = len.min(w - pos);
            return Some(if n >= w { shifted } else { self.bin(ty, BinOp::And, shifted, (1u64 << n) - 1) });
        }
        if pos >= w {
            return Some(self.bin(ty, BinOp::AShr, a, w - 1));
        }
        let msb = (pos + len - 1).min(w - 1);
        let up = w - 1 - msb;
        let x = if up == 0 { a } else { self.bin(ty, BinOp::Shl, a, up) };
        Some(if up + pos == 0 { x } else { self.bin(ty, BinOp::AShr, x, up + pos) })
    }

    /// `bfi` with constant position and length:
    /// `(b & !(mask << pos)) | ((a << pos) & (mask << pos))`.
    fn bfi(&mut self, a: Value, b: Value, pos: u64, len: u64, ty: TypeH) -> Option<Value> {
        let w = u64::from(self.cx.m.int_bits(ty)?);
        if len == 0 || pos >= w {
            return Some(b);
        }
        let n = len.min(w - pos);
        let field = if n >= 64 { u64::MAX } else { ((1u64 << n) - 1) << pos };
        let keep = self.bin(ty, BinOp::And, b, !field);
        let moved = if pos == 0 { a } else { self.bin(ty, BinOp::Shl, a, pos) };
        let ins = self.bin(ty, BinOp::And, moved, field);
        Some(self.emit(ty, InstKind::Binary { op: BinOp::Or, lhs: keep, rhs: ins }))
    }

    /// A packed `mov.bN d, {e0, e1, …}`: `zext(e0) | zext(e1) << w | …`, `w = N / count`.
    fn pack(&mut self, items: &[Operand<'a>], ty: TypeH) -> Option<Value> {
        let bits = u64::from(self.cx.m.int_bits(ty)?);
        let n = items.len() as u64;
        if n < 2 || bits % n != 0 {
            return None;
        }
        let w = bits / n;
        let ety = self.cx.int(w as u16);
        // Check every element before emitting anything (no dead instructions
        // when the form is not modelled).
        let mut elems: Vec<std::result::Result<u64, Value>> = Vec::with_capacity(items.len());
        for it in items {
            match it {
                Operand::Int(v) => elems.push(Ok(*v as u64 & ((1u64 << w) - 1))),
                Operand::Reg(_) | Operand::Sym(_) => {
                    let v = self.value(it, ety);
                    let vt = self.value_ty(v);
                    if self.cx.m.int_bits(vt) != Some(w as u16) {
                        return None;
                    }
                    elems.push(Err(v));
                }
                _ => return None,
            }
        }
        let mut acc: Option<Value> = None;
        for (k, e) in elems.into_iter().enumerate() {
            let e = match e {
                Ok(c) => self.cx.const_int(ty, c),
                Err(v) => self.emit(ty, InstKind::Cast { op: CastOp::ZExt, value: v }),
            };
            let k = k as u64 * w;
            let e = if k == 0 { e } else { self.bin(ty, BinOp::Shl, e, k) };
            acc = Some(match acc {
                None => e,
                Some(x) => self.emit(ty, InstKind::Binary { op: BinOp::Or, lhs: x, rhs: e }),
            });
        }
        acc
    }

    /// An unpacking `mov.bN {d0, d1, …}, s`: `trunc(s >> k·w)` per destination.
    fn unpack(&mut self, src: &Operand<'a>, dests: &[Option<u32>], ty: TypeH) -> Option<Vec<Value>> {
        let bits = u64::from(self.cx.m.int_bits(ty)?);
        let n = dests.len() as u64;
        if n < 2 || bits % n != 0 || matches!(src, Operand::Vector(_)) {
            return None;
        }
        let w = bits / n;
        let ety = self.cx.int(w as u16);
        for v in dests.iter().flatten() {
            let vt = self.var_ty(*v);
            if self.cx.m.int_bits(vt) != Some(w as u16) {
                return None;
            }
        }
        let s = self.value(src, ty);
        let st = self.value_ty(s);
        if self.cx.m.int_bits(st) != Some(bits as u16) {
            return None;
        }
        let mut out = Vec::with_capacity(dests.len());
        for k in 0..n {
            let x = if k == 0 { s } else { self.bin(ty, BinOp::LShr, s, k * w) };
            out.push(self.emit(ety, InstKind::Cast { op: CastOp::Trunc, value: x }));
        }
        Some(out)
    }

    /// A 32-bit source operand widened to the result type (`mul.wide`, `mad.wide`).
    fn widen(&mut self, o: &Operand<'a>, signed: bool, dty: TypeH) -> Value {
        if let Operand::Int(v) = o {
            return self.cx.const_int(dty, *v as u64);
        }
        let half = self.cx.m.int_bits(dty).map_or(32, |b| (b / 2).max(8));
        let sty = self.cx.int(half);
        let v = self.value(o, sty);
        self.emit(dty, InstKind::Cast { op: if signed { CastOp::SExt } else { CastOp::ZExt }, value: v })
    }

    // ---- end ------------------------------------------------------------------------

    fn finish(mut self) -> Result<(Function, Vec<facts::Pending>)> {
        // Fold trivial phis (all operands the same value or the phi itself).
        let mut repl: FxHashMap<InstH, Value> = FxHashMap::default();
        for _ in 0..64 {
            let mut changed = false;
            for &h in &self.phis {
                if repl.contains_key(&h) {
                    continue;
                }
                let InstKind::Phi { incoming } = &self.f.insts[h].kind else { continue };
                let mut unique: Option<Value> = None;
                let mut trivial = true;
                for (v, _) in incoming {
                    let v = resolve(&repl, *v);
                    if v == Value::Inst(h) || Some(v) == unique {
                        continue;
                    }
                    if unique.is_some() {
                        trivial = false;
                        break;
                    }
                    unique = Some(v);
                }
                if trivial {
                    let ty = self.f.insts[h].ty;
                    let v = match unique {
                        Some(v) => v,
                        None => self.cx.undef(ty),
                    };
                    repl.insert(h, v);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if !repl.is_empty() {
            for i in 0..self.f.insts.len() {
                let Some(h) = InstH::from_index(i) else { continue };
                map_values(&mut self.f.insts[h].kind, |v| resolve(&repl, v));
            }
            for p in &mut self.facts {
                p.map_values(|v| resolve(&repl, v));
            }
        }
        for (i, b) in self.blocks.iter_mut().enumerate() {
            let Some(ir) = b.ir else { continue };
            let mut insts: Vec<InstH> = b.phis.iter().copied().filter(|h| !repl.contains_key(h)).collect();
            if i == 0 {
                insts.append(&mut self.entry_allocas);
            }
            insts.append(&mut b.body);
            self.f.blocks[ir].insts = insts;
        }
        Ok((self.f, self.facts))
    }
}

/// Block 0 (every body has one); a fallback that is never taken.
fn first_block() -> BlockH {
    BlockH::from_index(0).unwrap_or_else(|| unreachable!("index 0 is a valid handle"))
}

fn resolve(repl: &FxHashMap<InstH, Value>, mut v: Value) -> Value {
    for _ in 0..64 {
        match v {
            Value::Inst(h) => match repl.get(&h) {
                Some(n) if *n != v => v = *n,
                _ => return v,
            },
            _ => return v,
        }
    }
    v
}

/// Applies `f` to every value operand of an instruction.
pub(crate) fn map_values(k: &mut InstKind, mut f: impl FnMut(Value) -> Value) {
    let mut g = |v: &mut Value| *v = f(*v);
    match k {
        InstKind::Binary { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
            g(lhs);
            g(rhs);
        }
        InstKind::Unary { value, .. } | InstKind::Cast { value, .. } => g(value),
        InstKind::Select { cond, if_true, if_false } => {
            g(cond);
            g(if_true);
            g(if_false);
        }
        InstKind::Phi { incoming } => incoming.iter_mut().for_each(|(v, _)| g(v)),
        InstKind::Load { ptr } => g(ptr),
        InstKind::Store { ptr, value } => {
            g(ptr);
            g(value);
        }
        InstKind::Gep { base, indices } => {
            g(base);
            indices.iter_mut().for_each(g);
        }
        InstKind::ExtractValue { agg, .. } => g(agg),
        InstKind::InsertValue { agg, value, .. } => {
            g(agg);
            g(value);
        }
        InstKind::ExtractElement { vector, index } => {
            g(vector);
            g(index);
        }
        InstKind::InsertElement { vector, value, index } => {
            g(vector);
            g(value);
            g(index);
        }
        InstKind::Shuffle { a, b, mask } => {
            g(a);
            g(b);
            g(mask);
        }
        InstKind::Composite { elements } => elements.iter_mut().for_each(g),
        InstKind::Call { callee, args, .. } => {
            g(callee);
            args.iter_mut().for_each(g);
        }
        InstKind::AtomicRmw { ptr, value, .. } => {
            g(ptr);
            g(value);
        }
        InstKind::CmpXchg { ptr, cmp, new } => {
            g(ptr);
            g(cmp);
            g(new);
        }
        InstKind::CondBr { cond, .. } => g(cond),
        InstKind::Switch { value, .. } => g(value),
        InstKind::Ret { value } => {
            if let Some(v) = value {
                g(v);
            }
        }
        InstKind::Other { operands, .. } => operands.iter_mut().for_each(g),
        InstKind::Alloca { .. } | InstKind::Br { .. } | InstKind::Unreachable => {}
    }
}

/// The LLVM comparison predicate of `setp.CMP.TYPE`.
fn cmp_pred(op: &Opcode<'_>, class: Option<u8>) -> Option<CmpPred> {
    let cmp = op.second()?;
    if op.mods().count() != 2 {
        return None; // setp.CMP.BOOLOP.TYPE has a fourth operand
    }
    let p = match class? {
        b'f' => match cmp {
            "eq" => 1,
            "gt" => 2,
            "ge" => 3,
            "lt" => 4,
            "le" => 5,
            "ne" => 6,
            "num" => 7,
            "nan" => 8,
            "equ" => 9,
            "gtu" => 10,
            "geu" => 11,
            "ltu" => 12,
            "leu" => 13,
            "neu" => 14,
            _ => return None,
        },
        c => {
            let signed = c == b's';
            match cmp {
                "eq" => 32,
                "ne" => 33,
                "gt" | "hi" if !signed || cmp == "hi" => 34,
                "ge" | "hs" if !signed || cmp == "hs" => 35,
                "lt" | "lo" if !signed || cmp == "lo" => 36,
                "le" | "ls" if !signed || cmp == "ls" => 37,
                "gt" => 38,
                "ge" => 39,
                "lt" => 40,
                "le" => 41,
                _ => return None,
            }
        }
    };
    Some(CmpPred(p))
}
