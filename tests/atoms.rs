//! The matrix-atom verifiers through the Rust API: the seed's worked examples,
//! every tcgen05 ladder rule and UMMA string firing and near-missing, ladder
//! order, the LDSM/STSM tables, CUTLASS's canonical UMMA atoms, and the
//! TMA/SM120/swizzle gates.

use irlint::atoms::diag::Msg;
use irlint::atoms::tcgen05::{ladder, select_opcode};
use irlint::atoms::*;

fn msg<T: std::fmt::Debug>(r: Result<T, AtomDiag>) -> String {
    match r {
        Ok(v) => panic!("expected a diagnostic, got Ok({v:?})"),
        Err(e) => e.to_string(),
    }
}

// ------------------------------------------------------------------ seed strings

/// The seed's strings, copied independently of `SEED_MESSAGES`, in seed order.
const SEED_TEXT: [&str; 20] = [
    "unsupported swizzle, got ",
    "Not a canonical UMMA_MN Layout: Expected K-size 256/sizeof_bits<T> or 512/sizeof_bits(T) in sparse gemm kernels.",
    "Not a canonical UMMA_MN Layout: No flat offset mode",
    "Not a canonical UMMA_MN Layout: Expected stride failure.",
    "Not a canonical UMMA_K Layout: Expected MN-size multiple of ",
    "Not a canonical UMMA_K Layout: No flat offset mode",
    "Not a canonical UMMA_K Layout: Expected stride failure.",
    "INT8 type is supported only on arch-conditional variants.",
    "MXF4 and MXF4NVF4 types with Sparsity are supported only on arch-conditional variants.",
    "Explicit scale vector size is supported only on arch-conditional variants.",
    "Scale input accumulator is not supported on this architecture.",
    "Scale input accumulator can only be used with f16 and tf32 types",
    "Block scale is not supported for f16, tf32, f8f6f4, and i8 types",
    "ashift is not supported with tcgen05.mma.block_scale variants",
    "cta_group::2 is not supported with weight stationary",
    "Cannot use weight stationary with mxf8f6f4 and fp4 types",
    "Cannot use collector::a::use or colletor::a::fill with ashift",
    "Cannot use 2X or 4X as scale vector size for mxf8f6f4 type",
    "Cannot use 1X as scale vector size for mxf4nvf4 type",
    "Cannot use 1X or 4X as scale vector size for mxf4 type",
];

#[test]
fn seed_strings_are_byte_exact() {
    for (i, ((m, rule, text), want)) in SEED_MESSAGES.iter().zip(SEED_TEXT).enumerate() {
        assert_eq!(text.as_bytes(), want.as_bytes(), "string {i}");
        assert_eq!(m.text(), want);
        assert_eq!(m.rule(), *rule);
        let want_rule = if i < 7 { AtomRule::UmmaCanonicalLayout } else { AtomRule::Tcgen05Kind };
        assert_eq!(*rule, want_rule);
    }
    for n in 1..=13u8 {
        assert_eq!(SeedMsg::tcgen05_rule(n).map(SeedMsg::text), Some(SEED_TEXT[6 + usize::from(n)]));
    }
    // Appended values: nothing else around them.
    let d = AtomDiag { rule: AtomRule::UmmaCanonicalLayout, msg: Msg::MnSizeMultiple(8) };
    assert_eq!(d.to_string(), format!("{}8.", SEED_TEXT[4]));
    let d = AtomDiag { rule: AtomRule::UmmaCanonicalLayout, msg: Msg::UnsupportedSwizzle(Swizzle::new(2, 5, 2)) };
    assert_eq!(d.to_string(), format!("{}Sw<2,5,2>", SEED_TEXT[0]));
}

#[test]
fn docs_diagnostics_lists_every_seed_string_verbatim() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md")).unwrap();
    for (_, rule, text) in SEED_MESSAGES {
        // Each string appears in a table row as `text` (between backticks, trailing space kept).
        let quoted = format!("`{text}`");
        let row = doc.lines().find(|l| l.contains(&quoted) && l.contains(rule.id()));
        assert!(row.is_some(), "docs/diagnostics.md lacks {quoted} for {}", rule.id());
    }
}

// ------------------------------------------------------------------ tcgen05

fn tc(raw: u16) -> Tcgen05Input {
    Tcgen05Input::new(raw)
}

fn arch(raw: u16) -> Tcgen05Input {
    Tcgen05Input { is_arch_cond: true, ..Tcgen05Input::new(raw) }
}

/// A word from fields (bit 0 ws, 1 cta_group::2, 2-3 scale vector, 4 sia, 5 block scale, 6-8 kind).
fn word(kind: MmaKind, ws: bool, cta2: bool, sv: u16, sia: bool, bs: bool) -> u16 {
    KindWord {
        ws,
        cta_group_2: cta2,
        scale_vec: [None, Some(ScaleVec::X1), Some(ScaleVec::X2), Some(ScaleVec::X4)][sv as usize],
        scale_input_acc: sia,
        block_scale: bs,
        kind,
    }
    .raw()
}

#[test]
fn worked_examples() {
    assert_eq!(msg(verify_tcgen05(&tc(0x42))), "INT8 type is supported only on arch-conditional variants.");
    assert_eq!(verify_tcgen05(&arch(0x42)), Ok(10522));
    let e = verify_tcgen05(&tc(0xE2)).unwrap_err();
    assert_eq!(e.rule.id(), "atom-tcgen05-kind");
    assert_eq!(e.to_string(), "Block scale is not supported for f16, tf32, f8f6f4, and i8 types");
    assert_eq!(e.msg, Msg::Seed(SeedMsg::Tcgen05Rule6));
    // 0x42 decodes as in the worked example (bit 1 = cta_group::2, kind 1 = i8).
    let w = KindWord::decode(0x42).unwrap();
    assert_eq!((w.ws, w.cta_group_2, w.scale_vec, w.block_scale, w.kind), (false, true, None, false, MmaKind::I8));
    assert_eq!(w.raw(), 0x42);
}

/// Each ladder rule: a firing input and a near miss (one field changed) that passes.
#[test]
fn every_ladder_rule_fires_and_has_a_near_miss() {
    use MmaKind::*;
    let sm = |t: &str| Target::parse(t).unwrap();
    let cases: Vec<(u8, Tcgen05Input, Tcgen05Input)> = vec![
        (1, tc(word(I8, false, false, 0, false, false)), arch(word(I8, false, false, 0, false, false))),
        (
            2,
            Tcgen05Input { sparse: true, ..tc(word(Mxf4, false, false, 0, false, true)) },
            Tcgen05Input { sparse: false, ..tc(word(Mxf4, false, false, 0, false, true)) },
        ),
        (3, tc(word(Mxf4, false, false, 2, false, true)), arch(word(Mxf4, false, false, 2, false, true))),
        (
            4,
            Tcgen05Input { isa: sm("sm_110a"), ..arch(word(F16, false, false, 0, true, false)) },
            Tcgen05Input { isa: sm("sm_103f"), ..arch(word(F16, false, false, 0, true, false)) },
        ),
        (5, arch(word(F8f6f4, false, false, 0, true, false)), arch(word(Tf32, false, false, 0, true, false))),
        (6, arch(word(Tf32, false, false, 0, false, true)), arch(word(Mxf8f6f4, false, false, 0, false, true))),
        (
            7,
            Tcgen05Input { collector: 4, ..arch(word(Mxf8f6f4, false, false, 0, false, true)) },
            Tcgen05Input {
                collector: 4,
                block_scale_opcode: false,
                ..arch(word(Mxf8f6f4, false, false, 0, false, false))
            },
        ),
        (8, arch(word(F16, true, true, 0, false, false)), arch(word(F16, true, false, 0, false, false))),
        (9, arch(word(Mxf4nvf4, true, false, 3, false, true)), arch(word(F8f6f4, true, false, 0, false, false))),
        (
            10,
            Tcgen05Input { collector: 4 | 2, ..arch(word(F16, false, false, 0, false, false)) },
            Tcgen05Input { collector: 4 | 1, ..arch(word(F16, false, false, 0, false, false)) },
        ),
        (11, arch(word(Mxf8f6f4, false, false, 2, false, true)), arch(word(Mxf8f6f4, false, false, 1, false, true))),
        (12, arch(word(Mxf4nvf4, false, false, 1, false, true)), arch(word(Mxf4nvf4, false, false, 3, false, true))),
        (13, arch(word(Mxf4, false, false, 3, false, true)), arch(word(Mxf4, false, false, 2, false, true))),
    ];
    assert_eq!(cases.len(), 13);
    for (rule, fire, near) in cases {
        let want = SeedMsg::tcgen05_rule(rule).unwrap().text();
        assert_eq!(msg(verify_tcgen05(&fire)), want, "rule {rule} should fire on {fire:?}");
        let ok = verify_tcgen05(&near);
        assert!(matches!(ok, Ok(10521 | 10522)), "rule {rule} near miss {near:?} gave {ok:?}");
    }
}

#[test]
fn ladder_is_fail_first_in_seed_order() {
    use MmaKind::*;
    // i8 + block scale + ws + cta2: rules 1, 6, 8 all apply; 1 wins, then 6, then 8.
    let w = word(I8, true, true, 0, false, true);
    assert_eq!(ladder(&KindWord::decode(w).unwrap(), &tc(w)), 1);
    assert_eq!(ladder(&KindWord::decode(w).unwrap(), &arch(w)), 6);
    let w = word(F16, true, true, 0, false, false);
    assert_eq!(ladder(&KindWord::decode(w).unwrap(), &arch(w)), 8);
    // Rule 3 masks rules 7 and 10 (the seed's QUIRK example).
    let w = word(Mxf4, false, false, 3, false, true);
    let i = Tcgen05Input { collector: 6, ..tc(w) };
    assert_eq!(msg(verify_tcgen05(&i)), SeedMsg::Tcgen05Rule3.text());
    let i = Tcgen05Input { is_arch_cond: true, ..i };
    assert_eq!(msg(verify_tcgen05(&i)), SeedMsg::Tcgen05Rule7.text());
    let i = Tcgen05Input { block_scale_opcode: false, ..i };
    assert_eq!(msg(verify_tcgen05(&i)), SeedMsg::Tcgen05Rule10.text());
    let i = Tcgen05Input { collector: 0, ..i };
    assert_eq!(msg(verify_tcgen05(&i)), SeedMsg::Tcgen05Rule13.text());
    // Rule 4 before 5: scale-input-acc with i8 on sm_110a.
    let w = word(I8, false, false, 0, true, false);
    let i = Tcgen05Input { isa: Target::parse("sm_110a").unwrap(), ..arch(w) };
    assert_eq!(msg(verify_tcgen05(&i)), SeedMsg::Tcgen05Rule4.text());
    assert_eq!(msg(verify_tcgen05(&arch(w))), SeedMsg::Tcgen05Rule5.text());
    // Every input: the reported rule is the first of the 13 predicates (restated here from
    // ptx-atoms.md §2.1) that holds, over all words, collectors, sparsity and arch flags.
    let mut fired = [0u32; 14];
    for raw in 0..0x200u16 {
        let Ok(w) = KindWord::decode(raw) else { continue };
        for collector in 0..8u8 {
            for (sparse, is_arch_cond) in [(false, false), (true, false), (false, true), (true, true)] {
                let i = Tcgen05Input { collector, sparse, is_arch_cond, ..tc(raw) };
                let sv = (raw >> 2) & 3;
                let k = w.kind;
                let preds = [
                    k == I8 && !is_arch_cond,
                    matches!(k, Mxf4 | Mxf4nvf4) && sparse && !is_arch_cond,
                    sv != 0 && !is_arch_cond,
                    false, // sm_100a: scale-input-acc is allowed
                    raw & 0x10 != 0 && !matches!(k, F16 | Tf32),
                    raw & 0x20 != 0 && matches!(k, I8 | F16 | Tf32 | F8f6f4),
                    raw & 0x20 != 0 && collector & 4 != 0,
                    raw & 3 == 3,
                    raw & 1 != 0 && matches!(k, Mxf8f6f4 | Mxf4 | Mxf4nvf4),
                    collector & 6 == 6,
                    k == Mxf8f6f4 && sv >= 2,
                    k == Mxf4nvf4 && sv <= 1,
                    k == Mxf4 && (sv == 1 || sv == 3),
                ];
                let want = preds.iter().position(|p| *p).map_or(0, |p| p as u8 + 1);
                let got = ladder(&w, &i);
                assert_eq!(got, want, "raw {raw:#x} collector {collector} sparse {sparse} arch {is_arch_cond}");
                fired[usize::from(got)] += 1;
            }
        }
    }
    // Every rule but 4 (not reachable on sm_100a) is the first to fire somewhere.
    for (rule, n) in fired.iter().enumerate().skip(1) {
        assert_eq!(*n == 0, rule == 4, "rule {rule} fired first {n} times");
    }
}

#[test]
fn kind_word_decoding_and_opcodes() {
    assert_eq!(
        KindWord::decode(0x200).unwrap_err().to_string(),
        "`raw` is 0x200, expected a 9-bit word (at most 0x1ff)"
    );
    assert_eq!(msg(verify_tcgen05(&tc(6 << 6))), "`mma_kind (raw bits 6-8)` is 6, expected 0-5 or 7 (6 is not a kind)");
    assert_eq!(
        msg(verify_tcgen05(&Tcgen05Input { collector: 9, ..arch(0xC0) })),
        "`collector` is 9, expected 0-7 (bit 2 ashift, bits 0-1 collector::a mode)"
    );
    for raw in 0..0x200u16 {
        if let Ok(w) = KindWord::decode(raw) {
            assert_eq!(w.raw(), raw);
        }
    }
    // f16 dense, both opcodes groups.
    assert_eq!(verify_tcgen05(&arch(0xC0)), Ok(10522));
    assert_eq!(verify_tcgen05(&Tcgen05Input { a_tmem: true, ..arch(0xC0) }), Ok(10527));
    assert_eq!(verify_tcgen05(&arch(word(MmaKind::Mxf8f6f4, false, false, 0, false, true))), Ok(10521));
    assert_eq!(select_opcode(true, true, OperandForm::Plain), 10526);
    assert_eq!(select_opcode(false, false, OperandForm::DisableOutputLane4), 10523);
    assert_eq!(select_opcode(false, false, OperandForm::DisableOutputLane8), 10524);
    assert_eq!(select_opcode(false, true, OperandForm::WsZeroColumnMask), 10530);
    // .block16 on mxf4nvf4 = 4X: rule 12 does not fire when the caller says so.
    let w = word(MmaKind::Mxf4nvf4, false, false, 0, false, true);
    assert_eq!(msg(verify_tcgen05(&arch(w))), SeedMsg::Tcgen05Rule12.text());
    assert_eq!(verify_tcgen05(&Tcgen05Input { implicit_scale_vec: Some(ScaleVec::X4), ..tc(w) }), Ok(10521));
    // mxf4 without a vector size defaults to 2X (valid).
    assert_eq!(verify_tcgen05(&tc(word(MmaKind::Mxf4, false, false, 0, false, true))), Ok(10521));
}

// ------------------------------------------------------------------ LDSM / STSM

#[test]
fn ldsm_rows_accept_exactly_their_combinations() {
    type Row = (LdsmMode, &'static [u32], &'static [SizePattern], bool, u64);
    let rows: [Row; 5] = [
        (LdsmMode::M88, &[1, 2, 4], &[SizePattern::U16], false, 1),
        (LdsmMode::MT88, &[1, 2, 4], &[SizePattern::U16], true, 1),
        (
            LdsmMode::M816,
            &[1, 2, 4],
            &[SizePattern::U4To8, SizePattern::S4To8, SizePattern::U4x16P64To8, SizePattern::U6x16P32To8],
            false,
            1,
        ),
        (LdsmMode::M832, &[1, 2, 4], &[SizePattern::U2To4, SizePattern::S2To4], false, 1),
        (LdsmMode::MT1616, &[1, 2], &[SizePattern::U8, SizePattern::U4x16P64To8, SizePattern::U6x16P32To8], true, 2),
    ];
    let mut accepted = 0;
    for (mode, counts, sizes, transpose, per) in rows {
        for &size in SizePattern::ALL {
            for num in 0..=5u32 {
                for tr in [false, true] {
                    let good = counts.contains(&num) && sizes.contains(&size) && tr == transpose;
                    let shape = [u64::from(num) * per];
                    let r =
                        verify_ldsm(&LdsmTuple { mode, size, num_matrices: num, transpose: tr, result_shape: &shape });
                    if good {
                        assert_eq!(r, Ok(shape[0]), "{mode} {size} x{num} trans={tr}");
                        accepted += 1;
                        // The wrong extent and a rank-2 shape are rejected.
                        let bad = [shape[0] + 1];
                        let e = verify_ldsm(&LdsmTuple {
                            result_shape: &bad,
                            mode,
                            size,
                            num_matrices: num,
                            transpose: tr,
                        })
                        .unwrap_err();
                        assert_eq!(e.rule, AtomRule::LdsmMode);
                        assert!(e.to_string().starts_with("`result_shape[0]` is"), "{e}");
                        let two = [shape[0], 1];
                        let e = verify_ldsm(&LdsmTuple {
                            result_shape: &two,
                            mode,
                            size,
                            num_matrices: num,
                            transpose: tr,
                        })
                        .unwrap_err();
                        assert_eq!(e.to_string(), "`result_shape rank` is 2, expected 1");
                    } else {
                        assert_eq!(r.map_err(|e| e.rule), Err(AtomRule::LdsmMode), "{mode} {size} x{num} trans={tr}");
                    }
                }
            }
        }
    }
    // 3 counts x (1 + 1 + 4 + 2) sizes + 2 counts x 3 sizes.
    assert_eq!(accepted, 3 * 8 + 2 * 3);
}

#[test]
fn ldsm_messages_name_field_value_and_accepted_set_in_order() {
    let t = |mode, size, num, transpose| LdsmTuple { mode, size, num_matrices: num, transpose, result_shape: &[2] };
    let m = |t: LdsmTuple<'_>| msg(verify_ldsm(&t));
    assert_eq!(m(t(LdsmMode::M88, SizePattern::U8, 3, true)), "`num_matrices` is 3, expected 1, 2 or 4");
    assert_eq!(
        m(t(LdsmMode::MT1616, SizePattern::U16, 4, false)),
        "`num_matrices` is 4, expected 1 or 2 for mode MT1616"
    );
    assert_eq!(m(t(LdsmMode::M88, SizePattern::U8, 2, true)), "`transpose` is true, expected false for mode M88");
    assert_eq!(m(t(LdsmMode::M832, SizePattern::U8, 2, false)), "`size` is u8, expected u2to4 or s2to4");
    assert_eq!(
        m(t(LdsmMode::MT1616, SizePattern::U8, 2, true)),
        "`result_shape[0]` is 2, expected 4 (num_matrices × registers per matrix)"
    );
}

#[test]
fn stsm_rows_including_16x8() {
    let rows: [(StsmMode, SizePattern, bool); 3] = [
        (StsmMode::M88, SizePattern::U16, false),
        (StsmMode::MT88, SizePattern::U16, true),
        (StsmMode::MT168, SizePattern::U8, true),
    ];
    for (mode, good_size, transpose) in rows {
        for &size in SizePattern::ALL {
            for num in [1u32, 2, 3, 4, 8] {
                for tr in [false, true] {
                    let shape = [u64::from(num)];
                    let r =
                        verify_stsm(&StsmTuple { mode, size, num_matrices: num, transpose: tr, result_shape: &shape });
                    let good = size == good_size && tr == transpose && matches!(num, 1 | 2 | 4);
                    assert_eq!(r.is_ok(), good, "{mode} {size} x{num} trans={tr}: {r:?}");
                    if let Err(e) = r {
                        assert_eq!(e.rule, AtomRule::StsmMode);
                    }
                }
            }
        }
    }
    assert_eq!(StsmMode::parse(".MT168"), Some(StsmMode::MT168));
    assert_eq!(StsmMode::parse("MT1616"), None);
}

#[test]
fn matrix_copy_checks_spaces_mode_shape_alignment_in_order() {
    let load = MatrixCopy {
        direction: CopyDirection::Load,
        src: MemSpace::Shared,
        dst: MemSpace::Register,
        mode: CopyMode::Ldsm(LdsmMode::MT1616),
        num_matrices: 2,
        result_shape: &[4],
        shared_alignment: 128,
    };
    assert_eq!(verify_matrix_copy(&load), Ok(4));
    let store = MatrixCopy {
        direction: CopyDirection::Store,
        src: MemSpace::Register,
        dst: MemSpace::Shared,
        mode: CopyMode::Stsm(StsmMode::MT168),
        num_matrices: 4,
        result_shape: &[4],
        shared_alignment: 16,
    };
    assert_eq!(verify_matrix_copy(&store), Ok(4));
    let cases: Vec<(MatrixCopy<'_>, &str)> = vec![
        (MatrixCopy { src: MemSpace::Global, ..load }, "`src` is global, expected shared for a load"),
        (MatrixCopy { dst: MemSpace::Generic, ..load }, "`dst` is generic, expected register for a load"),
        (MatrixCopy { src: MemSpace::Shared, ..store }, "`src` is shared, expected register for a store"),
        (MatrixCopy { dst: MemSpace::Register, ..store }, "`dst` is register, expected shared for a store"),
        (
            MatrixCopy { mode: CopyMode::Stsm(StsmMode::M88), ..load },
            "`mode` is M88, expected an ldmatrix mode for a load",
        ),
        (
            MatrixCopy { mode: CopyMode::Ldsm(LdsmMode::M88), ..store },
            "`mode` is M88, expected an stmatrix mode for a store",
        ),
        (MatrixCopy { num_matrices: 4, ..load }, "`num_matrices` is 4, expected 1 or 2"),
        (
            MatrixCopy { result_shape: &[2], ..load },
            "`result_shape[0]` is 2, expected 4 (num_matrices × registers per matrix)",
        ),
        (
            MatrixCopy { shared_alignment: 8, ..load },
            "`shared_alignment` is 8, expected a multiple of 16 bytes (16-byte row addresses)",
        ),
        (
            MatrixCopy { shared_alignment: 0, ..store },
            "`shared_alignment` is 0, expected a multiple of 16 bytes (16-byte row addresses)",
        ),
        // Spaces are checked before the alignment.
        (
            MatrixCopy { src: MemSpace::Generic, shared_alignment: 4, ..load },
            "`src` is generic, expected shared for a load",
        ),
    ];
    for (c, want) in cases {
        let e = verify_matrix_copy(&c).unwrap_err();
        assert_eq!((e.rule, e.to_string().as_str()), (AtomRule::MatrixCopy, want));
    }
}

#[test]
fn register_fragment_uses_cosize() {
    let l = Layout::parse("(2,2):(1,2)").unwrap();
    assert_eq!(verify_register_fragment(&l, 4), Ok(4));
    let e = verify_register_fragment(&l, 3).unwrap_err();
    assert_eq!(e.rule, AtomRule::RegisterFragment);
    assert_eq!(e.to_string(), "`register_count` is 3, expected 4 (the cosize of the layout)");
    // A strided fragment: cosize, not size.
    let l = Layout::parse("(2,2):(1,4)").unwrap();
    assert_eq!((l.size(), l.cosize()), (4, 6));
    assert_eq!(verify_register_fragment(&l, 6), Ok(6));
    assert!(verify_register_fragment(&l, 4).is_err());
}

// ------------------------------------------------------------------ layout

#[test]
fn layout_parse_print_size_cosize() {
    let l = Layout::parse("(8,64):(64,1)").unwrap();
    assert_eq!((l.rank(), l.size(), l.cosize()), (2, 512, 512));
    assert_eq!(l.mode(0), &[Leaf { shape: 8, stride: 64 }]);
    assert_eq!(l.to_string(), "(8,64):(64,1)");
    let l = Layout::parse(" ( (8 ,16), 16 ) : ((64,512),1) ").unwrap();
    assert_eq!(l.to_string(), "((8,16),16):((64,512),1)");
    assert_eq!(l.mode(0), &[Leaf { shape: 8, stride: 64 }, Leaf { shape: 16, stride: 512 }]);
    assert_eq!((l.mode_size(0), l.mode_size(1), l.size(), l.cosize()), (128, 16, 2048, 7 * 64 + 15 * 512 + 15 + 1));
    let s = Layout::parse("((_8,_16),_16):((_64,_512),_1)").unwrap();
    assert_eq!(s, l);
    // Scalar layouts, default column-major strides.
    let l = Layout::parse("8:1").unwrap();
    assert_eq!((l.rank(), l.size(), l.cosize()), (1, 8, 8));
    let l = Layout::parse("(4,(2,3))").unwrap();
    assert_eq!(l.to_string(), "(4,(2,3)):(1,(4,8))");
    assert_eq!(l.cosize(), 24);
    // Flatten keeps the leaves and the functions.
    let f = Layout::parse("((8,16),16):((64,512),1)").unwrap().flatten();
    assert_eq!(f.to_string(), "(8,16,16):(64,512,1)");
    assert_eq!((f.rank(), f.size(), f.cosize()), (3, 2048, 8144));
}

#[test]
fn layout_errors() {
    let e = |s: &str| Layout::parse(s).unwrap_err().to_string();
    assert_eq!(e("(8,64):(64)"), "shape (8,64) and stride (64) are not congruent");
    assert_eq!(e("(8,64"), "bad layout at byte 5: `,` or `)`");
    assert_eq!(e("(8,x)"), "bad layout at byte 3: an integer or `(`");
    assert_eq!(e("8:1 junk"), "bad layout at byte 4: end of layout");
    assert_eq!(e("(8,0):(1,8)"), "a shape extent is 0");
    assert_eq!(e("(8,-1):(1,8)"), "bad layout at byte 3: an integer or `(`");
    assert_eq!(e("99999999999999999999:1"), "layout size overflows 64 bits");
    assert_eq!(e("(4294967296,4294967296):(1,4294967296)"), "layout size overflows 64 bits");
    let deep = format!("{}8{}", "(".repeat(20), ")".repeat(20));
    assert!(e(&deep).contains("too large"));
    let wide = format!("({})", vec!["1"; 129].join(","));
    assert!(e(&wide).contains("too large"));
    assert!(e("").contains("byte 0"));
}

#[test]
fn recast_to_16_byte_units() {
    // f16 (8 per unit): K-major SW128 MMA slice.
    let l = Layout::parse("((8,16),16):((64,512),1)").unwrap();
    assert_eq!(l.recast_16b(16).unwrap().to_string(), "((8,16),2):((8,64),1)");
    // 4-bit (32 per unit), stride 0 kept, extent-1 leaves dropped, sub-unit stride 2.
    let l = Layout::parse("((64,1),(4,8)):((1,7),(0,2))").unwrap();
    assert_eq!(l.recast_16b(4).unwrap().to_string(), "(2,4):(1,0)");
    // A stride that is not expressible in units.
    assert_eq!(Layout::parse("(8,8):(3,24)").unwrap().recast_16b(16), None);
    assert_eq!(Layout::parse("(8,8):(1,8)").unwrap().recast_16b(64), None);
    // tf32 MN-major SW128 atom.
    assert_eq!(Layout::parse("(32,8):(1,32)").unwrap().recast_16b(32).unwrap().to_string(), "(8,8):(1,8)");
}

// ------------------------------------------------------------------ UMMA

fn umma(direction: UmmaDirection, elem_bits: u32, swizzle: Swizzle, layout: &str) -> Result<UmmaShape, AtomDiag> {
    let layout = Layout::parse(layout).unwrap();
    verify_umma(&UmmaInput { direction, elem_bits, swizzle, layout: &layout })
}

/// CuTe `tile_to_shape` of a 2-D atom `(a0,a1):(d0,d1)` (compact, cosize a0*a1)
/// to `(m, k)`, column-major over the atom grid.
fn tile(atom: (u64, u64, u64, u64), m: u64, k: u64) -> String {
    let (a0, a1, d0, d1) = atom;
    let (r0, r1) = (m / a0, k / a1);
    let cos = a0 * a1;
    let mode =
        |a: u64, d: u64, r: u64, rd: u64| if r == 1 { format!("{a}:{d}") } else { format!("({a},{r}):({d},{rd})") };
    let (s0, st0) = split(&mode(a0, d0, r0, cos));
    let (s1, st1) = split(&mode(a1, d1, r1, cos * r0));
    format!("({s0},{s1}):({st0},{st1})")
}

fn split(m: &str) -> (String, String) {
    let (a, b) = m.split_once(':').unwrap();
    (a.to_string(), b.to_string())
}

const SWIZZLES: [(Swizzle, u64, &str); 4] =
    [(Swizzle::NONE, 1, "INTER"), (Swizzle::SW32, 2, "SW32"), (Swizzle::SW64, 4, "SW64"), (Swizzle::SW128, 8, "SW128")];

#[test]
fn umma_accepts_every_cutlass_canonical_atom_tiled_to_mma_shapes() {
    let mut checked = 0;
    for bits in [4u32, 8, 16, 32] {
        let t = 128 / u64::from(bits); // elements per 16-byte unit
        let kmma = 256 / u64::from(bits); // one MMA-K: 32 bytes
        for (sw, w, name) in SWIZZLES {
            // Layout_MN_<name>_Atom<T>: (W*T, 8):(1, W*T).
            let mn_atom = (w * t, 8, 1, w * t);
            for m in [64u64, 128, 256] {
                if m % (w * t) != 0 {
                    continue;
                }
                for k in [kmma, 2 * kmma] {
                    let l = tile(mn_atom, m, k);
                    let got = umma(UmmaDirection::Mn, bits, sw, &l);
                    assert_eq!(
                        got,
                        Ok(UmmaShape { elem_class: (bits.trailing_zeros() - 2) as u8, k_size: k, mn_size: m }),
                        "Layout_MN_{name}_Atom<{bits}-bit> tiled to ({m},{k}) = {l}"
                    );
                    checked += 1;
                }
            }
            // Layout_K_<name>_Atom<T>: (8, W*T):(W*T, 1); the per-MMA slice takes the first
            // kmma elements of K (tiling the atom along K first when it is narrower).
            let kw = w * t;
            for m in [64u64, 128, 256] {
                let full_k = kw.max(kmma);
                let l = tile((8, kw, kw, 1), m, full_k);
                assert!(
                    umma(UmmaDirection::K, bits, sw, &l).is_ok(),
                    "Layout_K_{name}_Atom<{bits}-bit> to ({m},{full_k}) = {l}"
                );
                let slice =
                    if kw >= kmma { format!("((8,{}),{kmma}):(({kw},{}),1)", m / 8, 8 * kw) } else { l.clone() };
                let got = umma(UmmaDirection::K, bits, sw, &slice);
                assert_eq!(
                    got.map(|s| (s.k_size, s.mn_size)),
                    Ok((kmma, m)),
                    "Layout_K_{name}_Atom<{bits}-bit> MMA slice ({m},{kmma}) = {slice}"
                );
                checked += 2;
            }
        }
        // Layout_MN_SW128_32B_Atom (sm100): 1024 bits x 4 rows, Swizzle<2,5,2>.
        let a0 = 1024 / u64::from(bits);
        let l = tile((a0, 4, 1, a0), 256.max(a0), kmma);
        assert!(umma(UmmaDirection::Mn, bits, Swizzle::SW128_BASE32B, &l).is_ok(), "SW128_32B {bits}-bit {l}");
    }
    assert!(checked > 100, "{checked}");
    // The issue's own example and a pipeline tile from the CUTLASS comment.
    assert!(umma(UmmaDirection::K, 16, Swizzle::SW128, "((8,16),16):((64,512),1)").is_ok());
    assert!(umma(UmmaDirection::K, 16, Swizzle::SW128, "((8,16),(64,1)):((64,512),(1,0))").is_ok());
    assert_eq!(
        umma(UmmaDirection::Mn, 16, Swizzle::SW128, "((64,2),(8,2)):((1,512),(64,1024))"),
        Ok(UmmaShape { elem_class: 2, k_size: 16, mn_size: 128 })
    );
    // The seed's (0,2,5) identity triple selects no swizzle.
    assert!(umma(UmmaDirection::K, 16, Swizzle::new(0, 2, 5), "((8,16),(8,2)):((8,64),(1,1024))").is_ok());
}

#[test]
fn umma_seven_strings_fire_with_near_misses() {
    use UmmaDirection::*;
    let fire = |d, bits, sw, l: &str| msg(umma(d, bits, sw, l));
    // 1. unsupported swizzle (near miss: the same layout with Sw<3,4,3>).
    let k_sw128 = "((8,16),16):((64,512),1)";
    assert_eq!(fire(K, 16, Swizzle::new(3, 3, 3), k_sw128), "unsupported swizzle, got Sw<3,3,3>");
    assert_eq!(fire(K, 16, Swizzle::SW128_BASE32B, k_sw128), "unsupported swizzle, got Sw<2,5,2>");
    assert!(umma(K, 16, Swizzle::SW128, k_sw128).is_ok());
    // 2. MN K-size (near misses: 16 dense, 32 sparse).
    let mn = |k: u64| tile((64, 8, 1, 64), 128, k);
    assert_eq!(fire(Mn, 16, Swizzle::SW128, &mn(24)), SeedMsg::UmmaMnKSize.text());
    assert_eq!(fire(Mn, 16, Swizzle::SW128, &mn(8)), SeedMsg::UmmaMnKSize.text());
    assert!(umma(Mn, 16, Swizzle::SW128, &mn(16)).is_ok());
    assert!(umma(Mn, 16, Swizzle::SW128, &mn(32)).is_ok());
    // 3. MN no flat offset: the 8-unit MN atom straddles a stride change.
    assert_eq!(
        fire(Mn, 16, Swizzle::SW128, "((32,2,2),(8,2)):((1,4096,512),(64,1024))"),
        SeedMsg::UmmaMnNoFlatOffset.text()
    );
    assert_eq!(
        fire(Mn, 16, Swizzle::SW128, "((64,2),(4,2,2)):((1,512),(64,1000,2000))"),
        SeedMsg::UmmaMnNoFlatOffset.text()
    );
    assert!(umma(Mn, 16, Swizzle::SW128, "((64,2),(8,2)):((1,512),(64,1000))").is_ok());
    assert!(umma(Mn, 16, Swizzle::SW128, "((32,2,2),(8,2)):((1,32,512),(64,1024))").is_ok());
    // MN extent smaller than the swizzle atom.
    assert_eq!(fire(Mn, 16, Swizzle::SW128, "(32,(8,2)):(1,(64,512))"), SeedMsg::UmmaMnNoFlatOffset.text());
    // 4. MN stride: K rows 32 elements apart under a 128-byte swizzle (near miss: SW64).
    assert_eq!(fire(Mn, 16, Swizzle::SW128, "((64,2),(8,2)):((1,512),(32,1024))"), SeedMsg::UmmaMnStride.text());
    assert!(umma(Mn, 16, Swizzle::SW128, "((64,2),(8,2)):((1,512),(64,1024))").is_ok());
    // Under a 64-byte swizzle the same 32-element pitch is canonical (with 32-element MN atoms).
    assert!(umma(Mn, 16, Swizzle::SW64, "((32,4),(8,2)):((1,256),(32,1024))").is_ok());
    assert_eq!(fire(Mn, 16, Swizzle::SW128, "((32,4),(8,2)):((1,256),(32,1024))"), SeedMsg::UmmaMnNoFlatOffset.text());
    // MN atom not unit-stride under a swizzle.
    assert_eq!(fire(Mn, 16, Swizzle::SW32, "((2,8),(8,2)):((32,512),(16,1024))"), SeedMsg::UmmaMnStride.text());
    // 5. K MN-size multiple of 8 (4 for 4-bit, the seed's table).
    assert_eq!(
        fire(K, 16, Swizzle::SW128, "(12,64):(64,1)"),
        "Not a canonical UMMA_K Layout: Expected MN-size multiple of 8."
    );
    assert_eq!(
        fire(K, 4, Swizzle::SW128, "(6,256):(256,1)"),
        "Not a canonical UMMA_K Layout: Expected MN-size multiple of 4."
    );
    assert!(umma(K, 16, Swizzle::SW128, "(16,64):(64,1)").is_ok());
    // 6. K no flat offset: MN rows in two runs (near miss: one run).
    assert_eq!(fire(K, 16, Swizzle::SW128, "((4,2,16),16):((64,4096,512),1)"), SeedMsg::UmmaKNoFlatOffset.text());
    assert!(umma(K, 16, Swizzle::SW128, "((4,2,16),16):((64,256,512),1)").is_ok());
    // 4-bit MN = 12 passes the seed's multiple-of-4 gate and fails flatness.
    assert_eq!(fire(K, 4, Swizzle::SW128, "(12,256):(256,1)"), SeedMsg::UmmaKNoFlatOffset.text());
    // K narrower than one 32-byte MMA-K.
    assert_eq!(fire(K, 16, Swizzle::SW128, "((8,16),8):((64,512),1)"), SeedMsg::UmmaKNoFlatOffset.text());
    // 7. K stride: rows 32 elements apart under SW128 (near miss: SW64), chunks not adjacent.
    let l = "((8,16),16):((32,512),1)";
    assert_eq!(fire(K, 16, Swizzle::SW128, l), SeedMsg::UmmaKStride.text());
    assert!(umma(K, 16, Swizzle::SW64, l).is_ok());
    assert_eq!(fire(K, 16, Swizzle::SW64, "((8,16),(8,2)):((32,512),(1,16))"), SeedMsg::UmmaKStride.text());
    assert!(umma(K, 16, Swizzle::NONE, "((8,16),(8,2)):((8,64),(1,1024))").is_ok());
    // A stride not expressible in 16-byte units reports the stride string.
    assert_eq!(fire(K, 16, Swizzle::SW128, "((8,16),16):((60,512),1)"), SeedMsg::UmmaKStride.text());
    // Own messages: element width, rank.
    assert_eq!(fire(K, 64, Swizzle::SW128, k_sw128), "`elem_bits` is 64, expected 4, 8, 16 or 32");
    assert_eq!(fire(K, 16, Swizzle::SW128, "(8,16,16):(64,1,128)"), "`layout rank` is 3, expected 2 (MN, K)");
    // The swizzle gate comes first.
    assert_eq!(fire(K, 64, Swizzle::new(1, 2, 3), "8:1"), "unsupported swizzle, got Sw<1,2,3>");
}

#[test]
fn umma_rejects_each_way_of_breaking_a_canonical_atom() {
    // For every canonical tiled layout: swapping the swizzle for another width, swapping the
    // direction, and doubling the row pitch are all rejected.
    for bits in [4u32, 8, 16, 32] {
        let t = 128 / u64::from(bits);
        let kmma = 256 / u64::from(bits);
        for (sw, w, name) in SWIZZLES {
            let kw = w * t;
            let k_ok = format!("((8,16),{kmma}):(({kw},{}),1)", 8 * kw);
            if kw >= kmma {
                assert!(umma(UmmaDirection::K, bits, sw, &k_ok).is_ok(), "{name} {bits}");
                for (other, _, oname) in SWIZZLES {
                    if other != sw {
                        let e = umma(UmmaDirection::K, bits, other, &k_ok).unwrap_err();
                        assert_eq!(e.msg, Msg::Seed(SeedMsg::UmmaKStride), "{name}->{oname} {bits}");
                    }
                }
                let pitch = format!("((8,16),{kmma}):(({},{}),1)", 2 * kw, 16 * kw);
                let e = umma(UmmaDirection::K, bits, sw, &pitch).unwrap_err();
                assert_eq!(e.msg, Msg::Seed(SeedMsg::UmmaKStride), "{name} pitch {bits}");
            }
            if sw != Swizzle::NONE {
                let mn_ok = tile((kw, 8, 1, kw), 128.max(kw), kmma);
                assert!(umma(UmmaDirection::Mn, bits, sw, &mn_ok).is_ok());
                let e = umma(UmmaDirection::K, bits, sw, &mn_ok).unwrap_err();
                assert!(
                    matches!(e.msg, Msg::Seed(SeedMsg::UmmaKStride | SeedMsg::UmmaKNoFlatOffset)),
                    "{name} {bits}: {e}"
                );
            }
        }
    }
}

// ------------------------------------------------------------------ SM120, swizzle, TMA

#[test]
fn sm120_lattice_table() {
    use ScaleFactorType::*;
    use Sm120Type::*;
    let p = |k, a, b, sf, svs, sfb| Sm120Input {
        k,
        a_type: a,
        b_type: b,
        sf_type: sf,
        scale_vector_size: svs,
        scale_fragment_bits: sfb,
    };
    let ok = [
        p(32, E4m3, E5m2, Ue8m0, 32, 8),
        p(32, E2m1, E3m2, Ue8m0, 32, 8),
        p(32, E2m3, E2m3, Ue8m0, 32, 8),
        p(64, E2m1, E2m1, Ue8m0, 32, 16),
        p(64, E2m1, E2m1, Ue4m3, 16, 32),
    ];
    for x in ok {
        assert_eq!(verify_sm120(&x), Ok(()), "{x:?}");
    }
    let bad: [(Sm120Input, &str); 9] = [
        (p(32, E4m3, E4m3, Ue8m0, 64, 8), "`scale_vector_size` is 64, expected 16 or 32"),
        (p(16, E4m3, E4m3, Ue8m0, 32, 8), "`k` is 16, expected 32 or 64"),
        (p(32, E4m3, E4m3, Ue4m3, 32, 8), "`sf_type` is ue4m3, expected ue8m0 when k is 32"),
        (p(32, E4m3, E4m3, Ue8m0, 16, 8), "`scale_vector_size` is 16, expected 32 when k is 32"),
        (p(32, E4m3, E4m3, Ue8m0, 32, 16), "`scale_fragment_bits` is 16, expected 8 when k is 32"),
        (p(64, E4m3, E2m1, Ue8m0, 32, 16), "`a_type` is e4m3, expected e2m1 when k is 64"),
        (p(64, E2m1, E3m2, Ue8m0, 32, 16), "`b_type` is e3m2, expected e2m1 when k is 64"),
        (
            p(64, E2m1, E2m1, Ue8m0, 32, 8),
            "`scale_fragment_bits` is 8, expected 16 (scale_fragment_bits × scale_vector_size = 512 when k is 64)",
        ),
        // Order: the vector size is checked before K.
        (p(48, E2m1, E2m1, Ue8m0, 8, 8), "`scale_vector_size` is 8, expected 16 or 32"),
    ];
    for (x, want) in bad {
        let e = verify_sm120(&x).unwrap_err();
        assert_eq!((e.rule, e.to_string().as_str()), (AtomRule::Sm120BlockScale, want));
    }
}

#[test]
fn swizzle_commutation_table() {
    let cases: [(Swizzle, i64, Result<u64, &str>); 12] = [
        (Swizzle::NONE, 16, Ok(0)),
        (Swizzle::NONE, 3, Ok(0)),
        (Swizzle::SW32, 256, Ok(256)),
        (Swizzle::SW32, 128, Err("`offset` is 128, expected a multiple of 256 bytes (the swizzle period) for the offset to commute with the swizzle")),
        (Swizzle::SW64, 1024, Ok(512)),
        (Swizzle::SW64, 32, Err("`offset` is 32, expected a multiple of 512 bytes (the swizzle period) for the offset to commute with the swizzle")),
        (Swizzle::SW128, -2048, Ok(1024)),
        (Swizzle::SW128, 0, Ok(1024)),
        (Swizzle::SW128, 512, Err("`offset` is 512, expected a multiple of 1024 bytes (the swizzle period) for the offset to commute with the swizzle")),
        (Swizzle::SW128_BASE32B, 512, Ok(512)),
        // Unknown modes never fold to identity, even with B = 0.
        (Swizzle::new(0, 3, 3), 16, Err("`swizzle` is Sw<0,3,3>, expected a known mode: Sw<0,4,3> (none), Sw<1,4,3> (32B), Sw<2,4,3> (64B), Sw<3,4,3> (128B) or Sw<2,5,2> (128B, 32B atoms)")),
        (Swizzle::new(3, 3, 3), 1024, Err("`swizzle` is Sw<3,3,3>, expected a known mode: Sw<0,4,3> (none), Sw<1,4,3> (32B), Sw<2,4,3> (64B), Sw<3,4,3> (128B) or Sw<2,5,2> (128B, 32B atoms)")),
    ];
    for (sw, off, want) in cases {
        let got = verify_swizzle_commutation(sw, off);
        match want {
            Ok(p) => assert_eq!(got, Ok(p), "{sw} {off}"),
            Err(m) => {
                let e = got.unwrap_err();
                assert_eq!((e.rule, e.to_string().as_str()), (AtomRule::SwizzleCommutation, m));
            }
        }
    }
    // The period condition is exact: brute force over base addresses.
    for sw in [Swizzle::SW32, Swizzle::SW64, Swizzle::SW128, Swizzle::SW128_BASE32B] {
        let apply = |x: u64| x ^ ((x >> sw.s) & (((1u64 << sw.b) - 1) << sw.m));
        for k in (0..4096u64).step_by(16) {
            let commutes = (0..8192u64).all(|x| apply(x) + k == apply(x + k));
            assert_eq!(commutes, verify_swizzle_commutation(sw, k as i64).is_ok(), "{sw} {k}");
        }
    }
}

#[test]
fn tma_rank_mode_table() {
    let t = |s: &str| Target::parse(s).unwrap();
    for mode in TmaMode::ALL {
        for rank in 0..=6u32 {
            let r = verify_tma(*mode, rank, t("sm_100a"));
            let good = match mode {
                TmaMode::Tile => (1..=5).contains(&rank),
                TmaMode::Im2col | TmaMode::Im2colW | TmaMode::Im2colW128 => (3..=5).contains(&rank),
                TmaMode::Scatter4 | TmaMode::Gather4 => rank == 2,
            };
            assert_eq!(r.is_ok(), good, "{mode} rank {rank}: {r:?}");
        }
    }
    let gate: [(TmaMode, u32, &str, bool); 12] = [
        (TmaMode::Im2colW, 3, "sm_90a", false),
        (TmaMode::Im2colW, 3, "sm_100", true),
        (TmaMode::Im2colW, 3, "sm_120", true),
        (TmaMode::Im2colW128, 4, "sm_120a", false),
        (TmaMode::Im2colW128, 4, "sm_100", false),
        (TmaMode::Im2colW128, 4, "sm_100f", true),
        (TmaMode::Im2colW128, 4, "sm_110a", true),
        (TmaMode::Scatter4, 2, "sm_103a", true),
        (TmaMode::Scatter4, 2, "sm_90a", false),
        (TmaMode::Gather4, 2, "sm_90a", false),
        (TmaMode::Tile, 5, "sm_90", true),
        (TmaMode::Im2col, 3, "sm_90", true),
    ];
    for (mode, rank, target, ok) in gate {
        assert_eq!(verify_tma(mode, rank, t(target)).is_ok(), ok, "{mode} {target}");
    }
    assert_eq!(msg(verify_tma(TmaMode::Tile, 6, t("sm_90"))), "`rank` is 6, expected 1 to 5");
    assert_eq!(msg(verify_tma(TmaMode::Im2col, 2, t("sm_90"))), "`rank` is 2, expected 3 to 5 for mode im2col");
    assert_eq!(msg(verify_tma(TmaMode::Scatter4, 3, t("sm_100a"))), "`rank` is 3, expected 2 for mode tile::scatter4");
    assert_eq!(
        msg(verify_tma(TmaMode::Im2colW128, 3, t("sm_120a"))),
        "`target` is sm_120a, expected sm_100a/f, sm_101a/f, sm_103a/f or sm_110a/f for mode im2col::w::128"
    );
    assert_eq!(
        msg(verify_tma(TmaMode::Im2colW, 3, t("sm_90a"))),
        "`target` is sm_90a, expected sm_100 or later for mode im2col::w"
    );
    // The rank gate comes before the target gate.
    assert_eq!(msg(verify_tma(TmaMode::Im2colW, 2, t("sm_90a"))), "`rank` is 2, expected 3 to 5 for mode im2col::w");
}

#[test]
fn targets_and_names() {
    assert_eq!(Target::parse("sm_100a"), Some(Target::new(100, Suffix::A)));
    assert_eq!(Target::parse("sm_120f").map(|t| t.to_string()).as_deref(), Some("sm_120f"));
    assert_eq!(Target::parse("sm_90"), Some(Target::new(90, Suffix::None)));
    assert_eq!(Target::parse("sm_"), None);
    assert_eq!(Target::parse("sm_10x"), None);
    assert_eq!(Target::parse("gfx90a"), None);
    assert_eq!(TmaMode::parse(".im2col::w::128"), Some(TmaMode::Im2colW128));
    assert_eq!(SizePattern::parse("u6x16p32to8"), Some(SizePattern::U6x16P32To8));
    assert_eq!(LdsmMode::parse(".MT1616"), Some(LdsmMode::MT1616));
    assert_eq!(MmaKind::parse("mxf4nvf4").map(|k| k.bits()), Some(0));
}

#[test]
fn typed_records_dispatch() {
    let layout = Layout::parse("((8,16),16):((64,512),1)").unwrap();
    let atoms = [
        Atom::Tcgen05(Tcgen05Input { is_arch_cond: true, ..Tcgen05Input::new(0x42) }),
        Atom::Umma(UmmaInput { direction: UmmaDirection::K, elem_bits: 16, swizzle: Swizzle::SW128, layout: &layout }),
        Atom::Tma { mode: TmaMode::Tile, rank: 7, target: Target::new(90, Suffix::None) },
    ];
    assert_eq!(verify(&atoms[0]), Ok(AtomValue::Opcode(10522)));
    assert_eq!(verify(&atoms[1]), Ok(AtomValue::Umma(UmmaShape { elem_class: 2, k_size: 16, mn_size: 128 })));
    assert_eq!(verify(&atoms[2]).map_err(|e| e.rule), Err(AtomRule::TmaRankMode));
    assert_eq!(atoms.map(|a| a.verifier()), ["tcgen05-kind", "umma-layout", "tma"]);
}

/// Hostile text never panics the parser, and no parsed layout panics the UMMA verifier.
#[test]
fn layout_parser_and_umma_never_panic_on_random_input() {
    let alphabet: &[u8] = b"(),:_0123456789 84216()";
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut parsed = 0;
    for _ in 0..20_000 {
        let len = (next() % 40) as usize;
        let text: String = (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char).collect();
        if let Ok(l) = Layout::parse(&text) {
            parsed += 1;
            assert_eq!(Layout::parse(&l.to_string()).as_ref(), Ok(&l), "print/parse round trip of {text}");
            for bits in [4, 8, 16, 32, 64] {
                for sw in [Swizzle::NONE, Swizzle::SW32, Swizzle::SW128, Swizzle::SW128_BASE32B] {
                    for d in [UmmaDirection::Mn, UmmaDirection::K] {
                        let _ = verify_umma(&UmmaInput { direction: d, elem_bits: bits, swizzle: sw, layout: &l });
                    }
                }
                let _ = l.recast_16b(bits);
                let _ = verify_register_fragment(&l, next() % 64);
            }
        }
    }
    assert!(parsed > 100, "{parsed}");
}

#[test]
fn record_parsing_lines_ids_and_defaults() {
    use irlint::atoms::records::{parse_input, OwnedAtom};
    // Brackets, braces, commas and escaped quotes inside strings do not confuse the line scan.
    let text = "\u{feff}[\n  {\"verifier\": \"tma\", \"id\": \"a,[{\\\"\", \"mode\": \"tile\", \"rank\": 1, \"target\": \"sm_90\"},\n\n  7,\n  {\"verifier\": \"tcgen05-kind\",\n   \"raw\": \"0x1E2\", \"isa\": \"sm_103a\"}\n]\n";
    let recs = parse_input(text).unwrap();
    let lines: Vec<Option<u32>> = recs.iter().map(|r| r.line).collect();
    assert_eq!(lines, [Some(2), Some(4), Some(5)]);
    assert_eq!(recs[0].id, serde_json::json!("a,[{\""));
    assert_eq!(recs[0].label(), "record 0 (id \"a,[{\\\"\")");
    assert_eq!(recs[1].atom.as_ref().unwrap_err().to_string(), "a record is a JSON object, got a number");
    let Ok(OwnedAtom::Tcgen05(t)) = &recs[2].atom else { panic!("{:?}", recs[2].atom) };
    // Defaults: collector 0, not sparse, block-scale opcode from bit 5, arch-conditional from the `a` suffix.
    assert_eq!((t.raw, t.collector, t.sparse, t.block_scale_opcode, t.is_arch_cond), (0x1E2, 0, false, true, true));
    assert_eq!(t.isa, Target::new(103, Suffix::A));
    let t0 = parse_input(r#"{"verifier": "tcgen05-kind", "raw": 66}"#).unwrap();
    let Ok(OwnedAtom::Tcgen05(t)) = &t0[0].atom else { panic!() };
    assert_eq!((t.is_arch_cond, t.isa, t.block_scale_opcode), (false, Target::new(100, Suffix::A), false));
    // Type and value errors name the key.
    let bad = [
        (r#"{"verifier": "umma-layout", "direction": "K", "elem_bits": 16, "swizzle": [3, 4], "layout": "8:1"}"#, "key `swizzle`: expected [B, M, S] (three integers 0..=31)"),
        (r#"{"verifier": "umma-layout", "direction": "K", "elem_bits": 16, "swizzle": [3, 4, 3], "layout": "(8,:1"}"#, "key `layout`: bad layout at byte 3: an integer or `(`"),
        (r#"{"verifier": "umma-layout", "direction": "KM", "elem_bits": 16, "swizzle": [3, 4, 3], "layout": "8:1"}"#, "key `direction`: unknown value \"KM\" (one of: MN, K)"),
        (r#"{"verifier": "matrix-copy", "direction": "store", "src": "register", "dst": "shared", "mode": "MT1616", "num_matrices": 1, "result_shape": [1], "shared_alignment": 16}"#, "key `mode`: unknown value \"MT1616\" (one of: M88, MT88, MT168)"),
        (r#"{"verifier": "matrix-copy", "direction": "load", "src": "shared", "dst": "register", "mode": "M88", "num_matrices": 1, "result_shape": [1], "shared_alignment": 24}"#, "key `shared_alignment`: 24 is not a power of two"),
        (r#"{"verifier": "tcgen05-kind", "raw": 70000}"#, "key `raw`: 70000 does not fit a 9-bit word"),
        (r#"{"verifier": "tcgen05-kind", "raw": 66, "isa": "gfx90a"}"#, "key `isa`: unknown target \"gfx90a\" (e.g. sm_100a, sm_90, sm_120f)"),
        (r#"{"verifier": "tma", "mode": "tile", "rank": -1, "target": "sm_90"}"#, "key `rank`: expected a non-negative integer, got -1"),
        (r#"{"verifier": "ldsm", "mode": "M88", "size": "u16", "num_matrices": 1, "transpose": "no", "result_shape": [1]}"#, "key `transpose`: expected true or false, got a string"),
        (r#"{"verifier": "ldsm", "mode": "M88", "size": "u16", "num_matrices": 1, "transpose": false, "result_shape": [1.5]}"#, "key `result_shape`: extents are non-negative integers, got 1.5"),
        (r#"{"id": 1}"#, "key `verifier`: missing (one of: ldsm, stsm, matrix-copy, register-fragment, umma-layout, tcgen05-kind, sm120-block-scale, swizzle-commutation, tma)"),
        (r#"{"verifier": "wgmma"}"#, "key `verifier`: unknown value \"wgmma\" (one of: ldsm, stsm, matrix-copy, register-fragment, umma-layout, tcgen05-kind, sm120-block-scale, swizzle-commutation, tma)"),
    ];
    for (text, want) in bad {
        let recs = parse_input(text).unwrap();
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].atom.as_ref().map(|_| ()).unwrap_err().to_string(), want, "{text}");
    }
    assert!(parse_input("[1, 2").unwrap_err().starts_with("invalid JSON array of records: "));
    assert!(parse_input("").unwrap().is_empty());
}
