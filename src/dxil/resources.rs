//! `!dx.resources` records → [`Resource`]s, and handle → resource resolution
//! (formats.md §E).
//!
//! Handles come from `createHandle` (57, class + range id), `createHandleFromBinding`
//! (217, a `ResBind` constant), `createHandleForLib` (160, a load of the resource
//! global) or `createHandleFromHeap` (218, no binding); `annotateHandle` (216)
//! adds the resource properties (kind, UAV bit, structure stride). Handles that
//! pass through phi/select resolve when every incoming value agrees.

use super::dxop;
use super::llvm::{LlvmModule, MdId, Metadata};
use crate::ir::{
    Binding, ConstExpr, ConstKind, FuncH, Function, GlobalH, InstH, InstKind, Module, Resource, ResourceClass,
    ResourceH, ResourceKind, Span, Value,
};
use rustc_hash::FxHashMap;

/// Resource records by (class, record ID) and by resource global.
#[derive(Debug, Default, Clone)]
pub struct ResourceTable {
    /// `(class, ID)` → resource.
    pub by_id: FxHashMap<(ResourceClass, u32), ResourceH>,
    /// Resource global (record field 1) → resource.
    pub by_global: FxHashMap<GlobalH, ResourceH>,
}

/// DXIL resource class from its numeric value (0 SRV, 1 UAV, 2 CBuffer, 3 Sampler).
pub fn class_from_u64(v: u64) -> Option<ResourceClass> {
    Some(match v {
        0 => ResourceClass::Srv,
        1 => ResourceClass::Uav,
        2 => ResourceClass::CBuffer,
        3 => ResourceClass::Sampler,
        _ => return None,
    })
}

/// The register letter of a class (`t`, `u`, `b`, `s`).
pub fn class_letter(c: ResourceClass) -> char {
    match c {
        ResourceClass::Srv => 't',
        ResourceClass::Uav => 'u',
        ResourceClass::CBuffer => 'b',
        ResourceClass::Sampler => 's',
    }
}

/// A binding as HLSL writes it: `t0 space0`, `u2 space1 [4]`, `t0 space0 [unbounded]`,
/// `heap (annotateHandle %7)`, `set 0 binding 1`.
pub fn binding_text(class: ResourceClass, b: &Binding) -> String {
    match b {
        Binding::Register { space, lower_bound, range } => {
            let mut s = format!("{}{lower_bound} space{space}", class_letter(class));
            match *range {
                1 => {}
                u32::MAX => s.push_str(" [unbounded]"),
                n => s.push_str(&format!(" [{n}]")),
            }
            s
        }
        Binding::Heap { inst, .. } => format!("heap (annotateHandle %{})", inst.index()),
        Binding::Descriptor { set, binding } => {
            let f = |x: &Option<u32>| x.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
            format!("set {} binding {}", f(set), f(binding))
        }
    }
}

/// Decoded `%dx.types.ResourceProperties {dword0, dword1}` (formats.md §E.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Props {
    /// Class (CBuffer/Sampler from the kind, else UAV bit).
    pub class: ResourceClass,
    /// Kind (bits 0–7).
    pub kind: ResourceKind,
    /// Structure stride (dword1) for structured buffers.
    pub stride: Option<u32>,
    /// BaseAlignLog2 (bits 8–11), 0 when unknown.
    pub base_align_log2: u32,
}

/// Decodes annotateHandle properties.
pub fn decode_props(dword0: u32, dword1: u32) -> Props {
    let kind = ResourceKind(dword0 & 0xFF);
    let class = match kind {
        ResourceKind::CBUFFER => ResourceClass::CBuffer,
        ResourceKind::SAMPLER => ResourceClass::Sampler,
        _ if dword0 & (1 << 12) != 0 => ResourceClass::Uav,
        _ => ResourceClass::Srv,
    };
    let stride = (kind == ResourceKind::STRUCTURED_BUFFER).then_some(dword1);
    Props { class, kind, stride, base_align_log2: (dword0 >> 8) & 0xF }
}

/// The integer members of a constant struct (`ResBind`, `ResourceProperties`);
/// `zeroinitializer` gives `n` zeros. `None` for undef or non-constant values.
pub fn const_fields(m: &Module, v: Value, n: usize) -> Option<Vec<u64>> {
    let Value::Const(c) = v else { return None };
    match &m.constants.try_get(c)?.kind {
        ConstKind::Null => Some(vec![0; n]),
        ConstKind::Aggregate(vals) => vals.iter().map(|x| m.const_int(*x)).collect(),
        _ => None,
    }
}

fn md_int(llvm: &LlvmModule, op: Option<&Option<MdId>>) -> Option<u64> {
    llvm.int((*op?)?)
}

fn md_value(llvm: &LlvmModule, op: Option<&Option<MdId>>) -> Option<Value> {
    match llvm.md((*op?)?)? {
        Metadata::Value { value, .. } => Some(*value),
        _ => None,
    }
}

/// The global a metadata value names, looking through constant casts/GEPs.
pub fn global_of(m: &Module, v: Value) -> Option<GlobalH> {
    let mut v = v;
    for _ in 0..8 {
        match v {
            Value::Global(g) => return Some(g),
            Value::Const(c) => match &m.constants.try_get(c)?.kind {
                ConstKind::Expr(e) => match &**e {
                    ConstExpr::Cast(_, x) => v = *x,
                    ConstExpr::Gep { base, .. } => v = *base,
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        }
    }
    None
}

/// Tag/value pairs of an extended-property list: the stride (tag 1).
fn ext_stride(llvm: &LlvmModule, list: Option<&Option<MdId>>) -> Option<u32> {
    let ops = llvm.node((*list?)?)?;
    ops.chunks(2).find_map(|pair| match pair {
        [t, v] if md_int(llvm, Some(t)) == Some(1) => md_int(llvm, Some(v)).and_then(|s| u32::try_from(s).ok()),
        _ => None,
    })
}

/// Resources parsed from metadata, before they join the module.
#[derive(Debug, Default, Clone)]
pub struct ParsedResources {
    /// Records in `!dx.resources` order (SRVs, UAVs, CBVs, samplers).
    pub resources: Vec<Resource>,
    /// Lookup tables; handles assume the resources are appended to an arena
    /// that held `base` items.
    pub table: ResourceTable,
    /// Non-fatal remarks.
    pub remarks: Vec<String>,
}

/// Parses one class list of `!dx.resources`.
fn parse_list(llvm: &LlvmModule, out: &mut ParsedResources, base: usize, class: ResourceClass, list: MdId) {
    let m = &llvm.module;
    let Some(records) = llvm.node(list) else { return };
    for rec in records.iter().flatten() {
        let Some(ops) = llvm.node(*rec) else {
            out.remarks.push(format!("resource record !{rec} is not a node"));
            continue;
        };
        let Some(id) = md_int(llvm, ops.first()).map(|v| v as u32) else {
            out.remarks.push(format!("resource record !{rec} has no ID"));
            continue;
        };
        let global = md_value(llvm, ops.get(1)).and_then(|v| global_of(m, v));
        let name = ops
            .get(2)
            .and_then(|o| o.as_ref())
            .and_then(|s| llvm.string(*s))
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .filter(|s| !s.is_empty());
        let space = md_int(llvm, ops.get(3)).unwrap_or(0) as u32;
        let lower_bound = md_int(llvm, ops.get(4)).unwrap_or(0) as u32;
        let range = md_int(llvm, ops.get(5)).unwrap_or(1) as u32;
        let (kind, ext) = match class {
            ResourceClass::Srv => (ResourceKind(md_int(llvm, ops.get(6)).unwrap_or(0) as u32), ops.get(8)),
            ResourceClass::Uav => (ResourceKind(md_int(llvm, ops.get(6)).unwrap_or(0) as u32), ops.get(10)),
            ResourceClass::CBuffer => (ResourceKind::CBUFFER, ops.get(7)),
            ResourceClass::Sampler => (ResourceKind::SAMPLER, ops.get(7)),
        };
        let stride = ext_stride(llvm, ext);
        let span = global.and_then(|g| m.globals.try_get(g)).map(|g| g.span).unwrap_or(Span::at(0));
        let Some(h) = ResourceH::from_index(base + out.resources.len()) else { return };
        out.resources.push(Resource {
            class,
            kind,
            name,
            binding: Binding::Register { space, lower_bound, range },
            stride,
            id,
            span,
        });
        out.table.by_id.entry((class, id)).or_insert(h);
        if let Some(g) = global {
            out.table.by_global.entry(g).or_insert(h);
        }
    }
}

/// Parses `!dx.resources` (or, when absent, the resource lists of
/// `!dx.entryPoints`). `base` is the length of the arena they will be appended to.
pub fn parse_resources(llvm: &LlvmModule, base: usize) -> ParsedResources {
    let mut out = ParsedResources::default();
    let mut lists: Vec<MdId> = Vec::new();
    if let Some(ops) = llvm.named("dx.resources") {
        lists.extend(ops.iter().copied());
    } else if let Some(eps) = llvm.named("dx.entryPoints") {
        for ep in eps {
            if let Some(r) = llvm.node(*ep).and_then(|o| o.get(3).copied().flatten()) {
                if !lists.contains(&r) {
                    lists.push(r);
                }
            }
        }
    }
    for l in lists {
        let Some(classes) = llvm.node(l) else { continue };
        for (i, list) in classes.iter().enumerate() {
            let (Some(class), Some(list)) = (class_from_u64(i as u64), list) else { continue };
            parse_list(llvm, &mut out, base, class, *list);
        }
    }
    out
}

/// What is known about the resource behind a handle value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HandleInfo {
    /// The resource, when resolved.
    pub resource: Option<ResourceH>,
    /// Class (record or annotateHandle props).
    pub class: Option<ResourceClass>,
    /// Kind (record or props).
    pub kind: Option<ResourceKind>,
    /// Structure stride (record or props).
    pub stride: Option<u32>,
    /// Created by `createHandleFromHeap` (no binding).
    pub heap: bool,
}

impl HandleInfo {
    fn merge(self, o: HandleInfo) -> HandleInfo {
        fn same<T: PartialEq>(a: Option<T>, b: Option<T>) -> Option<T> {
            if a == b {
                a
            } else {
                None
            }
        }
        HandleInfo {
            resource: same(self.resource, o.resource),
            class: same(self.class, o.class),
            kind: same(self.kind, o.kind),
            stride: same(self.stride, o.stride),
            heap: self.heap && o.heap,
        }
    }
}

/// Resolves handle values to resources, creating heap resources (one per
/// annotateHandle site whose handle comes from the descriptor heap) as it goes.
pub struct Resolver<'a> {
    m: &'a Module,
    table: &'a ResourceTable,
    memo: FxHashMap<(FuncH, InstH), Option<HandleInfo>>,
    heap_sites: FxHashMap<(FuncH, InstH), ResourceH>,
    /// Heap resources to append to `m.resources` (their handles are already final).
    pub new_resources: Vec<Resource>,
}

impl<'a> Resolver<'a> {
    /// A resolver over a module whose records were parsed into `table`.
    pub fn new(m: &'a Module, table: &'a ResourceTable) -> Self {
        Resolver { m, table, memo: FxHashMap::default(), heap_sites: FxHashMap::default(), new_resources: Vec::new() }
    }

    fn resource(&self, h: ResourceH) -> Option<&Resource> {
        if h.index() < self.m.resources.len() {
            self.m.resources.try_get(h)
        } else {
            self.new_resources.get(h.index() - self.m.resources.len())
        }
    }

    fn info_of(&self, h: ResourceH) -> HandleInfo {
        let r = self.resource(h);
        HandleInfo {
            resource: Some(h),
            class: r.map(|r| r.class),
            kind: r.map(|r| r.kind),
            stride: r.and_then(|r| r.stride),
            heap: matches!(r.map(|r| &r.binding), Some(Binding::Heap { .. })),
        }
    }

    /// What the handle value `v` in function `fh` refers to.
    pub fn resolve(&mut self, fh: FuncH, v: Value) -> Option<HandleInfo> {
        let Value::Inst(ih) = v else { return None };
        if let Some(r) = self.memo.get(&(fh, ih)) {
            return *r;
        }
        // Cycle guard: a phi that reaches itself resolves through its other inputs.
        self.memo.insert((fh, ih), None);
        let r = self.resolve_inst(fh, ih);
        self.memo.insert((fh, ih), r);
        r
    }

    fn resolve_inst(&mut self, fh: FuncH, ih: InstH) -> Option<HandleInfo> {
        let m = self.m;
        let f: &Function = m.functions.try_get(fh)?;
        let inst = f.insts.try_get(ih)?;
        match &inst.kind {
            InstKind::Phi { incoming } => {
                let vals: Vec<Value> = incoming.iter().map(|(v, _)| *v).collect();
                self.resolve_all(fh, ih, &vals)
            }
            InstKind::Select { if_true, if_false, .. } => self.resolve_all(fh, ih, &[*if_true, *if_false]),
            InstKind::Call { args, dx_op, callee } => {
                let op = dx_op.or_else(|| call_opcode(m, *callee, args))?;
                self.resolve_call(fh, ih, op, args)
            }
            _ => None,
        }
    }

    fn resolve_all(&mut self, fh: FuncH, ih: InstH, vals: &[Value]) -> Option<HandleInfo> {
        let mut acc: Option<HandleInfo> = None;
        for v in vals {
            if *v == Value::Inst(ih) {
                continue;
            }
            let r = self.resolve(fh, *v)?;
            acc = Some(match acc {
                None => r,
                Some(a) => a.merge(r),
            });
        }
        acc
    }

    fn resolve_call(&mut self, fh: FuncH, ih: InstH, op: u32, args: &[Value]) -> Option<HandleInfo> {
        let m = self.m;
        let arg = |i: usize| args.get(i).copied();
        match op {
            dxop::CREATE_HANDLE => {
                let class = class_from_u64(m.const_int(arg(1)?)?)?;
                let id = m.const_int(arg(2)?)? as u32;
                let h = *self.table.by_id.get(&(class, id))?;
                Some(self.info_of(h))
            }
            dxop::CREATE_HANDLE_FROM_BINDING => {
                let f = const_fields(m, arg(1)?, 4)?;
                let (lower, upper, space, class) =
                    (*f.first()? as u32, *f.get(1)? as u32, *f.get(2)? as u32, class_from_u64(*f.get(3)?)?);
                let h = self.find_binding(class, space, lower, upper)?;
                Some(self.info_of(h))
            }
            dxop::CREATE_HANDLE_FOR_LIB => {
                let g = self.global_behind(fh, arg(1)?)?;
                let h = *self.table.by_global.get(&g)?;
                Some(self.info_of(h))
            }
            dxop::CREATE_HANDLE_FROM_HEAP => Some(HandleInfo { heap: true, ..HandleInfo::default() }),
            dxop::ANNOTATE_HANDLE => {
                let base = self.resolve(fh, arg(1)?);
                let props = const_fields(m, arg(2)?, 2).and_then(|p| match p.as_slice() {
                    [a, b] => Some(decode_props(*a as u32, *b as u32)),
                    _ => None,
                });
                let mut info = base.unwrap_or_default();
                if let Some(p) = props {
                    info.class = info.class.or(Some(p.class));
                    info.kind = info.kind.or(Some(p.kind));
                    info.stride = info.stride.or(p.stride);
                    if info.heap && info.resource.is_none() {
                        info.resource = self.heap_resource(fh, ih, p);
                    }
                }
                Some(info)
            }
            _ => None,
        }
    }

    /// A record of `class` in `space` whose range covers `[lower, upper]`.
    fn find_binding(&self, class: ResourceClass, space: u32, lower: u32, upper: u32) -> Option<ResourceH> {
        let mut best = None;
        for (h, r) in self.m.resources.iter() {
            let Binding::Register { space: s, lower_bound, range } = r.binding else { continue };
            if r.class != class || s != space {
                continue;
            }
            if lower_bound == lower {
                return Some(h);
            }
            let last = if range == u32::MAX { u32::MAX } else { lower_bound.saturating_add(range.saturating_sub(1)) };
            if lower_bound <= lower && upper <= last && best.is_none() {
                best = Some(h);
            }
        }
        best
    }

    /// The resource global behind the operand of `createHandleForLib` (a load of it).
    fn global_behind(&self, fh: FuncH, v: Value) -> Option<GlobalH> {
        let f = self.m.functions.try_get(fh)?;
        let mut v = v;
        for _ in 0..8 {
            match v {
                Value::Inst(i) => match &f.insts.try_get(i)?.kind {
                    InstKind::Load { ptr } => v = *ptr,
                    InstKind::Gep { base, .. } => v = *base,
                    InstKind::Cast { value, .. } => v = *value,
                    _ => return None,
                },
                other => return global_of(self.m, other),
            }
        }
        None
    }

    /// The heap resource of one annotateHandle site (structured and raw buffers).
    fn heap_resource(&mut self, fh: FuncH, ih: InstH, p: Props) -> Option<ResourceH> {
        if p.kind != ResourceKind::STRUCTURED_BUFFER && p.kind != ResourceKind::RAW_BUFFER {
            return None;
        }
        if let Some(h) = self.heap_sites.get(&(fh, ih)) {
            return Some(*h);
        }
        let h = ResourceH::from_index(self.m.resources.len() + self.new_resources.len())?;
        let span = self.m.functions.try_get(fh).and_then(|f| f.insts.try_get(ih)).map(|i| i.span).unwrap_or_default();
        self.new_resources.push(Resource {
            class: p.class,
            kind: p.kind,
            name: None,
            binding: Binding::Heap { function: fh, inst: ih },
            stride: p.stride,
            id: u32::MAX,
            span,
        });
        self.heap_sites.insert((fh, ih), h);
        Some(h)
    }
}

/// The dx.op opcode of a call whose decoder did not set `dx_op`: the first
/// argument of a call to a `dx.op.*` function.
pub fn call_opcode(m: &Module, callee: Value, args: &[Value]) -> Option<u32> {
    let Value::Function(fh) = callee else { return None };
    let f = m.functions.try_get(fh)?;
    if !f.name.starts_with("dx.op.") {
        return None;
    }
    m.const_int(*args.first()?).map(|v| v as u32)
}
