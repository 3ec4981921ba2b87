//! Valid PTX that used not to read (issue 23 §2): label lists naming labels
//! defined further down, `%<digits>` register names, `reg+imm` and
//! `reg+<constant expression>` operands (`%r1+2*3`, `[%rd1+(1<<4)]`). Each
//! fixture under `tests/fixtures/ptx_read/` was assembled by ptxas 13.5; here
//! it reads with no finding and lowers to the values it means, and every
//! truncation and many bit flips of it give an input error or a clean read,
//! never a panic.

mod common;

use irlint::check::{check_bytes, CheckOptions, FileStatus, InputKind};
use irlint::ir::{BinOp, ConstKind, Function, InstKind, Module, Value};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(common::fixtures().join("ptx_read").join(name)).unwrap()
}

fn function<'m>(m: &'m Module, name: &str) -> &'m Function {
    m.functions.iter().map(|(_, f)| f).find(|f| f.name == name).unwrap()
}

fn const_int(m: &Module, v: Value) -> Option<u64> {
    match v {
        Value::Const(c) => match m.constants[c].kind {
            ConstKind::Int(x) => Some(x),
            _ => None,
        },
        _ => None,
    }
}

/// `(lhs is a parameter or instruction, rhs constant)` of every `add` in `f`.
fn adds_of_constants(m: &Module, f: &Function) -> Vec<u64> {
    f.insts
        .iter()
        .filter_map(|(_, i)| match i.kind {
            InstKind::Binary { op: BinOp::Add, rhs, .. } => const_int(m, rhs),
            _ => None,
        })
        .collect()
}

#[test]
fn every_fixture_reads_with_no_finding() {
    for name in ["forward_labels.ptx", "digit_regs.ptx", "reg_imm.ptx", "const_expr.ptx"] {
        let r = check_bytes(name, &fixture(name), &CheckOptions::default());
        assert_eq!(r.files[0].kind, InputKind::Ptx, "{name}");
        assert_eq!(r.files[0].status, FileStatus::Ok, "{name}: {:?}", r.files[0].message);
        assert!(r.diagnostics.is_empty(), "{name}: {:#?}", r.diagnostics);
    }
}

/// A `.branchtargets` list written before its labels becomes a switch to
/// them; the inner scope's table resolves from the inner scope.
#[test]
fn branch_tables_name_labels_further_down() {
    let m = irlint::ptx::lower(&fixture("forward_labels.ptx"), 0).unwrap();
    let f = function(&m, "fwd");
    let switches: Vec<Vec<u64>> = f
        .insts
        .iter()
        .filter_map(|(_, i)| match &i.kind {
            InstKind::Switch { cases, .. } => Some(cases.iter().map(|(k, _)| *k).collect()),
            _ => None,
        })
        .collect();
    assert_eq!(switches, vec![vec![0, 1, 2], vec![0, 1]]);
    // The three cases of the first table go to three different blocks, each
    // of which sets %r3 (10, 20, 30) before the join.
    let first = f
        .insts
        .iter()
        .find_map(|(_, i)| match &i.kind {
            InstKind::Switch { cases, .. } => Some(cases.iter().map(|(_, b)| *b).collect::<Vec<_>>()),
            _ => None,
        })
        .unwrap();
    let mut distinct = first.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 3);
    // The join's phi receives 10, 20, 30 and 40.
    let phi_consts: Vec<u64> = f
        .insts
        .iter()
        .filter_map(|(_, i)| match &i.kind {
            InstKind::Phi { incoming } if incoming.len() == 4 => {
                Some(incoming.iter().filter_map(|(v, _)| const_int(&m, *v)).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(phi_consts, vec![10, 20, 30, 40]);
    // The indirect call through `.calltargets` is a call.
    assert!(f.insts.iter().any(|(_, i)| matches!(i.kind, InstKind::Call { .. })));
}

#[test]
fn digit_register_names_are_registers() {
    let m = irlint::ptx::lower(&fixture("digit_regs.ptx"), 0).unwrap();
    let f = function(&m, "digits");
    // %2 * 3, then %007 = %2 + 5, then the store of %007 through %1.
    let muls: Vec<u64> = f
        .insts
        .iter()
        .filter_map(|(_, i)| match i.kind {
            InstKind::Binary { op: BinOp::Mul, rhs, .. } => const_int(&m, rhs),
            _ => None,
        })
        .collect();
    assert_eq!(muls, vec![3]);
    assert_eq!(adds_of_constants(&m, f), vec![5]);
    let stored = f.insts.iter().find_map(|(_, i)| match i.kind {
        InstKind::Store { ptr, value } => Some((ptr, value)),
        _ => None,
    });
    let (ptr, value) = stored.unwrap();
    assert_eq!(ptr, Value::Arg(0), "pointer %1 is the parameter p_out");
    let Value::Inst(h) = value else { panic!("stored value {value:?}") };
    assert!(matches!(f.insts[h].kind, InstKind::Binary { op: BinOp::Add, .. }));
}

/// `%r1+1`, `%r1+-1`, `%r1 + 0x10`, `%r1+1+2` and `%rd1+8` are adds of 1,
/// -1, 16, 3 and 8 (masked to the register's width).
#[test]
fn register_plus_immediate_is_an_add() {
    let m = irlint::ptx::lower(&fixture("reg_imm.ptx"), 0).unwrap();
    let f = function(&m, "reg_imm");
    let mut adds = adds_of_constants(&m, f);
    adds.sort_unstable();
    // 0 twice (`, 0` sources), 1, 3, 4 and 8 (`[%rd2+4]`, `[%rd2+8]` stores),
    // 8 (`%rd1+8`), 16, and -1 as a 32-bit value.
    assert_eq!(adds, vec![0, 0, 1, 3, 4, 8, 8, 16, 0xffff_ffff]);
}

/// Outside brackets ptxas 13.5 (`-arch=sm_90a`) takes a register or symbol
/// `+` an integer expression whose numbers may carry signs, with later terms
/// added or subtracted (`%r1+1-2`, `%r1+-+1`, `%r1+1--2`, `g+-8+-8` assemble)
/// but never `-` first (`%r1-4`, `%r1-1+2`, `%r1--1`, `g-8` are its syntax
/// errors): the same split here, the rejected ones as input errors naming the
/// column of the `-`.
#[test]
fn register_minus_immediate_is_rejected_as_ptxas_does() {
    let module = |operand: &str| {
        format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n.global .align 4 .b32 g[16];\n\
             .visible .entry k()\n{{\n.reg .b32 %r<4>;\nmov.u32 %r1, 5;\nadd.u32 %r2, {operand}, 3;\n\
             st.global.u32 [g], %r2;\nret;\n}}\n"
        )
    };
    for (operand, offset) in [("%r1+1-2", -1i64), ("%r1+-+1", -1), ("%r1++1", 1), ("%r1+1--2", 3), ("%r1+1-+2", -1)] {
        let m = irlint::ptx::lower(module(operand).as_bytes(), 0).unwrap_or_else(|e| panic!("{operand}: {e}"));
        let adds = adds_of_constants(&m, function(&m, "k"));
        assert_eq!(adds, vec![offset as u32 as u64, 3], "{operand}");
    }
    for operand in ["%r1-4", "%r1-1+2", "%r1--1", "%r1-0x10", "g-8", "g-8+4"] {
        let e = irlint::ptx::lower(module(operand).as_bytes(), 0).err().unwrap_or_else(|| panic!("{operand} read"));
        let name = operand.split('-').next().unwrap();
        assert!(
            e.detail.contains(&format!("line 9, column {}: '{name}-' outside brackets", 14 + name.len())),
            "{operand}: {}",
            e.detail
        );
    }
}

/// The fixture's constant expressions, outside brackets and in, are the adds
/// of what they fold to: `%r1+(1)` 1, `%r1 + 7 % 4` 3, `[%rd1+-(4)+8]` 4,
/// `%r1+2*3` 6, `[g+4*(1?2:3)]` 8, `[%rd1+(2+2)*4]` 16, `%r1+(1<<4)|1` 17.
#[test]
fn constant_expressions_fold_in_the_fixture() {
    let m = irlint::ptx::lower(&fixture("const_expr.ptx"), 0).unwrap();
    let mut adds = adds_of_constants(&m, function(&m, "const_expr"));
    adds.sort_unstable();
    assert_eq!(adds, vec![1, 3, 4, 6, 8, 16, 17]);
}

/// A 64-bit module with `add.u64 %rd2, %rd1+EXPR, 3` and `ld.global.u64 %rd3, [%rd1+EXPR]`.
fn expr_module(expr: &str) -> String {
    format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n.global .align 8 .b64 g[16];\n\
         .visible .entry k()\n{{\n.reg .b64 %rd<4>;\nmov.u64 %rd1, g;\nadd.u64 %rd2, %rd1+{expr}, 3;\n\
         ld.global.u64 %rd3, [%rd1+{expr}];\nst.global.u64 [g], %rd2;\nst.global.u64 [%rd1], %rd3;\nret;\n}}\n"
    )
}

/// After `reg+` ptxas 13.5 (`-arch=sm_90a`) takes a C integer constant
/// expression, the same outside brackets and in. Each value below is what
/// ptxas folds the expression to, checked with ptxas itself: `%r1+1/((E)-(V))`
/// is its "division by zero" error exactly when E folds to V. Its quirks: `%`
/// is an unsigned remainder with an unsigned result, shift counts are taken
/// mod 64, `?:` gives the chosen operand with its own type, a decimal literal
/// wraps mod 2^64, and `7%4` does not parse (`%4` is a register).
#[test]
fn register_plus_constant_expression_folds_as_ptxas_does() {
    let table: [(&str, i64); 65] = [
        ("2*3", 6),
        ("(1)", 1),
        ("(1+2)", 3),
        ("2*3+1", 7),
        ("1+2*3", 7),
        ("6/2", 3),
        ("7 % 4", 3),
        ("(7)%(4)", 3),
        ("1<<2", 4),
        ("8>>1", 4),
        ("3&1", 1),
        ("3|4", 7),
        ("3^1", 2),
        ("~1", -2),
        ("!0", 1),
        ("!5", 0),
        ("-(1)", -1),
        ("(-1)", -1),
        ("1?2:3", 2),
        ("0?2:3", 3),
        ("1 ? 2 : 3 ? 4 : 5", 2),
        ("0 ? 2 : 0 ? 4 : 5", 5),
        ("2*-3", -6),
        ("-2*3", -6),
        ("1*2*3", 6),
        ("(2)*3", 6),
        ("2*(3)", 6),
        ("(1)+2", 3),
        ("1-(2)", -1),
        ("1+-+1", 0),
        ("1--2", 3),
        ("1==1", 1),
        ("1!=2", 1),
        ("1<2", 1),
        ("1>2", 0),
        ("1<=2", 1),
        ("1>=2", 0),
        ("1&&2", 1),
        ("0||0", 0),
        ("(.s64)-1", -1),
        ("(.u64)1", 1),
        (" ( .u64 ) 1", 1),
        ("4U/2", 2),
        ("-1/2", 0),
        ("-7/2", -3),
        ("-7 % 2", 1),
        ("-8 % 3", 2),
        ("7 % -3", 7),
        ("8 % 3 < -1", 1),
        ("-8>>1", -4),
        ("(.u64)-8>>1", 0x7fff_ffff_ffff_fffc),
        ("-1>>63", -1),
        ("-1U>>63", 1),
        ("1<<64", 1),
        ("1<<65", 2),
        ("1<<-1", i64::MIN),
        ("-1<0U", 0),
        ("-1<0", 1),
        ("(1?-1:1U)>>63", -1),
        ("(0?-1:1U<<63)>>63", 1),
        ("(.s64)(.u64)-1/2", 0),
        ("0x10*2", 32),
        ("017+0b101", 20),
        ("18446744073709551617", 1),
        ("0xffffffffffffffff/2", i64::MAX),
    ];
    for (expr, value) in table {
        let m = irlint::ptx::lower(expr_module(expr).as_bytes(), 0).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let adds = adds_of_constants(&m, function(&m, "k"));
        // An offset of 0 adds nothing; the register form's add of 3 stays.
        let v = value as u64;
        let want: Vec<u64> = if v == 0 { vec![3] } else { vec![v, 3, v] };
        assert_eq!(adds, want, "{expr}");
    }
}

/// What ptxas 13.5 rejects after `reg+` (or instead of it), irlint rejects as
/// an input error: `-` after the base (outside brackets and in), casts other
/// than `.s64`/`.u64`, floats, a division by zero (in the arm not taken too),
/// `i64::MIN / -1` (ptxas dies of SIGFPE on it), unbalanced parentheses, a
/// space inside `<<`, `&&` or `==`, a symbol or register as a term.
#[test]
fn constant_expressions_ptxas_rejects_are_input_errors() {
    // `add.u32 %r3, OPERAND, 3`, or `ld.global.u32 %r3, [ADDRESS]`.
    let module = |operand: &str| {
        let inst = if operand.starts_with('[') { "ld.global.u32 %r3, " } else { "add.u32 %r3, " };
        let tail = if operand.starts_with('[') { "" } else { ", 3" };
        format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n.global .align 4 .b32 g[16];\n\
             .visible .entry k()\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\nmov.u64 %rd1, g;\nmov.u32 %r1, 5;\n\
             {inst}{operand}{tail};\nst.global.u32 [g], %r3;\nret;\n}}\n"
        )
    };
    for (operand, says) in [
        ("%r1+7%4", "found '%4'"),
        ("%r1-(1)", "'%r1-' outside brackets"),
        ("%r1-2*3", "'%r1-' outside brackets"),
        ("%r1+(.s32)1", "unsupported cast .s32"),
        ("%r1+(.b64)1", "unsupported cast .b64"),
        ("%r1+(.S64)1", "unsupported cast .S64"),
        ("%r1+1.5", "not a float"),
        ("%r1+0f3F800000", "not a float"),
        ("%r1+1/0", "division by zero"),
        ("%r1+1 % 0", "division by zero"),
        ("%r1+0&&1/0", "division by zero"),
        ("%r1+(1?2:1/0)", "division by zero"),
        ("%r1+(.s64)0x8000000000000000/-1", "overflows"),
        ("%r1+(1", "expected ')'"),
        ("%r1+()", "found ')'"),
        ("%r1+(1))", "found ')'"),
        ("%r1+1< <2", "found '<'"),
        ("%r1+1& &1", "found '&'"),
        ("%r1+1= =1", "found '='"),
        ("%r1+1+", "found ','"),
        ("%r1+1*", "found ','"),
        ("%r1+g", "found 'g'"),
        ("%r1+%r2", "found '%r2'"),
        ("%r1*2", "found '*'"),
        ("[%rd1-4]", "'-' after an address base"),
        ("[%rd1-(4)]", "'-' after an address base"),
        ("[%rd1--4]", "'-' after an address base"),
        ("[%rd1-2*3]", "'-' after an address base"),
        ("[g-4]", "'-' after an address base"),
        ("[%rd1+(.u32)8]", "unsupported cast .u32"),
        ("[%rd1+1.0]", "not a float"),
        ("[%rd1+(4]", "expected ')'"),
        ("[%rd1+4+g]", "found 'g'"),
    ] {
        let e = irlint::ptx::lower(module(operand).as_bytes(), 0).err().unwrap_or_else(|| panic!("{operand} read"));
        assert!(e.detail.starts_with("line 11, column "), "{operand}: {}", e.detail);
        assert!(e.detail.contains(says), "{operand}: {}", e.detail);
    }
}

/// Cuts at every byte inside the first function body are input errors; every cut and
/// 3,000 single-bit flips per fixture read or fail cleanly (a panic fails the
/// test), and what reads passes the checks without an internal error.
#[test]
fn truncated_and_bit_flipped_fixtures_never_panic() {
    for name in ["forward_labels.ptx", "digit_regs.ptx", "reg_imm.ptx", "const_expr.ptx"] {
        let bytes = fixture(name);
        let body_start = bytes.windows(2).position(|w| w == b"\n{").unwrap() + 2;
        // The end of the first body (later bodies may follow it).
        let body_end = body_start + bytes[body_start..].windows(3).position(|w| w == b"\n}\n").unwrap();
        let mut errors = 0;
        for n in 0..bytes.len() {
            let r = irlint::ptx::lower(&bytes[..n], 0);
            if (body_start..body_end).contains(&n) {
                assert!(r.is_err(), "{name}: a cut at byte {n} read");
                errors += 1;
            }
        }
        assert!(errors > 100, "{name}: {errors}");
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut read = 0;
        for _ in 0..3000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut m = bytes.clone();
            let at = (state >> 8) as usize % m.len();
            m[at] ^= 1 << (state % 8);
            let r = check_bytes(name, &m, &CheckOptions::default());
            for d in &r.diagnostics {
                assert_ne!(d.rule, "internal-error", "{name}: {}", d.message);
                assert!(!d.message.starts_with("malformed module"), "{name}: {}", d.message);
            }
            if r.files[0].status == FileStatus::Ok {
                read += 1;
            }
        }
        assert!(read > 0, "{name}: no flip read");
    }
}

/// The real shape: Triton 3.6 warp-specialized sm_100 modules (the realptx
/// fixtures, `brx.idx` over a `.branchtargets` list written before its
/// labels) read with no finding, each with its partition switch.
#[test]
fn triton_warp_specialized_modules_read() {
    for name in ["triton_ws_persistent_mm_f16.sm100.ptx", "triton_ws_attn_fwd_f16_d64.sm100.ptx"] {
        let p = common::fixtures().join("ptx_real").join(name);
        let Ok(bytes) = std::fs::read(&p) else {
            common::skip(&format!("{} not present", p.display()));
            continue;
        };
        let r = check_bytes(name, &bytes, &CheckOptions::default());
        assert_eq!(r.files[0].status, FileStatus::Ok, "{name}: {:?}", r.files[0].message);
        assert!(r.diagnostics.is_empty(), "{name}: {:#?}", r.diagnostics);
        let m = irlint::ptx::lower(&bytes, 0).unwrap();
        let switches = m
            .functions
            .iter()
            .flat_map(|(_, f)| f.insts.iter())
            .filter(|(_, i)| matches!(&i.kind, InstKind::Switch { cases, .. } if cases.len() >= 2))
            .count();
        assert!(switches >= 1, "{name}: no brx.idx switch");
    }
}
