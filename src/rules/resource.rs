//! How findings name resources: the label (`g_Buf (t0 space0)`), the JSON
//! `resource` object, and LLVM-style local names.

use crate::ir::{Binding, Module, Resource, ResourceClass};
use crate::report::{Location, ResourceBinding, ResourceRef};

/// A local name as LLVM prints it: `%name`, or `%"name"` when it holds
/// characters outside `[-a-zA-Z$._0-9]` or starts with a digit.
pub fn llvm_local_name(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'));
    if plain {
        format!("%{name}")
    } else {
        let mut out = String::from("%\"");
        for b in name.bytes() {
            if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
                out.push_str(&format!("\\{b:02X}"));
            } else {
                out.push(b as char);
            }
        }
        out.push('"');
        out
    }
}

/// The JSON `resource` object of a resource; `site` is the finding's location
/// (for a heap handle, its `annotateHandle` site).
pub fn resource_ref(m: &Module, r: &Resource, site: &Location) -> ResourceRef {
    let binding = match &r.binding {
        Binding::Register { space, lower_bound, range } => ResourceBinding::Register {
            register: format!("{}{lower_bound}", register_letter(r.class)),
            space: *space,
            count: (*range != u32::MAX).then_some(*range),
        },
        Binding::Descriptor { set, binding } => ResourceBinding::Descriptor { set: *set, binding: *binding },
        Binding::Heap { function, .. } => ResourceBinding::Heap {
            function: site.function.clone().unwrap_or_else(|| {
                m.functions.try_get(*function).map(|f| crate::report::capped_name(&f.name)).unwrap_or_default()
            }),
            instruction: site.instruction,
        },
    };
    let class = match r.class {
        ResourceClass::Srv => "srv",
        ResourceClass::Uav => "uav",
        ResourceClass::CBuffer => "cbuffer",
        ResourceClass::Sampler => "sampler",
    };
    ResourceRef {
        label: describe_resource(m, r),
        name: r.name.as_deref().filter(|n| !n.is_empty()).map(crate::report::capped_name),
        class: class.to_string(),
        kind: r.kind.name().to_string(),
        id: (!matches!(r.binding, Binding::Heap { .. })).then_some(r.id),
        binding,
    }
}

fn register_letter(c: ResourceClass) -> char {
    match c {
        ResourceClass::Srv => 't',
        ResourceClass::Uav => 'u',
        ResourceClass::CBuffer => 'b',
        ResourceClass::Sampler => 's',
    }
}

/// `g_Buf (t0 space0)`, `Buf (set 0, binding 2)`, `ResourceDescriptorHeap (main)`.
pub fn describe_resource(m: &Module, r: &Resource) -> String {
    let name = r.name.as_deref().filter(|n| !n.is_empty()).map(crate::report::capped_name);
    let binding = match &r.binding {
        Binding::Register { space, lower_bound, .. } => {
            format!("{}{lower_bound} space{space}", register_letter(r.class))
        }
        Binding::Descriptor { set, binding } => {
            let s = set.map(|x| x.to_string()).unwrap_or_else(|| "?".into());
            let b = binding.map(|x| x.to_string()).unwrap_or_else(|| "?".into());
            format!("set {s}, binding {b}")
        }
        Binding::Heap { function, .. } => {
            let f = m.functions.try_get(*function).map_or_else(|| "?".into(), |f| crate::report::capped_name(&f.name));
            format!("ResourceDescriptorHeap in {f}")
        }
    };
    match name {
        Some(n) => format!("{n} ({binding})"),
        None => format!("unnamed {} ({binding})", r.kind.name()),
    }
}
