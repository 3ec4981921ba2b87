//! TYPE_BLOCK_NEW (formats.md §B.4) and type helpers.

use super::{chars, field, Decoder};
use crate::ir::{Handle, Type, TypeH, Value};
use crate::read::bitstream::{Cursor, Item};
use crate::read::{limits, ReadError, Result};

fn type_ref(id: u64, limit: usize, off: u64, max_ref: &mut Option<usize>) -> Result<TypeH> {
    let id = id as usize;
    if id >= limit {
        return Err(ReadError::malformed(off, format!("type id {id} is out of range")));
    }
    *max_ref = Some(max_ref.map_or(id, |m| m.max(id)));
    Handle::from_index(id).ok_or_else(|| ReadError::malformed(off, "type id is out of range"))
}

/// The `i`-th type a type contains by value (struct members, the element of an
/// array or vector, a function's return and parameter types; never a pointee).
fn by_value_child(t: &Type, i: usize) -> Option<TypeH> {
    match t {
        Type::Struct { members, .. } => members.get(i).copied(),
        Type::Array { elem, .. } | Type::Vector { elem, .. } => (i == 0).then_some(*elem),
        Type::Function { ret, params } => {
            if i == 0 {
                Some(*ret)
            } else {
                params.get(i - 1).copied()
            }
        }
        _ => None,
    }
}

impl Decoder {
    pub(super) fn type_block(&mut self, rd: &mut Cursor<'_>) -> Result<()> {
        if !self.m.types.is_empty() {
            return Err(self.bad("second TYPE_BLOCK"));
        }
        let mut declared: Option<usize> = None;
        let mut max_ref: Option<usize> = None;
        let mut fwd_by_value = false;
        let mut depths: Vec<u32> = Vec::new();
        let mut pending_name: Option<String> = None;
        while let Some(item) = rd.next_item()? {
            self.off = rd.record_offset();
            let code = match item {
                Item::End => {
                    let n = self.m.types.len();
                    if let Some(r) = max_ref.filter(|r| *r >= n) {
                        return Err(self.bad(format!("type id {r} is referenced but never defined")));
                    }
                    self.n_table_types = n;
                    if fwd_by_value {
                        self.check_type_cycles()?;
                    }
                    self.index_types();
                    return Ok(());
                }
                Item::Enter(_) => {
                    rd.skip_block()?;
                    continue;
                }
                Item::Record(code) => code,
            };
            let ops = rd.ops();
            let mut vararg = false;
            let limit = declared.unwrap_or(limits::MAX_TYPES);
            let off = self.off;
            let here = self.m.types.len() as u64;
            // A by-value reference to this or a later type could close a cycle.
            let mut tref = |id: u64| {
                fwd_by_value |= id >= here;
                type_ref(id, limit, off, &mut max_ref)
            };
            let ty = match code {
                // NUMENTRY
                1 => {
                    let n = field(ops, 0) as usize;
                    if n > limits::MAX_TYPES {
                        return Err(ReadError::limit(self.off, format!("{n} types exceed {}", limits::MAX_TYPES)));
                    }
                    declared = Some(n);
                    // Each type record takes at least 2 bits, which bounds the reservation.
                    let cap = n.min((rd.block_remaining_bits() / 2) as usize);
                    if self.m.types.is_empty() {
                        self.m.types = crate::ir::Arena::with_capacity(cap);
                    }
                    continue;
                }
                2 => Type::Void,
                3 => Type::Float { bits: 32 },
                4 => Type::Float { bits: 64 },
                5 => Type::Label,
                6 => Type::Opaque { name: pending_name.take().unwrap_or_default() },
                7 => {
                    let w = field(ops, 0);
                    if w == 0 || w > u64::from(u16::MAX) {
                        return Err(self.bad(format!("integer width {w} is out of range")));
                    }
                    Type::Int { bits: w as u16 }
                }
                8 => {
                    let pointee = type_ref(field(ops, 0), limit, off, &mut max_ref)?;
                    Type::Pointer { pointee, space: field(ops, 1) as u32 }
                }
                10 => Type::Float { bits: 16 },
                11 => {
                    let elem = tref(field(ops, 1))?;
                    Type::Array { elem, count: Some(field(ops, 0)), stride: None }
                }
                12 => {
                    let n = field(ops, 0);
                    let elem = tref(field(ops, 1))?;
                    if n == 0 || n > u64::from(u32::MAX) {
                        return Err(self.bad(format!("vector length {n} is out of range")));
                    }
                    Type::Vector { elem, count: n as u32 }
                }
                13 => Type::Float { bits: 80 },
                14 => Type::Float { bits: 128 },
                15 => Type::Float { bits: 128 },
                16 => Type::Metadata,
                17 => Type::Opaque { name: "x86_mmx".to_string() },
                18 | 20 => {
                    let mut members = Vec::with_capacity(ops.len().saturating_sub(1));
                    for &t in ops.iter().skip(1) {
                        members.push(tref(t)?);
                    }
                    let name = if code == 20 { pending_name.take() } else { None };
                    Type::Struct { name, members }
                }
                19 => {
                    pending_name = Some(chars(ops));
                    continue;
                }
                21 | 9 => {
                    // FUNCTION [vararg, ret, params...]; FUNCTION_OLD [vararg, attrid, ret, params...]
                    let first = if code == 21 { 1 } else { 2 };
                    if ops.len() < first + 1 {
                        return Err(self.bad("function type record is too short"));
                    }
                    let ret = tref(ops[first])?;
                    let mut params = Vec::with_capacity(ops.len() - first - 1);
                    for &t in &ops[first + 1..] {
                        params.push(tref(t)?);
                    }
                    if field(ops, 0) != 0 {
                        vararg = true;
                    }
                    Type::Function { ret, params }
                }
                _ => {
                    // Unknown type records still define a type id.
                    let name = format!("type record {code}");
                    self.remark(|| format!("unknown {name} kept as opaque"));
                    Type::Opaque { name }
                }
            };
            if self.m.types.len() >= limit {
                return Err(self.bad("more types than NUMENTRY declared"));
            }
            // Without forward references every child is already in the table, so
            // the nesting depth is known at once (else `check_type_cycles` finds it).
            if !fwd_by_value {
                let child_depth =
                    |k: usize| by_value_child(&ty, k).and_then(|c| depths.get(c.index()).copied()).unwrap_or(0);
                let d = 1 + (0..).take_while(|&k| by_value_child(&ty, k).is_some()).map(child_depth).max().unwrap_or(0);
                if d > limits::MAX_TYPE_DEPTH {
                    return Err(self.bad(format!(
                        "type {here} nests {d} levels deep, over the limit of {}",
                        limits::MAX_TYPE_DEPTH
                    )));
                }
                depths.push(d);
            }
            let h = self.m.types.append(ty);
            if vararg {
                self.vararg_types.push(h);
            }
        }
        Err(ReadError::eof(rd.offset(), "bitcode ends inside the TYPE_BLOCK"))
    }

    /// Rejects types that contain themselves by value (only pointers may close a
    /// cycle) or nest deeper than `limits::MAX_TYPE_DEPTH`, so later recursive
    /// walks over types terminate within a bounded stack.
    fn check_type_cycles(&self) -> Result<()> {
        let n = self.m.types.len();
        let mut state = vec![0u8; n];
        let mut depth = vec![0u32; n];
        let mut stack: Vec<(usize, usize)> = Vec::new();
        let types: Vec<&Type> = self.m.types.values().collect();
        let edge = by_value_child;
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            stack.push((root, 0));
            while let Some(top) = stack.last_mut() {
                let (node, i) = *top;
                top.1 += 1;
                match types.get(node).and_then(|t| edge(t, i)) {
                    None => {
                        // Every by-value child is finished: the depth is known.
                        let t = types.get(node);
                        let d = 1
                            + (0..)
                                .map_while(|k| t.and_then(|t| edge(t, k)))
                                .map(|c| depth[c.index()])
                                .max()
                                .unwrap_or(0);
                        if d > limits::MAX_TYPE_DEPTH {
                            return Err(self.bad(format!(
                                "type {node} nests {d} levels deep, over the limit of {}",
                                limits::MAX_TYPE_DEPTH
                            )));
                        }
                        depth[node] = d;
                        state[node] = 2;
                        stack.pop();
                    }
                    Some(next) => match state.get(next.index()) {
                        Some(0) => {
                            state[next.index()] = 1;
                            stack.push((next.index(), 0));
                        }
                        Some(1) => return Err(self.bad(format!("type {} contains itself", next.index()))),
                        _ => {}
                    },
                }
            }
        }
        Ok(())
    }

    /// Fills the pointer/vector lookup caches and the common scalar types.
    fn index_types(&mut self) {
        let (mut np, mut nv) = (0, 0);
        for t in self.m.types.values() {
            match t {
                Type::Pointer { .. } => np += 1,
                Type::Vector { .. } => nv += 1,
                _ => {}
            }
        }
        // Room for the few types the decoder adds (function pointers, GEP results).
        self.ptr_cache.reserve(np + 8);
        self.vec_cache.reserve(nv);
        for (h, t) in self.m.types.iter() {
            match t {
                Type::Pointer { pointee, space } => {
                    self.ptr_cache.entry((*pointee, *space)).or_insert(h);
                }
                Type::Vector { elem, count } => {
                    self.vec_cache.entry((*elem, *count)).or_insert(h);
                }
                Type::Void if self.void_ty.is_none() => self.void_ty = Some(h),
                Type::Int { bits: 1 } if self.i1_ty.is_none() => self.i1_ty = Some(h),
                Type::Int { bits: 32 } if self.i32_ty.is_none() => self.i32_ty = Some(h),
                _ => {}
            }
        }
    }

    /// A type id from the table.
    #[inline]
    pub(crate) fn ty(&self, id: u64) -> Result<TypeH> {
        if (id as usize) < self.m.types.len() {
            if let Some(h) = Handle::from_index(id as usize) {
                return Ok(h);
            }
        }
        Err(self.bad(format!("type id {id} is not defined")))
    }

    #[inline]
    pub(crate) fn type_of(&self, ty: TypeH) -> Option<&Type> {
        self.m.types.try_get(ty)
    }

    /// `pointee*` in `space`, created when the table lacks it.
    pub(crate) fn ptr_to(&mut self, pointee: TypeH, space: u32) -> TypeH {
        if let Some(&h) = self.ptr_cache.get(&(pointee, space)) {
            return h;
        }
        let h = self.m.types.append(Type::Pointer { pointee, space });
        self.ptr_cache.insert((pointee, space), h);
        h
    }

    /// `<count x elem>`, created when the table lacks it.
    pub(crate) fn vec_of(&mut self, elem: TypeH, count: u32) -> TypeH {
        if let Some(&h) = self.vec_cache.get(&(elem, count)) {
            return h;
        }
        let h = self.m.types.append(Type::Vector { elem, count });
        self.vec_cache.insert((elem, count), h);
        h
    }

    pub(crate) fn void(&mut self) -> TypeH {
        match self.void_ty {
            Some(h) => h,
            None => {
                let h = self.m.types.append(Type::Void);
                self.void_ty = Some(h);
                h
            }
        }
    }

    pub(crate) fn i1(&mut self) -> TypeH {
        match self.i1_ty {
            Some(h) => h,
            None => {
                let h = self.m.types.append(Type::Int { bits: 1 });
                self.i1_ty = Some(h);
                h
            }
        }
    }

    pub(crate) fn i32(&mut self) -> TypeH {
        match self.i32_ty {
            Some(h) => h,
            None => {
                let h = self.m.types.append(Type::Int { bits: 32 });
                self.i32_ty = Some(h);
                h
            }
        }
    }

    pub(crate) fn is_void(&self, ty: TypeH) -> bool {
        matches!(self.type_of(ty), Some(Type::Void))
    }

    pub(crate) fn is_metadata(&self, ty: TypeH) -> bool {
        matches!(self.type_of(ty), Some(Type::Metadata))
    }

    pub(crate) fn is_fp(&self, ty: TypeH) -> bool {
        match self.type_of(ty) {
            Some(Type::Float { .. }) => true,
            Some(Type::Vector { elem, .. }) => matches!(self.type_of(*elem), Some(Type::Float { .. })),
            _ => false,
        }
    }

    pub(crate) fn pointee(&self, ty: TypeH) -> Option<(TypeH, u32)> {
        match self.type_of(ty) {
            Some(Type::Pointer { pointee, space }) => Some((*pointee, *space)),
            _ => None,
        }
    }

    /// The element type of a vector or array.
    pub(crate) fn elem_of(&self, ty: TypeH) -> Option<TypeH> {
        match self.type_of(ty) {
            Some(Type::Vector { elem, .. }) | Some(Type::Array { elem, .. }) => Some(*elem),
            _ => None,
        }
    }

    /// Bit width of an integer type.
    pub(crate) fn int_width(&self, ty: TypeH) -> Option<u16> {
        match self.type_of(ty) {
            Some(Type::Int { bits }) => Some(*bits),
            _ => None,
        }
    }

    /// Bit width of a float type.
    pub(crate) fn float_width(&self, ty: TypeH) -> Option<u16> {
        match self.type_of(ty) {
            Some(Type::Float { bits }) => Some(*bits),
            _ => None,
        }
    }

    /// The type reached from `ty` by one aggregate index (struct member or element).
    pub(crate) fn member(&self, ty: TypeH, idx: u64) -> Option<TypeH> {
        match self.type_of(ty)? {
            Type::Struct { members, .. } => members.get(usize::try_from(idx).ok()?).copied(),
            Type::Array { elem, .. } | Type::Vector { elem, .. } => Some(*elem),
            _ => None,
        }
    }

    /// The result type of a GEP: `source` indexed by `indices[1..]`, as a pointer in `space`.
    pub(crate) fn gep_type(&mut self, source: TypeH, indices: &[Value], space: u32) -> Result<TypeH> {
        let mut cur = source;
        for &ix in indices.iter().skip(1) {
            let next = match self.type_of(cur) {
                Some(Type::Struct { members, .. }) => {
                    let k = self.m.const_int(ix).ok_or_else(|| self.bad("struct GEP index is not a constant"))?;
                    members.get(k as usize).copied()
                }
                Some(Type::Array { elem, .. }) | Some(Type::Vector { elem, .. }) => Some(*elem),
                _ => None,
            };
            cur = next.ok_or_else(|| self.bad("GEP index steps into a non-aggregate"))?;
        }
        Ok(self.ptr_to(cur, space))
    }

    /// The `{ ty, i1 }` result of cmpxchg.
    pub(crate) fn cmpxchg_type(&mut self, ty: TypeH) -> TypeH {
        if let Some(&h) = self.cmpxchg_types.get(&ty) {
            return h;
        }
        let i1 = self.i1();
        let found = self.m.types.iter().find(|(_, t)| {
            matches!(t, Type::Struct { name: None, members } if members.len() == 2 && members[0] == ty && members[1] == i1)
        });
        let h = match found {
            Some((h, _)) => h,
            None => self.m.types.append(Type::Struct { name: None, members: vec![ty, i1] }),
        };
        self.cmpxchg_types.insert(ty, h);
        h
    }
}
