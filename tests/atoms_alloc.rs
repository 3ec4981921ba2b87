//! The verifiers never allocate — neither on success nor when they return a
//! diagnostic (the message is rendered only on demand). Counted with a global
//! allocator that tallies this thread's allocations.

use irlint::atoms::*;
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: AllocLayout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: AllocLayout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCS.with(Cell::get);
    f();
    ALLOCS.with(Cell::get) - before
}

#[test]
fn verifiers_do_not_allocate() {
    let good = Layout::parse("((8,16),16):((64,512),1)").unwrap();
    let bad = Layout::parse("((4,2,16),16):((64,4096,512),1)").unwrap();
    let frag = Layout::parse("(2,2):(1,2)").unwrap();
    let t = Target::parse("sm_100a").unwrap();
    let atoms = [
        Atom::Umma(UmmaInput { direction: UmmaDirection::K, elem_bits: 16, swizzle: Swizzle::SW128, layout: &good }),
        Atom::Umma(UmmaInput { direction: UmmaDirection::K, elem_bits: 16, swizzle: Swizzle::SW128, layout: &bad }),
        Atom::Umma(UmmaInput {
            direction: UmmaDirection::K,
            elem_bits: 16,
            swizzle: Swizzle::new(1, 1, 1),
            layout: &bad,
        }),
        Atom::Tcgen05(Tcgen05Input { is_arch_cond: true, ..Tcgen05Input::new(0x42) }),
        Atom::Tcgen05(Tcgen05Input::new(0xE2)),
        Atom::Ldsm(LdsmTuple {
            mode: LdsmMode::MT1616,
            size: SizePattern::U8,
            num_matrices: 2,
            transpose: true,
            result_shape: &[4],
        }),
        Atom::Ldsm(LdsmTuple {
            mode: LdsmMode::MT1616,
            size: SizePattern::U8,
            num_matrices: 4,
            transpose: true,
            result_shape: &[4],
        }),
        Atom::RegisterFragment { layout: &frag, register_count: 4 },
        Atom::RegisterFragment { layout: &frag, register_count: 5 },
        Atom::SwizzleCommutation { swizzle: Swizzle::SW64, offset: 48 },
        Atom::Tma { mode: TmaMode::Im2colW128, rank: 4, target: t },
        Atom::Tma { mode: TmaMode::Scatter4, rank: 4, target: t },
    ];
    let mut outcomes = Vec::with_capacity(atoms.len());
    let n = allocations(|| {
        for a in &atoms {
            outcomes.push(verify(a).is_ok());
        }
    });
    assert_eq!(n, 0, "the verifiers allocated {n} times");
    assert_eq!(outcomes, [true, false, false, true, false, true, false, true, false, false, true, false]);
    // Rendering a message does allocate: the counter works.
    let e = verify(&atoms[2]).unwrap_err();
    assert!(allocations(|| assert_eq!(e.message(), "unsupported swizzle, got Sw<1,1,1>")) > 0);
}
