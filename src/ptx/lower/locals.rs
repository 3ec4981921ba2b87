//! Registers met by the lowering: each register a body reads or writes
//! gets a `Local` when first met (its declared type, the name it was met
//! as for the phi placement, its latest value), found through `var_local`.

use super::body::{Body, Local, NOT_NOTED};
use super::dom::NEVER_WRITTEN;
use crate::ir::{TypeH, Value};
use crate::ptx::parse::NameId;

impl<'c, 'a> Body<'c, 'a> {
    /// Remembers the id in [`super::dom`] of the name register `var` is
    /// first read or written as (name id `name`), for the phi placement:
    /// one index into `id_dom` per register (a `Local` stays 24 bytes).
    #[inline(always)]
    pub(super) fn note_name(&mut self, var: u32, name: NameId) {
        // Noted when first met: the usual call finds it so.
        if self.met(var).is_some_and(|x| x.name != NOT_NOTED) {
            return;
        }
        self.note_new_name(var, name);
    }

    #[inline(never)]
    fn note_new_name(&mut self, var: u32, name: NameId) {
        if self.dom.is_none() {
            return;
        }
        let name = self.dom_name(name);
        let l = match self.var_local.get(var as usize) {
            Some(&l) if l != 0 => l as usize - 1,
            // Met first here (the usual case): made with its name.
            _ => return self.push_local(var as usize, name),
        };
        if let Some(x) = self.locals.get_mut(l) {
            if x.name == NOT_NOTED {
                x.name = name;
            }
        }
    }

    /// The `Local` of register `var`, when it was met.
    #[inline(always)]
    pub(super) fn met(&self, var: u32) -> Option<&Local> {
        let l = (*self.var_local.get(var as usize)? as usize).wrapping_sub(1);
        self.locals.get(l)
    }

    /// The id in `dom` of the name register `var` was first met as
    /// (`NEVER_WRITTEN` when no instruction writes it); `None` when it was
    /// never met.
    pub(super) fn name_id(&self, var: u32) -> Option<u32> {
        let x = self.met(var)?;
        (x.name != NOT_NOTED).then_some(x.name)
    }

    /// The index in `locals` of register `var`, made when first met.
    #[inline]
    pub(super) fn local(&mut self, var: u32) -> usize {
        let v = var as usize;
        match self.var_local.get(v) {
            Some(&l) if l != 0 => l as usize - 1,
            _ => self.new_local(v),
        }
    }

    fn new_local(&mut self, v: usize) -> usize {
        self.push_local(v, NOT_NOTED);
        self.locals.len() - 1
    }

    /// Makes the `Local` of register `var` of type `ty` when it is met
    /// first, as name `name` (what [`Body::note_name`] would make of it,
    /// the type known).
    #[inline(always)]
    pub(super) fn first_meet(&mut self, var: u32, name: NameId, ty: TypeH) {
        if self.dom.is_none() || self.var_local.get(var as usize).is_some_and(|&l| l != 0) {
            return;
        }
        let name = self.dom_name(name);
        self.push_local_typed(var as usize, name, Some(ty));
    }

    /// The id in [`super::dom`] of name id `name` (`NEVER_WRITTEN` for a
    /// name no instruction writes).
    #[inline(always)]
    fn dom_name(&self, name: NameId) -> u32 {
        let d = self.id_dom.get(name.index()).copied().unwrap_or(0);
        d.checked_sub(1).unwrap_or(NEVER_WRITTEN)
    }

    /// Makes the `Local` of register `v`, first met, with `name` noted.
    #[inline(always)]
    fn push_local(&mut self, v: usize, name: u32) {
        self.push_local_typed(v, name, None);
    }

    /// [`Body::push_local`] with the type when known (else the declared
    /// one is searched).
    #[inline(always)]
    fn push_local_typed(&mut self, v: usize, name: u32, ty: Option<TypeH>) {
        if self.var_local.len() <= v {
            self.grow_var_local(v);
        }
        let l = self.locals.len();
        if self.locals.capacity() == l {
            self.reserve_locals();
        }
        let ty = match ty {
            Some(t) => t,
            None => self.decl_ty(v as u32),
        };
        self.locals.push(Local { name, block: u32::MAX, value: Value::Arg(u32::MAX), ty });
        if let Some(x) = self.var_local.get_mut(v) {
            *x = l as u32 + 1;
        }
    }

    /// Room in `var_local` for register `v`.
    #[cold]
    fn grow_var_local(&mut self, v: usize) {
        if self.var_local.len() <= v {
            let n = (self.nvars as usize).max(v + 1);
            if self.var_local.is_empty() {
                // Zeroed by the allocator (fresh pages stay untouched).
                self.var_local = vec![0; n];
            } else {
                self.var_local.resize(n, 0);
            }
        }
    }

    /// Room in `locals` for the registers still to be met.
    #[cold]
    fn reserve_locals(&mut self) {
        let l = self.locals.len();
        // Room for every register the body declares (inner scopes' too:
        // `{ .reg .pred p; … }` per inline-asm statement), at most one per
        // instruction slot, once (unwritten room takes no memory). Half as
        // many again at least when that is short.
        let all = self.declared.max(self.nvars as usize);
        let more = all.min(self.body_insts.capacity()).max(l + 16) - l;
        self.locals.reserve(more.max(l / 2));
    }

    /// The declared type of register `var` (an `i32` for one never declared,
    /// which the lookup cannot give).
    fn decl_ty(&mut self, var: u32) -> TypeH {
        // Registers are met about in order: the declaration found last first.
        let covers = |k: usize| {
            self.decls.get(k).is_some_and(|&(base, _)| base <= var)
                && self.decls.get(k + 1).is_none_or(|&(next, _)| var < next)
        };
        let k = if covers(self.last_decl) {
            self.last_decl + 1
        } else {
            self.decls.partition_point(|&(base, _)| base <= var)
        };
        self.last_decl = k.saturating_sub(1);
        match k.checked_sub(1).and_then(|k| self.decls.get(k)) {
            Some(&(_, ty)) if var < self.nvars => ty,
            _ => self.cx.int(32),
        }
    }

    /// The declared type of register `var` (kept in its `Local`, made here
    /// when first asked: the register is about to be read or written).
    pub(super) fn var_ty(&mut self, var: u32) -> TypeH {
        if let Some(x) = self.met(var) {
            return x.ty;
        }
        let l = self.local(var);
        self.locals[l].ty
    }
}
