//! `structured-buffer-stride-not-cache-aligned` (lanes that index different
//! elements: `docs/uniformity.md`).

use super::{At, Finding, RuleContext, RuleMeta};
use crate::analysis::uniformity;
use crate::dxil::{dxop, resources};
use crate::ir::{
    Binding, FuncH, Function, GlobalH, InstH, InstKind, Module, ResourceH, ResourceKind, SourceKind, Value,
};
use crate::report::{Certainty, FindingValue, Level};
use rustc_hash::FxHashMap;

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "structured-buffer-stride-not-cache-aligned",
    default_level: Some(Level::Warning),
    summary: "structured buffer whose element stride straddles cache lines where lanes index different elements",
    doc: DOC,
    options: &["cache-line-target"],
};

const DOC: &str = r#"
## What it does

Checks the element stride of every `StructuredBuffer`, `RWStructuredBuffer`,
`AppendStructuredBuffer` and `ConsumeStructuredBuffer` (and SPIR-V storage buffers whose
last member is an array with an `ArrayStride`). The stride is read from the compiled
module, never from the source: DXIL `!dx.resources` (extended property tag 1) or the
`annotateHandle` properties, SPIR-V `ArrayStride`. A stride straddles lines when

`stride > 4` and `stride % target != 0` and `target % stride != 0`,

where `target` is the cache-line target (32 bytes by default). With 32: strides 12, 20,
24, 28, 36, 40, 48 and 80 straddle; 4, 8, 16, 32, 64, 96 and 128 do not. The message names
the next valid stride: the smallest `s ≥ stride` with `s % target == 0` or `target % s == 0`.
One finding per resource, located at the resource declaration.

A straddling stride costs lines only where the lanes of a wave index **different**
elements. The rule therefore looks at every access of the buffer (DXIL `bufferLoad`,
`rawBufferLoad`, their stores, atomics and long-vector loads/stores; SPIR-V access chains
into the buffer) and asks the uniformity analysis (`docs/uniformity.md`) whether the
element index can differ between lanes. It fires when some access's index is
**divergent** (a thread id, a per-lane load, a join after a divergent branch, ...) or
unknown; a buffer whose every access uses an index proven uniform (a constant, a
cbuffer or push-constant value, the group id, a loop counter every lane shares, a
`WaveReadLaneFirst`) is silent. A buffer with no access found keeps its finding (the
declaration is checked alone), and so does one used in a way the rule does not follow
(a pointer to the whole buffer passed on) or, in DXIL, any buffer when some buffer
operation's handle does not resolve to a resource.

The finding says why it was kept: `values` carry `index` (`divergent`, `unfollowed`,
`unresolved` or `no-access`), `why` (the root cause, e.g. `thread id (GlobalInvocationId)
(%0)`, with the value it comes from) and `access_offset` (the byte offset of the access
instruction), and the help line puts them in words.

## Why is this bad

GPU caches are organised in lines (64 bytes on AMD RDNA and Intel Xe, 128 on NVIDIA). When
the element stride is not a divisor or a multiple of the line size, some elements straddle
two lines: a wave reading consecutive elements touches more lines than needed, each extra
line costing a tag lookup, a miss-handling slot and cache capacity.

## Example

```hlsl
struct Vertex {
  float3 position; // 12 bytes
  float2 uv;       //  8 bytes
};                 // stride 20
StructuredBuffer<Vertex> g_Vertices : register(t0);
```

```text
warning[structured-buffer-stride-not-cache-aligned]: element stride 20 bytes straddles 32-byte lines; pad to 32, reorder fields, or split into parallel buffers
  --> g_Vertices (t0 space0)
   = help: lanes index different elements: the element index at byte offset 3393 is divergent, from thread id (dx.op.threadId, SV_DispatchThreadID) (%2)
```

with `g_Vertices[tid]`, `tid` the `SV_DispatchThreadID`. `g_Vertices[0]`, or
`g_Vertices[g_Index]` with `g_Index` from a cbuffer, is silent: every lane reads the same
element, one or two lines for the whole wave.

## Use instead

```hlsl
struct Vertex {
  float3 position;
  float  pad;
  float2 uv;
  float2 uv2;
};                 // stride 32
StructuredBuffer<Vertex> g_Vertices : register(t0);

// or split into parallel buffers (structure of arrays)
StructuredBuffer<float3> g_Positions : register(t0);
StructuredBuffer<float2> g_UVs       : register(t1);
```

## Options

- `cache-line-target` (integer, default `32`): the line size to check against, in bytes;
  one of `16`, `32`, `64`, `128`. Any other value is a configuration error.

```toml
[rules.structured-buffer-stride-not-cache-aligned]
cache-line-target = 64
```

## Known limitations

- A buffer that is read one field at a time, or only by a few threads, may not suffer.
- Uniformity is sound, not complete: when in doubt an index is divergent and the finding
  stays. Function arguments (call sites are not analysed), call results, SPIR-V subgroup
  arithmetic (the IR does not keep Reduce vs scan), loads from writable memory, and every
  value of a function with irreducible control flow count as divergent
  (`docs/uniformity.md`).
- SPIR-V strides follow the Vulkan layout the compiler chose (std430 by default), so they
  can differ from the DXIL stride of the same HLSL struct.

## References

- D3D12 structured buffers: <https://learn.microsoft.com/en-us/windows/win32/direct3d11/direct3d-11-advanced-stages-cs-resources#structured-buffer>
- Vulkan storage buffer layout (`ArrayStride`, std430): <https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#interfaces-resources-layout>
"#;

/// Does a stride straddle lines of `target` bytes?
pub fn fires(stride: u32, target: u32) -> bool {
    stride > 4 && target != 0 && !stride.is_multiple_of(target) && !target.is_multiple_of(stride)
}

/// The smallest `s ≥ stride` with `s % target == 0` or `target % s == 0`.
pub fn next_valid(stride: u32, target: u32) -> u32 {
    let target = target.max(1);
    if stride <= target {
        (stride..=target).find(|s| *s > 0 && target.is_multiple_of(*s)).unwrap_or(target)
    } else {
        stride.div_ceil(target).saturating_mul(target)
    }
}

/// Accepted values of `cache-line-target`.
pub const CACHE_LINE_TARGETS: &[u32] = &[16, 32, 64, 128];
/// Default `cache-line-target`.
pub const DEFAULT_CACHE_LINE_TARGET: u32 = 32;

/// The rule's options (`[rules.structured-buffer-stride-not-cache-aligned]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `cache-line-target`: the line size strides are judged against (16, 32, 64, 128).
    pub cache_line_target: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { cache_line_target: DEFAULT_CACHE_LINE_TARGET }
    }
}

impl super::RuleOptions for Options {
    const RULE: &'static str = META.id;

    fn parse(table: &toml::Table) -> Result<Self, String> {
        let mut o = Options::default();
        if let Some(v) = table.get("cache-line-target") {
            o.cache_line_target = v
                .as_integer()
                .and_then(|i| u32::try_from(i).ok())
                .filter(|n| CACHE_LINE_TARGETS.contains(n))
                .ok_or_else(|| super::settings::invalid_value(META.id, "cache-line-target", v, CACHE_LINE_TARGETS))?;
        }
        Ok(o)
    }
}

/// One access to a structured buffer: the instruction and its element index
/// (`None`: a use the rule does not follow, such as a pointer passed to a call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Function of the access.
    pub function: FuncH,
    /// The access (DXIL buffer op, SPIR-V access chain, or the unfollowed use).
    pub inst: InstH,
    /// The element index.
    pub index: Option<Value>,
}

/// The accesses of every structured buffer, and the DXIL buffer operations
/// whose handle did not resolve to a resource (they may reach any buffer).
#[derive(Debug, Default)]
pub struct Accesses {
    /// Accesses by resource.
    pub by_resource: FxHashMap<ResourceH, Vec<Access>>,
    /// Buffer operations on a handle that did not resolve.
    pub unresolved: Vec<Access>,
}

/// Finds the accesses of the structured buffers of a module.
pub fn accesses(m: &Module) -> Accesses {
    let mut out = Accesses::default();
    match m.source {
        SourceKind::Dxil => dxil_accesses(m, &mut out),
        SourceKind::Spirv => spirv_accesses(m, &mut out),
        SourceKind::Ptx => {}
    }
    out
}

fn dxil_accesses(m: &Module, out: &mut Accesses) {
    for (fh, f) in m.functions.iter() {
        for (_, b) in f.blocks.iter() {
            for &ih in &b.insts {
                let Some(InstKind::Call { callee, args, dx_op }) = f.insts.try_get(ih).map(|i| &i.kind) else {
                    continue;
                };
                let Some(op) = dx_op.or_else(|| resources::call_opcode(m, *callee, args)) else { continue };
                let index_arg = match op {
                    68 | 69 | 79 | 139 | 140 | 303 | 304 => 2,
                    78 => 3,
                    _ => continue,
                };
                let access = Access { function: fh, inst: ih, index: args.get(index_arg).copied() };
                match args.get(1).and_then(|h| dxil_resource(m, fh, f, *h, 0)) {
                    Some(r) => out.by_resource.entry(r).or_default().push(access),
                    None => out.unresolved.push(access),
                }
            }
        }
    }
}

/// The resource behind a DXIL handle value, when every path agrees.
fn dxil_resource(m: &Module, fh: FuncH, f: &Function, v: Value, depth: u32) -> Option<ResourceH> {
    let Value::Inst(ih) = v else { return None };
    if depth > 16 {
        return None;
    }
    let all = |vals: &mut dyn Iterator<Item = Value>| {
        let mut out = None;
        for x in vals.filter(|x| *x != v) {
            let r = dxil_resource(m, fh, f, x, depth + 1)?;
            if out.is_some_and(|o| o != r) {
                return None;
            }
            out = Some(r);
        }
        out
    };
    match &f.insts.try_get(ih)?.kind {
        InstKind::Phi { incoming } => all(&mut incoming.iter().map(|(x, _)| *x)),
        InstKind::Select { if_true, if_false, .. } => all(&mut [*if_true, *if_false].into_iter()),
        InstKind::Call { callee, args, dx_op } => {
            let arg = |i: usize| args.get(i).copied();
            match dx_op.or_else(|| resources::call_opcode(m, *callee, args))? {
                dxop::CREATE_HANDLE => {
                    let class = resources::class_from_u64(m.const_int(arg(1)?)?)?;
                    let id = m.const_int(arg(2)?)?;
                    m.resources
                        .iter()
                        .find(|(_, r)| {
                            r.class == class && u64::from(r.id) == id && matches!(r.binding, Binding::Register { .. })
                        })
                        .map(|(h, _)| h)
                }
                dxop::CREATE_HANDLE_FROM_BINDING => {
                    let b = resources::const_fields(m, arg(1)?, 4)?;
                    let (lower, space) = (*b.first()?, *b.get(2)?);
                    let class = resources::class_from_u64(*b.get(3)?)?;
                    m.resources
                        .iter()
                        .find(|(_, r)| match r.binding {
                            Binding::Register { space: s, lower_bound, range } => {
                                r.class == class
                                    && u64::from(s) == space
                                    && u64::from(lower_bound) <= lower
                                    && (range == u32::MAX || lower < u64::from(lower_bound) + u64::from(range))
                            }
                            _ => false,
                        })
                        .map(|(h, _)| h)
                }
                dxop::ANNOTATE_HANDLE => m
                    .resources
                    .iter()
                    .find(
                        |(_, r)| matches!(r.binding, Binding::Heap { function, inst } if function == fh && inst == ih),
                    )
                    .map(|(h, _)| h)
                    .or_else(|| dxil_resource(m, fh, f, arg(1)?, depth + 1)),
                dxop::CREATE_HANDLE_FOR_LIB => {
                    let mut p = arg(1)?;
                    for _ in 0..8 {
                        match p {
                            Value::Inst(i) => match &f.insts.try_get(i)?.kind {
                                InstKind::Load { ptr } => p = *ptr,
                                InstKind::Gep { base, .. } => p = *base,
                                InstKind::Cast { value, .. } => p = *value,
                                _ => return None,
                            },
                            _ => break,
                        }
                    }
                    let g = m.globals.try_get(resources::global_of(m, p)?)?;
                    m.resources.iter().find(|(_, r)| r.span == g.span).map(|(h, _)| h)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn spirv_accesses(m: &Module, out: &mut Accesses) {
    // The global of each structured buffer, and how many real indices reach its
    // element: member then element, after a descriptor-array index if any.
    let mut roots: FxHashMap<GlobalH, (ResourceH, usize)> = FxHashMap::default();
    for (rh, r) in m.resources.iter() {
        if r.kind != ResourceKind::STRUCTURED_BUFFER {
            continue;
        }
        if let Some((gh, g)) = m.globals.iter().find(|(_, g)| g.span.id == r.id && r.id != u32::MAX) {
            let array = matches!(m.types.try_get(g.value_ty), Some(crate::ir::Type::Array { .. }));
            roots.insert(gh, (rh, if array { 3 } else { 2 }));
        }
    }
    if roots.is_empty() {
        return;
    }
    for (fh, f) in m.functions.iter() {
        // Pointers into a buffer: (resource, element depth, real indices consumed).
        let mut ptrs: FxHashMap<InstH, (ResourceH, usize, usize)> = FxHashMap::default();
        let tracked = |ptrs: &FxHashMap<InstH, (ResourceH, usize, usize)>, v: Value| match v {
            Value::Global(g) => roots.get(&g).map(|(r, k)| (*r, *k, 0)),
            Value::Inst(h) => ptrs.get(&h).copied(),
            _ => None,
        };
        for (_, b) in f.blocks.iter() {
            for &ih in &b.insts {
                let Some(inst) = f.insts.try_get(ih) else { continue };
                let push = |out: &mut Accesses, r: ResourceH, index: Option<Value>| {
                    out.by_resource.entry(r).or_default().push(Access { function: fh, inst: ih, index });
                };
                match &inst.kind {
                    InstKind::Gep { base, indices } => {
                        let Some((r, k, d)) = tracked(&ptrs, *base) else {
                            unfollowed(&inst.kind, &|v| tracked(&ptrs, v), &mut |r| push(out, r, None));
                            continue;
                        };
                        let lead_zero = indices.first().is_some_and(|v| m.const_int(*v) == Some(0));
                        if !lead_zero {
                            // `OpPtrAccessChain`: the first index moves the element when
                            // the base already points at one.
                            if d >= k {
                                push(out, r, indices.first().copied());
                            } else {
                                push(out, r, None);
                            }
                        }
                        let real = indices.len().saturating_sub(1);
                        if d < k && d + real >= k {
                            push(out, r, indices.get(k - d).copied());
                        }
                        ptrs.insert(ih, (r, k, d + real));
                    }
                    InstKind::Load { .. } => {}
                    InstKind::Store { value, .. } => {
                        if let Some((r, _, _)) = tracked(&ptrs, *value).filter(|(_, k, d)| d < k) {
                            push(out, r, None);
                        }
                    }
                    // `OpArrayLength` reads no element.
                    InstKind::Other { opcode: 68, .. } => {}
                    k => unfollowed(k, &|v| tracked(&ptrs, v), &mut |r| push(out, r, None)),
                }
            }
        }
    }
}

/// Every buffer pointer an instruction uses in a way the rule does not follow.
fn unfollowed(
    kind: &InstKind,
    tracked: &dyn Fn(Value) -> Option<(ResourceH, usize, usize)>,
    push: &mut dyn FnMut(ResourceH),
) {
    let mut hit: Vec<ResourceH> = Vec::new();
    crate::analysis::dataflow::for_each_operand(kind, |v| {
        // A pointer at (or inside) an element was counted where it was
        // indexed; one above the element escapes the rule.
        if let Some((r, k, d)) = tracked(v).filter(|(_, k, d)| d < k) {
            let _ = (k, d);
            if !hit.contains(&r) {
                hit.push(r);
            }
        }
    });
    for r in hit {
        push(r);
    }
}

/// Why a buffer's finding is kept: the first access whose index may differ
/// between lanes. `None` when every access's index is uniform.
struct Kept {
    /// `divergent`, `unfollowed`, `unresolved` or `no-access`.
    index: &'static str,
    why: String,
    access: Option<(FuncH, InstH)>,
}

fn verdict(
    m: &Module,
    acc: &Accesses,
    r: ResourceH,
    cache: &mut FxHashMap<FuncH, uniformity::FuncUniformity>,
) -> Option<Kept> {
    let list = acc.by_resource.get(&r).map(|v| v.as_slice()).unwrap_or(&[]);
    if list.is_empty() && acc.unresolved.is_empty() {
        return Some(Kept {
            index: "no-access",
            why: "no access to the buffer was found, so the declaration is checked alone".into(),
            access: None,
        });
    }
    for a in list {
        let Some(f) = m.functions.try_get(a.function) else { continue };
        let Some(index) = a.index else {
            return Some(Kept {
                index: "unfollowed",
                why: "the buffer is used in a way the rule does not follow (its index is unknown)".into(),
                access: Some((a.function, a.inst)),
            });
        };
        let u = cache.entry(a.function).or_insert_with(|| uniformity::analyze(m, a.function));
        if let Some((chain, cause)) = u.root_cause(index, Some(a.inst)) {
            let root = chain.last().copied().unwrap_or(index);
            let root_text = crate::ir::print::value(m, Some(f), root);
            let why = match cause {
                uniformity::Cause::Source(_) | uniformity::Cause::Function(_) => {
                    format!("{} ({root_text})", uniformity::describe(m, f, cause))
                }
                _ => format!("{} (at {root_text})", uniformity::describe(m, f, cause)),
            };
            return Some(Kept { index: "divergent", why, access: Some((a.function, a.inst)) });
        }
    }
    if let Some(a) = acc.unresolved.first() {
        return Some(Kept {
            index: "unresolved",
            why: "a buffer operation whose handle did not resolve may index it".into(),
            access: Some((a.function, a.inst)),
        });
    }
    None
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    let target = cx.settings.options::<Options>().cache_line_target;
    let mut seen: Vec<(String, u32)> = Vec::new();
    let mut acc: Option<Accesses> = None;
    let mut cache: FxHashMap<FuncH, uniformity::FuncUniformity> = FxHashMap::default();
    for (h, r) in m.resources.iter() {
        if r.kind != ResourceKind::STRUCTURED_BUFFER {
            continue;
        }
        let Some(stride) = r.stride else { continue };
        if !fires(stride, target) {
            continue;
        }
        let key = (format!("{:?} {:?} {:?}", r.class, r.binding, r.name), stride);
        if seen.contains(&key) {
            continue;
        }
        let acc = acc.get_or_insert_with(|| accesses(m));
        // Every lane reading the same element costs one line at most.
        let Some(kept) = verdict(m, acc, h, &mut cache) else { continue };
        seen.push(key);
        let next = next_valid(stride, target);
        let at = match kept.access {
            Some((f, i)) => {
                let off = m.functions.try_get(f).and_then(|x| x.insts.try_get(i)).map(|x| x.span.offset);
                format!(" at byte offset {}", off.unwrap_or(0))
            }
            None => String::new(),
        };
        let help = match kept.index {
            "divergent" => {
                format!("lanes index different elements: the element index{at} is divergent, from {}", kept.why)
            }
            _ => format!("kept: {}", kept.why),
        };
        let mut values = vec![
            ("stride", FindingValue::Int(u64::from(stride))),
            ("next", FindingValue::Int(u64::from(next))),
            ("cache_line_target", FindingValue::Int(u64::from(target))),
            ("index", FindingValue::Text(kept.index.to_string())),
            ("why", FindingValue::Text(kept.why)),
        ];
        if let Some((f, i)) = kept.access {
            if let Some(off) = m.functions.try_get(f).and_then(|x| x.insts.try_get(i)).map(|x| x.span.offset) {
                values.push(("access_offset", FindingValue::Int(off)));
            }
        }
        cx.emit(Finding {
            rule: META.id,
            certainty: Certainty::Proven,
            force_error: false,
            message: format!(
                "element stride {stride} bytes straddles {target}-byte lines; pad to {next}, reorder fields, or split \
                 into parallel buffers"
            ),
            help: Some(help),
            values,
            at: At::Resource(h),
        });
    }
}
