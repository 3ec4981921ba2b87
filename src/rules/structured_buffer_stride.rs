//! `structured-buffer-stride-not-cache-aligned` (rules.md §3).

use super::{At, Finding, RuleContext, RuleMeta};
use crate::ir::ResourceKind;
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "structured-buffer-stride-not-cache-aligned",
    default_level: Some(Level::Warning),
    summary: "structured buffer whose element stride straddles cache lines",
    doc: DOC,
    options: &["cache-line-target"],
};

const DOC: &str = r#"
## What it does

Checks the element stride of every `StructuredBuffer`, `RWStructuredBuffer`,
`AppendStructuredBuffer` and `ConsumeStructuredBuffer` (and SPIR-V storage buffers whose
last member is an array with an `ArrayStride`). The stride is read from the compiled
module, never from the source: DXIL `!dx.resources` (extended property tag 1) or the
`annotateHandle` properties, SPIR-V `ArrayStride`. It fires when

`stride > 4` and `stride % target != 0` and `target % stride != 0`,

where `target` is the cache-line target (32 bytes by default). With 32: strides 12, 20,
24, 28, 36, 40, 48 and 80 fire; 4, 8, 16, 32, 64, 96 and 128 do not. The message names the
next valid stride: the smallest `s ≥ stride` with `s % target == 0` or `target % s == 0`.
One finding per resource, located at the resource declaration.

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
```

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

- The rule looks at the declaration only: a buffer that is read one field at a time, or
  only by a few threads, may not suffer.
- SPIR-V strides follow the Vulkan layout the compiler chose (std430 by default), so they
  can differ from the DXIL stride of the same HLSL struct.

## References

- D3D12 structured buffers: <https://learn.microsoft.com/en-us/windows/win32/direct3d11/direct3d-11-advanced-stages-cs-resources#structured-buffer>
- Vulkan storage buffer layout (`ArrayStride`, std430): <https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#interfaces-resources-layout>
"#;

/// Does a stride straddle lines of `target` bytes?
pub fn fires(stride: u32, target: u32) -> bool {
    stride > 4 && target != 0 && stride % target != 0 && target % stride != 0
}

/// The smallest `s ≥ stride` with `s % target == 0` or `target % s == 0`.
pub fn next_valid(stride: u32, target: u32) -> u32 {
    let target = target.max(1);
    if stride <= target {
        (stride..=target).find(|s| *s > 0 && target % s == 0).unwrap_or(target)
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
                .ok_or_else(|| crate::config::invalid_value(META.id, "cache-line-target", v, CACHE_LINE_TARGETS))?;
        }
        Ok(o)
    }
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    let target = cx.settings.options::<Options>().cache_line_target;
    let mut seen: Vec<(String, u32)> = Vec::new();
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
        seen.push(key);
        let next = next_valid(stride, target);
        cx.emit(Finding {
            rule: META.id,
            certainty: Certainty::Proven,
            force_error: false,
            message: format!(
                "element stride {stride} bytes straddles {target}-byte lines; pad to {next}, reorder fields, or split \
                 into parallel buffers"
            ),
            help: None,
            values: vec![
                ("stride", FindingValue::Int(u64::from(stride))),
                ("next", FindingValue::Int(u64::from(next))),
                ("cache_line_target", FindingValue::Int(u64::from(target))),
            ],
            at: At::Resource(h),
        });
    }
}
