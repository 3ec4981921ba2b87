//! Facts recognised once per instruction word and operand shape.
//!
//! What [`facts::recognise`] makes of an instruction depends on its word, the
//! kinds of its operands (a list's length and its items' kinds, an
//! integer's value) and how many values its sources flatten to; the values
//! themselves only fill the fact's value operands. So a fact is recognised
//! once per such shape over stand-in values (argument `k` for the `k`-th
//! flattened source) and copied for every instruction of that shape with
//! its own values: an unrolled loop of 64 `wgmma`s parses its word once.
//! The sliced lowering ([`super::slice`]) reads the same memo for the
//! indices of the values a fact reads.

use crate::ir::{InstH, InstKind, Operand as IrOperand, Operands, PtxTarget, Value};
use crate::ptx::facts::{self, Class, Pending};
use crate::ptx::parse::{Addr, InstRef, Operand};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The memo key: the word's index, the flattened value count, how many
/// leading operands are destinations, then each operand's shape ([`shape`]).
type Key = SmallVec<[u64; 16]>;

#[derive(Default)]
pub(super) struct FactShapes {
    /// Shape → its template's index in `templates`.
    seen: FxHashMap<Key, u32>,
    templates: Vec<Option<Pending>>,
    /// For the body being lowered: (statement, sources) → (value count,
    /// template) as the slice found them, so that pass 2 finds the template
    /// of an instruction without making its key again.
    by_stmt: FxHashMap<(u32, u32), (u32, u32)>,
}

fn kind(o: &Operand) -> u64 {
    match o {
        Operand::Reg(_) => 0,
        Operand::NotReg(_) => 1,
        Operand::Sym(_) => 2,
        Operand::Sink => 3,
        Operand::Int(_) => 4,
        Operand::Float(..) => 5,
        Operand::Vector(_) => 6,
        Operand::List(_) => 7,
        Operand::Pair(_) => 8,
        Operand::Addr(Addr::Reg(..)) => 9,
        Operand::Addr(Addr::Sym(..)) => 10,
        Operand::Addr(Addr::Full(_)) => 11,
    }
}

/// Appends the shape of `o` to `key`: its kind, an integer's or float's
/// bits, a list's length and its items' shapes (a list of registers, the
/// usual one, as its length alone).
fn shape(o: &Operand, items: &[Operand], key: &mut Key) {
    key.push(kind(o));
    match o {
        Operand::Vector(r) | Operand::List(r) | Operand::Pair(r) | Operand::Addr(Addr::Full(r)) => {
            let list = r.of(items);
            if list.iter().all(|x| matches!(x, Operand::Reg(_))) {
                key.push(u64::MAX - list.len() as u64);
            } else {
                key.push(list.len() as u64);
                for x in list {
                    shape(x, items, key);
                }
            }
        }
        Operand::Int(v) => key.push(*v as u64),
        Operand::Float(bits, w) => key.extend([*bits, u64::from(*w)]),
        _ => {}
    }
}

/// A fact instruction as the memo sees it: the module's target, the
/// fact class and index of its word, the instruction, and how many of its
/// operands are sources (the others, before them, destinations).
pub(super) struct Site<'s, 'i, 'a> {
    /// The instruction's statement in its body.
    pub(super) stmt: u32,
    pub(super) target: Option<PtxTarget>,
    pub(super) class: Class,
    pub(super) word: u32,
    pub(super) ins: &'s InstRef<'i, 'a>,
    pub(super) nsrcs: usize,
}

impl FactShapes {
    /// A new body: the templates found per statement are forgotten.
    pub(super) fn begin_body(&mut self) {
        self.by_stmt.clear();
    }

    /// The index in `templates` of the fact of `site` whose sources flatten
    /// to `count` values, over stand-in values.
    fn template(&mut self, site: &Site<'_, '_, '_>, count: usize) -> u32 {
        let by = (site.stmt, site.nsrcs as u32);
        if let Some(&(c, t)) = self.by_stmt.get(&by) {
            if c as usize == count {
                return t;
            }
        }
        let ins = site.ins;
        let mut key: Key = SmallVec::new();
        key.extend([u64::from(site.word), count as u64, ins.operands.len().saturating_sub(site.nsrcs) as u64]);
        for o in ins.operands {
            shape(o, ins.items, &mut key);
        }
        let next = self.templates.len() as u32;
        let t = *self.seen.entry(key).or_insert(next);
        if t == next {
            let operands: Operands = (0..count as u32).map(Value::Arg).collect();
            let kind = InstKind::Other { opcode: 0, operands };
            let p = InstH::from_index(0).and_then(|h| facts::recognise(site.class, ins, h, &kind, site.target));
            self.templates.push(p);
        }
        self.by_stmt.insert(by, (count as u32, t));
        t
    }

    /// The fact `facts::recognise` makes of `site` lowered to `inst`, an
    /// `InstKind::Other` whose operands are `values` (its sources flattened).
    pub(super) fn fact(&mut self, site: &Site<'_, '_, '_>, values: &[Value], inst: InstH) -> Option<Pending> {
        let t = self.template(site, values.len());
        let mut p = self.templates.get(t as usize)?.clone()?;
        p.map_values(|v| match v {
            Value::Arg(k) => values.get(k as usize).copied().unwrap_or(v),
            v => v,
        });
        p.map_inst(|_| inst);
        Some(p)
    }

    /// The indices, among the `count` values the sources of `site` flatten
    /// to, of those its fact reads.
    pub(super) fn picked(&mut self, site: &Site<'_, '_, '_>, count: usize) -> SmallVec<[usize; 3]> {
        let t = self.template(site, count);
        let Some(Some(p)) = self.templates.get(t as usize) else { return SmallVec::new() };
        p.value_operands()
            .into_iter()
            .filter_map(|o| match o {
                IrOperand::Value(Value::Arg(k)) => Some(k as usize),
                _ => None,
            })
            .collect()
    }
}
