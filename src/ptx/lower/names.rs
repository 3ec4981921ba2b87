//! Names: declarations, scoped lookup, register ranges, destination registers.

use super::body::{Body, IdRange, Slot};
use super::span;
use crate::ir::{Inst, InstKind, Value};
use crate::ptx::lex::error_at;
use crate::ptx::parse::{NameId, Operand, Space, VarDecl};
use crate::read::limits::MAX_PTX_REGISTERS;
use crate::read::{ErrorKind, Result};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The scopes whose answers [`Body::lookup`] remembers: the parameters'
/// and the function body's.
pub(super) const BASE_SCOPES: usize = 2;

/// The names one `{ }` scope declares. The first few are kept in a short
/// list, found by a scan: an inline-asm scope (`{ .reg .pred p; … }`)
/// declares one or two, and every register its instruction names is looked
/// up through it first (a scan rejects `%r382` against `p` on its length,
/// where a table hashes it).
#[derive(Default)]
pub(super) struct Scope<'a> {
    few: Vec<(&'a str, Slot)>,
    names: FxHashMap<&'a str, Slot>,
    pub(super) ranges: FxHashMap<&'a str, (u32, u32)>,
}

/// The bit of a name's length in [`Scope::len_mask`].
#[inline(always)]
pub(super) fn len_bit(name: &str) -> u64 {
    1 << name.len().min(63)
}

/// Names a scope keeps in its list before they move to its table.
const FEW_NAMES: usize = 8;

impl<'a> Scope<'a> {
    /// Declares `name` here (a later declaration of the same name replaces it).
    pub(super) fn insert_name(&mut self, name: &'a str, slot: Slot) {
        if self.names.is_empty() {
            if let Some(e) = self.few.iter_mut().find(|e| e.0 == name) {
                e.1 = slot;
                return;
            }
            if self.few.len() < FEW_NAMES {
                self.few.push((name, slot));
                return;
            }
            self.names.extend(self.few.drain(..));
        }
        self.names.insert(name, slot);
    }

    /// What this scope declares `name` as (not its ranges).
    #[inline]
    pub(super) fn name(&self, name: &str) -> Option<Slot> {
        if !self.few.is_empty() {
            return self.few.iter().find(|e| e.0 == name).map(|e| e.1);
        }
        if self.names.is_empty() {
            return None;
        }
        self.names.get(name).copied()
    }

    /// Bit `min(len, 63)` of every name this scope declares; every bit when
    /// it declares ranges or more names than its list holds.
    pub(super) fn len_mask(&self) -> u64 {
        if !self.ranges.is_empty() || !self.names.is_empty() {
            return u64::MAX;
        }
        self.few.iter().fold(0, |m, e| m | len_bit(e.0))
    }

    /// Empties the scope for its next use, keeping small allocations (a
    /// large table is dropped: clearing it again and again would cost its
    /// size each time).
    pub(super) fn clear(&mut self) {
        self.few.clear();
        if self.names.capacity() > 64 {
            self.names = FxHashMap::default();
        } else if !self.names.is_empty() {
            self.names.clear();
        }
        if self.ranges.capacity() > 64 {
            self.ranges = FxHashMap::default();
        } else if !self.ranges.is_empty() {
            self.ranges.clear();
        }
    }
}

impl<'c, 'a> Body<'c, 'a> {
    pub(super) fn declare(&mut self, d: &VarDecl<'a>) -> Result<()> {
        let ty = self.cx.decl_type(d);
        let scope = self.scopes.len() - 1;
        if scope < BASE_SCOPES {
            self.base_changed();
        }
        let r = self.declare_in(d, ty, scope);
        if scope >= BASE_SCOPES {
            self.inner_mask |= self.scopes[scope].len_mask();
        }
        r
    }

    fn declare_in(&mut self, d: &VarDecl<'a>, ty: crate::ir::TypeH, scope: usize) -> Result<()> {
        if d.space == Space::Reg {
            let count = d.range.unwrap_or(1);
            let base = self.nvars as usize;
            if base.saturating_add(count as usize) > MAX_PTX_REGISTERS {
                return Err(error_at(d.pos, ErrorKind::LimitExceeded, "too many registers in one function"));
            }
            let base = base as u32;
            if count > 0 {
                match self.decls.last() {
                    // The same type as the declaration before: one entry.
                    Some(&(_, t)) if t == ty => {}
                    _ => self.decls.push((base, ty)),
                }
            }
            self.nvars = base + count;
            if d.range.is_some() {
                self.scopes[scope].ranges.insert(d.name, (base, count));
                if scope == BASE_SCOPES - 1 {
                    self.note_id_range(d, base, count, ty);
                }
            } else {
                self.scopes[scope].insert_name(d.name, Slot::Var(base));
            }
        } else if d.space == Space::Shared {
            // A `.shared` variable has static storage, one per CTA, as at module
            // scope (nvcc declares its demoted `__shared__` arrays here): a global
            // visible in this scope, with its alignment.
            let v = self.cx.add_global(d);
            self.scopes[scope].insert_name(d.name, Slot::Sym(v));
        } else {
            // A local or param variable: an address, allocated at entry.
            let k = InstKind::Alloca { ty };
            let pty = self.cx.ptr(ty, d.space.address_space());
            let h = self.f.insts.append(Inst { ty: pty, kind: k, span: span(d.pos) });
            self.entry_allocas.push(h);
            self.scopes[scope].insert_name(d.name, Slot::Sym(Value::Inst(h)));
        }
        Ok(())
    }

    /// Keeps a register range of the body scope whose elements have
    /// reserved ids; a range declared again without them drops the one it
    /// replaces (its elements' ids are the old ones, and the name now means
    /// the new range: the lookup by name answers for them).
    fn note_id_range(&mut self, d: &VarDecl<'a>, base: u32, count: u32, ty: crate::ir::TypeH) {
        self.id_ranges.retain(|r| r.prefix != d.name);
        if let Some(f) = d.first_id {
            // Elements `reserved_from` to `reserved_from + reserved - 1` have
            // ids from `first_id` on (the others get theirs as they are read).
            let from = d.reserved_from.min(count);
            let count = d.reserved.min(count - from);
            let first_id = f.index() as u32;
            self.id_ranges.push(IdRange { first_id, count, base: base + from, ty, prefix: d.name });
        }
    }

    /// The register and type of name id `id` when it is an element of a
    /// range in [`Body::id_ranges`].
    /// (The range found last is tried first: registers of one type come
    /// together.)
    #[inline(always)]
    fn id_range_var(&mut self, id: NameId) -> Option<(u32, crate::ir::TypeH)> {
        let i = id.index() as u32;
        let hit = |r: &IdRange<'_>| i.wrapping_sub(r.first_id) < r.count;
        let k = match self.id_ranges.get(self.last_id_range) {
            Some(r) if hit(r) => self.last_id_range,
            _ => {
                let k = self.id_ranges.iter().position(hit)?;
                self.last_id_range = k;
                k
            }
        };
        let r = self.id_ranges.get(k)?;
        Some((r.base + (i - r.first_id), r.ty))
    }

    /// The slot the name with id `id` stands for, innermost scope first.
    /// What the base scopes (the parameters' and the function body's, where
    /// nearly every register is declared) make of a name is remembered per
    /// id until they change ([`Body::id_vars`]): the usual register is then
    /// found by an index, its name neither hashed nor parsed.
    #[inline]
    pub(super) fn lookup(&mut self, id: NameId) -> Option<Slot> {
        // No inner scope declares a name of its length (none is open, or
        // `{ .reg .pred p; … }` around `%r12`): the base scopes answer.
        let base_answers = self.inner_mask == 0 || self.inner_mask & len_bit(self.name(id)) == 0;
        if base_answers {
            if let Some(&e) = self.id_vars.get(id.index()) {
                let tag = self.outer_gen.wrapping_add(1);
                if e >> 32 == u64::from(tag) && tag != 0 {
                    return Some(Slot::Var(e as u32));
                }
            }
            // First met: an element of a body range with reserved ids.
            if !self.id_ranges.is_empty() {
                if let Some(v) = self.lookup_by_id(id) {
                    return Some(Slot::Var(v));
                }
            }
        }
        self.lookup_slow(id, !base_answers)
    }

    /// The register of name id `id` when it is an element of a range in
    /// [`Body::id_ranges`] (no inner scope declares a name of its length):
    /// remembered in `id_vars`, and its `Local` made when first met (no
    /// name split, no range memo, no type search).
    #[inline(never)]
    fn lookup_by_id(&mut self, id: NameId) -> Option<u32> {
        let (v, ty) = self.id_range_var(id)?;
        self.remember_var(id, v);
        self.first_meet(v, id, ty);
        Some(v)
    }

    /// Remembers in `id_vars` that the base scopes give name id `id` register
    /// `v`, until they next change (tagged with the generation [`Body::lookup`]
    /// checks).
    #[inline(always)]
    fn remember_var(&mut self, id: NameId, v: u32) {
        if let Some(e) = self.id_vars.get_mut(id.index()) {
            *e = u64::from(self.outer_gen.wrapping_add(1)) << 32 | u64::from(v);
        }
    }

    /// [`Body::lookup`] in full; remembers a register the base scopes give.
    /// `by_id`: the reserved ids are still to be tried (an inner scope
    /// declares a name of this one's length, so `lookup` did not).
    #[inline(never)]
    fn lookup_slow(&mut self, id: NameId, by_id: bool) -> Option<Slot> {
        let name = self.name(id);
        let inner = self.scopes.get(BASE_SCOPES..).unwrap_or(&[]);
        for s in inner.iter().rev() {
            if let Some(slot) = scope_lookup(s, name) {
                return Some(slot);
            }
        }
        // An element of a body range with reserved ids that no inner scope
        // declares (of a length one declares).
        if by_id {
            if let Some(v) = self.lookup_by_id(id) {
                return Some(Slot::Var(v));
            }
        }
        let slot = self.base_lookup(id, name);
        if let Some(Slot::Var(v)) = slot {
            self.remember_var(id, v);
        }
        slot
    }

    /// What the base scopes say of `name`. A register of a range the body
    /// scope declares is found through a small direct-mapped memo of ranges
    /// by prefix; other names through a table, by id, of what they were found
    /// as since the base scopes last changed.
    fn base_lookup(&mut self, id: NameId, name: &'a str) -> Option<Slot> {
        let outer = self.scopes.get(..BASE_SCOPES).unwrap_or(&self.scopes);
        // `%r123` of a range the body scope declares: the range is found by
        // its prefix in a small direct-mapped memo, without hashing the name.
        if let (Some((prefix, n)), Some(top)) = (split_register(name), outer.last()) {
            if let Some(key) = prefix_key(prefix) {
                let gen = self.outer_gen;
                let k = recent_index(key, self.recent_ranges.len());
                let e = self.recent_ranges[k];
                let range = if e.0 == key && e.1 == gen {
                    Some((e.2, e.3))
                } else {
                    let r = top.ranges.get(prefix).copied();
                    if let Some((base, count)) = r {
                        self.recent_ranges[k] = (key, gen, base, count);
                    }
                    r
                };
                if let Some((base, count)) = range {
                    if n < count {
                        return Some(Slot::Var(base + n));
                    }
                }
            }
        }
        if let Some(&(gen, slot)) = self.outer_names.get(&id.index()) {
            if gen == self.outer_gen {
                return slot;
            }
        }
        let slot = outer.iter().rev().find_map(|s| scope_lookup(s, name));
        self.outer_names.insert(id.index(), (self.outer_gen, slot));
        slot
    }

    /// Forgets what the base scopes said of every name (stale entries are
    /// recomputed when next read: clearing the table could cost O(names) per
    /// declaration).
    pub(super) fn base_changed(&mut self) {
        self.outer_gen = self.outer_gen.wrapping_add(1);
    }

    /// The registers an operand defines: one per element (`None` for `_` or a non-register).
    /// (Inline up to four: no allocation for the usual one destination.)
    pub(super) fn dest_vars(&mut self, op: &Operand) -> Option<SmallVec<[Option<u32>; 4]>> {
        let mut out = SmallVec::new();
        match op {
            Operand::Reg(_) | Operand::Sym(_) | Operand::Sink => out.push(self.dest_var(op)?),
            Operand::Vector(r) | Operand::Pair(r) => {
                out.reserve_exact(r.len());
                for k in r.range() {
                    let o = self.items.get(k).copied().unwrap_or(Operand::Int(0));
                    out.push(self.dest_var(&o)?);
                }
            }
            _ => return None,
        }
        Some(out)
    }

    /// The register one destination element defines (`Some(None)` for `_`).
    fn dest_var(&mut self, o: &Operand) -> Option<Option<u32>> {
        match o {
            Operand::Reg(n) | Operand::Sym(n) => match self.lookup(*n) {
                Some(Slot::Var(v)) => {
                    self.note_name(v, *n);
                    Some(Some(v))
                }
                _ => None,
            },
            Operand::Sink => Some(None),
            _ => None,
        }
    }
}

/// What one scope says of a name: an element of a register range (`%r123`
/// of `.reg .b32 %r<200>`), else a name declared there.
fn scope_lookup(s: &Scope<'_>, name: &str) -> Option<Slot> {
    if !s.ranges.is_empty() {
        if let Some((prefix, n)) = split_register(name) {
            if let Some((base, count)) = s.ranges.get(prefix) {
                if n < *count {
                    return Some(Slot::Var(base + n));
                }
            }
        }
    }
    s.name(name)
}

/// The entry of `Body::recent_ranges` (of `len`) for a range prefix key.
#[inline(always)]
fn recent_index(key: u64, len: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61) as usize % len
}

/// `%r123` → ("%r", 123): the trailing decimal digits (no leading zero, a
/// u32) and what precedes them.
#[inline]
pub(super) fn split_register(name: &str) -> Option<(&str, u32)> {
    let b = name.as_bytes();
    let mut i = b.len();
    let mut n = 0u64;
    let mut scale = 1u64;
    while i > 0 {
        let d = b[i - 1].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        if b.len() - i == 10 {
            return None;
        }
        n += u64::from(d) * scale;
        scale *= 10;
        i -= 1;
    }
    // No digit, or a leading zero before others.
    if i == b.len() || (b.len() - i > 1 && b[i] == b'0') {
        return None;
    }
    Some((name.get(..i)?, u32::try_from(n).ok()?))
}

/// A range prefix of up to 7 bytes as one word (its length in the top byte);
/// `None` for a longer one.
#[inline]
fn prefix_key(prefix: &str) -> Option<u64> {
    let b = prefix.as_bytes();
    if b.len() > 7 {
        return None;
    }
    let mut k = (b.len() as u64) << 56;
    for (i, &c) in b.iter().enumerate() {
        k |= u64::from(c) << (8 * i);
    }
    Some(k)
}

/// Calls `f` with the id of every name in a destination operand.
/// (`items`: the item slots of its instruction.) Inline, with a list's
/// items in a loop: called once per instruction, the usual operand is a
/// register or a list of them.
#[inline(always)]
pub(super) fn written_names(o: &Operand, items: &[Operand], f: &mut impl FnMut(NameId)) {
    match o {
        Operand::Reg(n) | Operand::NotReg(n) | Operand::Sym(n) => f(*n),
        Operand::Vector(r) | Operand::List(r) | Operand::Pair(r) => {
            for o in r.of(items) {
                match o {
                    Operand::Reg(n) | Operand::NotReg(n) | Operand::Sym(n) => f(*n),
                    Operand::Vector(_) | Operand::List(_) | Operand::Pair(_) => nested_written_names(o, items, f),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// [`written_names`] of a list inside a list.
#[inline(never)]
fn nested_written_names(o: &Operand, items: &[Operand], f: &mut impl FnMut(NameId)) {
    match o {
        Operand::Reg(n) | Operand::NotReg(n) | Operand::Sym(n) => f(*n),
        Operand::Vector(r) | Operand::List(r) | Operand::Pair(r) => {
            r.of(items).iter().for_each(|o| nested_written_names(o, items, f))
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var_of(s: &Scope<'_>, name: &str) -> Option<u32> {
        match s.name(name) {
            Some(Slot::Var(v)) => Some(v),
            _ => None,
        }
    }

    /// A scope answers as one table would: a later declaration replaces an
    /// earlier one, past the short list as in it, and a cleared scope knows
    /// no name.
    #[test]
    fn scope_names_as_a_table() {
        let names: Vec<String> = (0..40).map(|i| format!("%t{i}")).collect();
        for n in [1usize, 8, 9, 40] {
            let mut s = Scope::default();
            for (i, name) in names.iter().take(n).enumerate() {
                s.insert_name(name, Slot::Var(i as u32));
            }
            // Redeclared: the latest slot wins.
            s.insert_name(&names[0], Slot::Var(100));
            assert_eq!(var_of(&s, &names[0]), Some(100), "{n}");
            for (i, name) in names.iter().enumerate().take(n).skip(1) {
                assert_eq!(var_of(&s, name), Some(i as u32), "{n} {name}");
            }
            assert_eq!(var_of(&s, &names[n.min(39)]), if n == 40 { Some(39) } else { None });
            assert_eq!(var_of(&s, "%t"), None);
            s.clear();
            assert!(names.iter().all(|name| s.name(name).is_none()), "{n}");
            s.insert_name("p", Slot::Var(7));
            assert_eq!(var_of(&s, "p"), Some(7));
        }
    }

    /// A kernel whose inline-asm scope declares `INNER` (and `p`), writes
    /// it and reads it beside registers of the body's ranges, of its length
    /// and of others; the body then reads `%r1`, which the scope does not
    /// change unless it writes the body's own `%r1`.
    fn scoped_kernel(decl: &str, inner: &str) -> String {
        format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 a)\n{{\n\
             .reg .b32 %r<20>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [a];\nmov.u32 %r1, %tid.x;\n\
             mov.u32 %r2, %ctaid.x;\nmov.u32 %r12, 5;\n{{\n{decl}.reg .pred p;\nmov.b32 {inner}, 3;\n\
             add.s32 %r13, %r12, {inner};\nadd.s32 %r15, %r2, {inner};\nsetp.eq.u32 p, %r13, 8;\n\
             @p add.s32 %r16, %r15, 1;\n}}\nadd.s32 %r14, %r1, %r13;\nadd.s32 %r14, %r14, %r16;\n\
             st.global.u32 [%rd1], %r14;\nret;\n}}\n"
        )
    }

    fn lowered(text: &str) -> String {
        let m = crate::ptx::lower(text.as_bytes(), 0).unwrap_or_else(|e| panic!("{e}\n{text}"));
        crate::ir::print::module(&m)
    }

    /// A name an inner scope declares hides the body's register of that
    /// name, whatever the lengths of the other names read there (the
    /// lookup's shortcut for body ranges must not answer for it).
    #[test]
    fn inner_scope_names_hide_body_registers() {
        let shadow = lowered(&scoped_kernel(".reg .b32 %r1;\n", "%r1"));
        let renamed = lowered(&scoped_kernel(".reg .b32 %q1;\n", "%q1"));
        let longer = lowered(&scoped_kernel(".reg .b32 %inner1;\n", "%inner1"));
        let unscoped = lowered(&scoped_kernel("", "%r1"));
        assert_eq!(shadow, renamed);
        assert_eq!(shadow, longer);
        // Without the declaration the scope writes the body's %r1: the
        // final add reads 3, not %tid.x.
        assert_ne!(shadow, unscoped);
        assert!(shadow.contains("tid.x"), "{shadow}");
    }

    /// A kernel whose body declares `FIRST` registers, writes two of them,
    /// declares the range `SECOND`, and adds what it then calls `%x1` and
    /// `%x2` (the reader gives the first range's elements reserved ids; a
    /// second range of the same prefix gets none).
    fn redeclaring_kernel(second: &str, read: &str) -> String {
        format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 a)\n{{\n\
             .reg .b32 %x<4>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [a];\nmov.u32 %x1, %tid.x;\n\
             mov.u32 %x2, 7;\n.reg .b32 {second}<8>;\nmov.u32 {read}2, 9;\nadd.s32 {read}3, {read}1, {read}2;\n\
             st.global.u32 [%rd1], {read}3;\nret;\n}}\n"
        )
    }

    /// Registers found by their reserved ids answer as the lookup by name:
    /// a range declared again names new registers from there on (the
    /// add reads an unwritten `%x1`, not `%tid.x`), as a range of another
    /// prefix does; the first range's registers still answer before.
    #[test]
    fn redeclared_range_names_new_registers() {
        let again = lowered(&redeclaring_kernel("%x", "%x"));
        let other = lowered(&redeclaring_kernel("%y", "%y"));
        let same = lowered(&redeclaring_kernel("%y", "%x"));
        assert_eq!(again, other);
        assert!(again.contains("add i32 i32 undef, i32 9"), "{again}");
        // Reading the first range's registers: the add reads %tid.x.
        assert_ne!(again, same);
        assert!(same.contains("add i32 %0, i32 9"), "{same}");
    }
}
