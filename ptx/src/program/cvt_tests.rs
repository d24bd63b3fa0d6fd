//! Programs with conversions and comparisons: chains across formats, integers and predicates.

use super::*;

#[test]
fn a_chain_through_bf16_runs_with_each_conversion_rounded_as_its_form_says() {
    // f32 -> bf16 (.rz) -> fma.rn.bf16 -> f32: what a compiler emits for bf16 arithmetic.
    let p = Program::parse(
        "// inputs: %f0:f32\ncvt.rz.bf16.f32 %h1, %f0;\nfma.rn.bf16 %h2, %h1, %h1, %h1;\ncvt.f32.bf16 %f3, %h2;\n// outputs: %f3, %h1\n",
    )
    .unwrap();
    // 1.00390625 * (1 + 2^-7 + 2^-16): .rz drops the 2^-16, giving 1 + 2^-7 (0x3f81);
    // (1+2^-7)^2 + (1+2^-7) = 2 + 3*2^-7 + 2^-14 rounds (ulp 2^-6) to 2 + 2^-5 = 0x4002.
    let x = f32::from_bits(0x3f81_0000) * (1.0 + f32::powi(2.0, -16));
    let got: Vec<u64> = p.run(&[x.to_bits() as u64]).unwrap().iter().map(|e| e.primary_bits()).collect();
    assert_eq!(got, [0x4002_0000, 0x3f81]);
    assert_eq!(p.requirement().0, 80);
}

#[test]
fn a_conversion_reads_its_source_type_and_says_so_when_given_another() {
    let e = Program::parse("// inputs: %f0:f32\ncvt.f64.f16 %fd1, %f0;\n// outputs: %fd1\n").unwrap_err();
    assert!(e.to_string().contains("needs f16 (a .b16 register)"), "{e}");
    let packed = Program::parse("// inputs: %f0:f32, %f1:f32\ncvt.rn.f16x2.f32 %r2, %f0, %f1;\n// outputs: %r2\n").unwrap();
    // d[31:16] = cvt(a), d[15:0] = cvt(b) (9.7.9.21).
    let got = packed.run(&[0x3f80_0000, 0x4000_0000]).unwrap()[0].primary_bits();
    assert_eq!(got, 0x3c00_4000);
}

#[test]
fn a_comparison_of_a_computed_nan_is_unordered() {
    // inf - inf is NaN: every ordered comparison with it is false, every unordered one true.
    let p = Program::parse(
        "// inputs: %f0:f32
sub.rn.f32 %f1, %f0, %f0;
setp.lt.f32 %p2, %f1, %f0;
setp.ltu.f32 %p3, %f1, %f0;
// outputs: %p2, %p3
",
    )
    .unwrap();
    let got: Vec<u64> = p.run(&[0x7f80_0000]).unwrap().iter().map(|e| e.primary_bits()).collect();
    assert_eq!(got, [0, 1]);
    assert_eq!(p.reg_type(Reg(2)), ValType::Pred);
}

#[test]
fn predicates_combine_and_select_computed_values() {
    // A NaN-safe clamp as compilers write it: (x >= 0 or x is NaN) and x < 1 ? x : 1.0f,
    // and the 1.0/0.0 mask of `set`.
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32
setp.nan.f32 %p2, %f0, %f0;
setp.ge.or.f32 %p3, %f0, %f1, %p2;
setp.lt.and.f32 %p4, %f0, %f1, %p3;
selp.f32 %f5, %f0, %f1, %p4;
set.lt.f16.f32 %h6, %f0, %f1;
// outputs: %f5, %h6, %p3
",
    )
    .unwrap();
    let run = |x: u64, y: u64| -> Vec<u64> { p.run(&[x, y]).unwrap().iter().map(|e| e.primary_bits()).collect() };
    // 0 >= 0: p3; 0 < 0 false: p4 false, so 0 selects %f1 (0).
    assert_eq!(run(0, 0), [0, 0, 1]);
    // NaN: p2 and p3 true, p4 false (NaN < 1 is false): %f1, and set gives 0.0.
    assert_eq!(run(0x7fc0_0000, 0x3f80_0000), [0x3f80_0000, 0, 1]);
    // -1 with bound 1: p2 false, -1 >= 1 false, so p3 and p4 are false; set's -1 < 1 is 1.0.
    assert_eq!(run(0xbf80_0000, 0x3f80_0000), [0x3f80_0000, 0x3c00, 0]);
    assert_eq!(p.reg_type(Reg(6)), ValType::Float(Type::F16));
    assert_eq!(p.to_string().lines().nth(3), Some("setp.lt.and.f32 %p4, %f0, %f1, %p3;"));
}

#[test]
fn a_predicate_source_must_be_a_predicate_and_is_never_negated() {
    let e = Program::parse("// inputs: %f0:f32\nselp.f32 %f1, %f0, %f0, %f0;\n// outputs: %f1\n").unwrap_err();
    assert!(e.to_string().contains("needs pred (a .pred register)"), "{e}");
    let e = Program::parse(
        "// inputs: %f0:f32\nsetp.lt.f32 %p1, %f0, %f0;\nselp.f32 %f2, %f0, %f0, !%p1;\n// outputs: %f2\n",
    )
    .unwrap_err();
    assert!(e.to_string().contains("setp.geu is !setp.lt"), "{e}");
    let e = Program::parse("// inputs: %f0:f32\nsetp.lt.f32 %p1, %f0, %f0;\nselp.f32 %f2, %p1, %f0, %p1;\n// outputs: %f2\n")
        .unwrap_err();
    assert!(e.to_string().contains("is a pred register, but selp.f32 needs f32"), "{e}");
}

#[test]
fn a_float_to_integer_to_float_chain_truncates_and_keeps_the_integer_in_its_register() {
    // f32 -> s32 (.rzi) -> f32 and f32 -> s8 (.rni): an 8-bit integer lives in a .b16
    // register, sign-extended ("Operand Size Exceeding Instruction-Type Size").
    let p = Program::parse(
        "// inputs: %f0:f32
cvt.rzi.s32.f32 %r1, %f0;
cvt.rn.f32.s32 %f2, %r1;
cvt.rni.s8.f32 %h3, %f0;
cvt.rni.u8.f32 %h4, %f0;
// outputs: %f2, %r1, %h3, %h4
",
    )
    .unwrap();
    assert_eq!(p.reg_type(Reg(1)), ValType::Int(IntType { signed: true, bits: 32 }));
    let run = |x: f32| -> Vec<u64> { p.run(&[x.to_bits() as u64]).unwrap().iter().map(|e| e.primary_bits()).collect() };
    // -2.5: truncated to -2 (0xfffffffe), back to -2.0; .rni gives -2 (ties to even): 0xfffe
    // in 16 bits; unsigned clamps to 0.
    assert_eq!(run(-2.5), [(-2.0f32).to_bits() as u64, 0xffff_fffe, 0xfffe, 0]);
    // 300.7: s8 saturates at 127, u8 rounds to 301 and saturates at 255, zero-extended.
    assert_eq!(run(300.7), [300.0f32.to_bits() as u64, 300, 0x7f, 0xff]);
    // NaN to a 32-bit integer from f32 is 0 (9.7.9.21 Integer Notes).
    assert_eq!(run(f32::NAN)[1], 0);
    assert_eq!(p.to_string().lines().nth(1), Some("cvt.rzi.s32.f32 %r1, %f0;"));
}

#[test]
fn an_integer_input_holds_any_value_of_its_type_and_any_register_of_its_width_can_be_read() {
    // 2^24 + 1 is a tie between two f32s: .rn goes to the even one, .rp up.
    let p = Program::parse("// inputs: %r0:s32\ncvt.rn.f32.s32 %f1, %r0;\ncvt.rp.f32.s32 %f2, %r0;\n// outputs: %f1, %f2\n").unwrap();
    assert_eq!(p.reg_type(Reg(0)), ValType::Int(IntType { signed: true, bits: 32 }));
    let got: Vec<u64> = p.run(&[(1 << 24) + 1]).unwrap().iter().map(|e| e.primary_bits()).collect();
    assert_eq!(got, [16777216.0f32.to_bits() as u64, 16777218.0f32.to_bits() as u64]);
    assert_eq!(p.to_string().lines().next(), Some("// inputs: %r0:s32"));
    assert_eq!(Program::from_json(&p.to_json()).unwrap(), p);
    // An s8 lives in a .b16 register: its text name is %h.
    let p = Program::parse("// inputs: %h0:s8\ncvt.rn.f32.s8 %f1, %h0;\n// outputs: %f1\n").unwrap();
    assert_eq!(p.run(&[0xff80]).unwrap()[0].primary_bits(), (-128.0f32).to_bits() as u64);
    // A predicate, tf32 or fp8 pair is only ever a result.
    for (decl, says) in [("%p0:pred", "predicate"), ("%r0:tf32", "tf32"), ("%h0:e4m3x2", "narrow pair")] {
        let e = Program::parse(&format!("// inputs: {decl}\ncvt.rn.f32.s32 %f1, %r0;\n// outputs: %f1\n")).unwrap_err();
        assert!(e.to_string().contains(says), "{decl}: {e}");
    }
    // The bits of an f16x2 input are an s32 as PTX's .b32 registers allow (5.4.3).
    let p = Program::parse("// inputs: %r0:f16x2\ncvt.rn.f32.s32 %f1, %r0;\n// outputs: %f1\n").unwrap();
    assert_eq!(p.run(&[0xffff_ffff]).unwrap()[0].primary_bits(), (-1.0f32).to_bits() as u64);
    // An f32 register is not a .b32 one: the message names the class the source needs.
    let e = Program::parse("// inputs: %f0:f32\ncvt.rn.f32.s32 %f1, %f0;\n// outputs: %f1\n").unwrap_err();
    assert!(e.to_string().contains("needs s32 (a .b32 register)"), "{e}");
}

#[test]
fn a_set_to_an_integer_writes_all_ones_which_a_conversion_reads_as_minus_one() {
    // The mask idiom: set.lt.s32 gives -1 or 0, which cvt.rn.f32.s32 turns into -1.0 or 0.0.
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32
set.lt.s32.f32 %r2, %f0, %f1;
cvt.rn.f32.s32 %f3, %r2;
set.ltu.u32.f32 %r4, %f0, %f1;
// outputs: %f3, %r2, %r4
",
    )
    .unwrap();
    assert_eq!(p.reg_type(Reg(2)), ValType::Int(IntType { signed: true, bits: 32 }));
    let run = |x: f32, y: f32| -> Vec<u64> {
        p.run(&[x.to_bits() as u64, y.to_bits() as u64]).unwrap().iter().map(|e| e.primary_bits()).collect()
    };
    assert_eq!(run(1.0, 2.0), [(-1.0f32).to_bits() as u64, 0xffff_ffff, 0xffff_ffff]);
    assert_eq!(run(2.0, 1.0), [0, 0, 0]);
    // NaN: lt is false, ltu true.
    assert_eq!(run(f32::NAN, 1.0), [0, 0, 0xffff_ffff]);
    assert_eq!(p.to_string().lines().nth(1), Some("set.lt.s32.f32 %r2, %f0, %f1;"));
}

#[test]
fn an_integer_selp_chooses_between_integers_bit_for_bit_and_a_conversion_reads_its_choice() {
    // A branch made select-free on integers: (x < y) ? trunc(x) : round(y), then back to f32.
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32
cvt.rzi.s32.f32 %r2, %f0;
cvt.rni.s32.f32 %r3, %f1;
setp.lt.f32 %p4, %f0, %f1;
selp.s32 %r5, %r2, %r3, %p4;
cvt.rn.f32.s32 %f6, %r5;
cvt.rzi.u16.f32 %h7, %f1;
cvt.rzi.u16.f32 %h8, %f0;
selp.u16 %h9, %h7, %h8, %p4;
// outputs: %f6, %r5, %h9
",
    )
    .unwrap();
    let s32 = IntType { signed: true, bits: 32 };
    assert_eq!((p.reg_type(Reg(5)), p.reg_type(Reg(9))), (ValType::Int(s32), ValType::Int(IntType { signed: false, bits: 16 })));
    let run = |x: f32, y: f32| -> Vec<u64> {
        p.run(&[x.to_bits() as u64, y.to_bits() as u64]).unwrap().iter().map(|e| e.primary_bits()).collect()
    };
    // -2.7 < 3.5: trunc(-2.7) = -2 (0xfffffffe, all 32 bits kept), back to -2.0; the u16
    // selp picks trunc(3.5) = 3 over -2.7 saturated to 0.
    assert_eq!(run(-2.7, 3.5), [(-2.0f32).to_bits() as u64, 0xffff_fffe, 3]);
    // 5.5 > 2.5: round(2.5) = 2 (ties to even); the u16 selp picks trunc(5.5) = 5.
    assert_eq!(run(5.5, 2.5), [2.0f32.to_bits() as u64, 2, 5]);
    // A NaN compares false, so selp takes b: the NaN y converts to 0 (9.7.9.21 Integer Notes).
    assert_eq!(run(1.0, f32::NAN), [0, 0, 1]);
    assert_eq!(p.to_string().lines().nth(4), Some("selp.s32 %r5, %r2, %r3, %p4;"));
    // Its a and b are integers of its type: an f32 register is refused, naming the class.
    let e = Program::parse("// inputs: %f0:f32\nsetp.lt.f32 %p1, %f0, %f0;\nselp.s32 %r2, %f0, %f0, %p1;\n// outputs: %r2\n").unwrap_err();
    assert!(e.to_string().contains("needs s32 (a .b32 register)"), "{e}");
}

#[test]
fn a_tf32_lives_in_a_b32_register_that_f32_instructions_read() {
    // __float_to_tf32 then f32 arithmetic: 1 + 2^-11 + 2^-12 rounds (.rna, ten fraction bits)
    // to 1 + 2^-10, whose square plus x is computed in f32.
    let p = Program::parse(
        "// inputs: %f0:f32
cvt.rna.tf32.f32 %r1, %f0;
fma.rn.f32 %f2, %r1, %r1, %f0;
cvt.rz.tf32.f32 %r3, %f0;
// outputs: %f2, %r1, %r3
",
    )
    .unwrap();
    assert_eq!((p.reg_type(Reg(1)), p.reg_type(Reg(1)).class()), (ValType::Tf32, RegClass::B32));
    let x = 1.0 + f32::powi(2.0, -11) + f32::powi(2.0, -12);
    let t = 1.0 + f32::powi(2.0, -10);
    let got: Vec<u64> = p.run(&[x.to_bits() as u64]).unwrap().iter().map(|e| e.primary_bits()).collect();
    assert_eq!(got, [t.mul_add(t, x).to_bits() as u64, t.to_bits() as u64, 1f32.to_bits() as u64]);
    assert_eq!(p.to_string().lines().nth(1), Some("cvt.rna.tf32.f32 %r1, %f0;"));
    // A tf32 is never an input, and only f32 sources (and the .b32 ones) read it.
    let e = Program::parse("// inputs: %r0:tf32\nadd.rn.f32 %f1, %r0, %r0;\n// outputs: %f1\n").unwrap_err();
    assert!(matches!(e, ProgramError::Tf32Input { .. }) && e.to_string().contains("declare the input f32"), "{e}");
    let e = Program::parse("// inputs: %f0:f32\ncvt.rna.tf32.f32 %r1, %f0;\nadd.rn.f64 %fd2, %r1, %r1;\n// outputs: %fd2\n")
        .unwrap_err();
    assert!(e.to_string().contains("is a tf32 register, but add.rn.f64 needs f64"), "{e}");
}

#[test]
fn an_fp8_pair_lives_in_a_b16_register_that_only_fp8_sources_and_b16_ones_read() {
    // An FP8 kernel's quantize and read back: (1.0, -2.0) to e4m3x2 (a goes to the upper
    // element, 9.7.9.21), then to f16x2; 500 saturates to e4m3's MAX_NORM 448 (.satfinite).
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32
cvt.rn.satfinite.e4m3x2.f32 %h2, %f0, %f1;
cvt.rn.f16x2.e4m3x2 %r3, %h2;
cvt.rn.satfinite.relu.e5m2x2.f16x2 %h4, %r3;
// outputs: %r3, %h2, %h4
",
    )
    .unwrap();
    let e4m3 = ValType::Narrow(crate::isa::Narrow::E4m3);
    assert_eq!((p.reg_type(Reg(2)), p.reg_type(Reg(2)).class()), (e4m3, RegClass::B16));
    assert_eq!(p.reg_type(Reg(4)).name(), "e5m2x2");
    let run = |a: f32, b: f32| -> Vec<u64> {
        p.run(&[a.to_bits() as u64, b.to_bits() as u64]).unwrap().iter().map(|e| e.primary_bits()).collect()
    };
    // e5m2 of (1.0, -2.0) with .relu: 1.0 is 0x3c, -2.0 clamps to +0.
    assert_eq!(run(1.0, -2.0), [0x3c00_c000, 0x38c0, 0x3c00]);
    // 448 is 0x7e in e4m3 and 0x5f00 in f16; in e5m2 it is 0x5f (exact).
    assert_eq!(run(500.0, 0.0), [0x5f00_0000, 0x7e00, 0x5f00]);
    // A NaN gives any e4m3 NaN (0x7f or 0xff), read back as any f16 NaN, and .relu's
    // canonical e5m2 NaN.
    let out = p.run(&[f32::NAN.to_bits() as u64, 0]).unwrap();
    assert!(out[1].accepts(0xff00) && out[1].accepts(0x7f00) && !out[1].accepts(0x7e00), "{}", out[1]);
    assert!(out[0].accepts(0x7e01_0000) && out[2].accepts(0x7f00) && !out[2].accepts(0x7d00), "{} / {}", out[0], out[2]);
    assert_eq!(p.to_string().lines().nth(1), Some("cvt.rn.satfinite.e4m3x2.f32 %h2, %f0, %f1;"));
    // An fp8 pair is never an input; an f16 input's bits may be read as one (.b16).
    let e = Program::parse("// inputs: %h0:e4m3x2\ncvt.rn.f16x2.e4m3x2 %r1, %h0;\n// outputs: %r1\n").unwrap_err();
    assert!(matches!(e, ProgramError::NarrowInput { .. }) && e.to_string().contains("declare the input f16"), "{e}");
    let bits = Program::parse("// inputs: %h0:f16\ncvt.rn.f16x2.e4m3x2 %r1, %h0;\n// outputs: %r1\n").unwrap();
    assert_eq!(bits.run(&[0x38c0]).unwrap()[0].primary_bits(), 0x3c00_c000);
    // Float sources of another class do not read it.
    let e = Program::parse("// inputs: %f0:f32\ncvt.rn.satfinite.e4m3x2.f32 %h1, %f0, %f0;\nadd.rn.f32 %f2, %h1, %f0;\n// outputs: %f2\n")
        .unwrap_err();
    assert!(e.to_string().contains("is a e4m3x2 register, but add.rn.f32 needs f32"), "{e}");
}

#[test]
fn an_mx_chain_quantizes_to_e2m3_and_ue8m0_and_reads_both_back() {
    // The sm_100a forms of 9.7.9.21 as an MX kernel uses them: f32 values to e2m3 pairs,
    // their scales to ue8m0 pairs, both read back into halves.
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32
cvt.rn.satfinite.e2m3x2.f32 %h2, %f0, %f1;
cvt.rn.f16x2.e2m3x2 %r3, %h2;
cvt.rz.satfinite.ue8m0x2.f32 %h4, %f0, %f1;
cvt.rn.bf16x2.ue8m0x2 %r5, %h4;
// outputs: %h2, %r3, %h4, %r5
",
    )
    .unwrap();
    assert_eq!((p.reg_type(Reg(2)).name(), p.reg_type(Reg(4)).name()), ("e2m3x2", "ue8m0x2"));
    assert_eq!(p.reg_type(Reg(5)), ValType::Float(Type::Bf16x2));
    let run = |a: f32, b: f32| -> Vec<u64> {
        p.run(&[a.to_bits() as u64, b.to_bits() as u64]).unwrap().iter().map(|e| e.primary_bits()).collect()
    };
    // a in the high byte. e2m3 (bias 1): 1.0 is 0.01.000, 3.0 is 0.10.100; ue8m0 of 1.0 is
    // 127, of 3.0 rounded toward zero 2.0 = 128.
    assert_eq!(run(1.0, 3.0), [0x0814, 0x3c00_4200, 0x7f80, 0x3f80_4000]);
    // .satfinite: 100.0 is e2m3's largest, 7.5 (0.11.111); in ue8m0 .rz gives 64 = 2^(133-127).
    assert_eq!(run(100.0, 1.0), [0x1f08, 0x4780_3c00, 0x857f, 0x4280_3f80]);
    // Only sm_100a has the f32-sourced forms.
    let need = p.check_target(crate::isa::Target::new(100, crate::isa::PtxVersion::new(9, 1))).unwrap_err();
    assert!(need.to_string().contains("needs sm_100a"), "{need}");
}

#[test]
fn an_fp4_pair_lives_in_a_b8_register_that_only_e2m1x2_sources_read() {
    // 9.7.9.21: "d is .b8" for .e2m1x2. (1.0, -3.0) quantized (a to the upper element) and
    // read back: e2m1 (bias 1) 1.0 is 0.01.0, -3.0 is 1.10.1; 7.0 saturates to 6.0 (0.11.1).
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32
cvt.rn.satfinite.e2m1x2.f32 %rc2, %f0, %f1;
cvt.rn.f16x2.e2m1x2 %r3, %rc2;
cvt.rn.satfinite.relu.e2m1x2.f16x2 %rc4, %r3;
// outputs: %rc2, %r3, %rc4
",
    )
    .unwrap();
    let fp4 = ValType::Narrow(crate::isa::Narrow::E2m1);
    assert_eq!((p.reg_type(Reg(2)), p.reg_type(Reg(2)).class(), p.reg_type(Reg(4))), (fp4, RegClass::B8, fp4));
    let run = |a: f32, b: f32| -> Vec<u64> {
        p.run(&[a.to_bits() as u64, b.to_bits() as u64]).unwrap().iter().map(|e| e.primary_bits()).collect()
    };
    // .relu clamps the -3.0 element to +0.
    assert_eq!(run(1.0, -3.0), [0x2d, 0x3c00_c200, 0x20]);
    assert_eq!(run(7.0, 0.25), [0x70, 0x4600_0000, 0x70]);
    // The text form names the .b8 registers %rc and round-trips.
    assert_eq!(Program::parse(&p.to_string()).unwrap(), p);
    assert!(p.to_string().contains("cvt.rn.f16x2.e2m1x2 %r3, %rc2;"), "{p}");
    // Nothing else is a .b8: a .b16 register is not an e2m1x2 source, and no input is one.
    let e = Program::parse("// inputs: %h0:f16\ncvt.rn.f16x2.e2m1x2 %r1, %h0;\n// outputs: %r1\n").unwrap_err();
    assert!(e.to_string().contains("is a f16 register, but cvt.rn.f16x2.e2m1x2 needs e2m1x2 (a .b8 register)"), "{e}");
    let e = Program::parse("// inputs: %rc0:e2m1x2\ncvt.rn.f16x2.e2m1x2 %r1, %rc0;\n// outputs: %r1\n").unwrap_err();
    assert!(matches!(e, ProgramError::NarrowInput { .. }) && e.to_string().contains("cvt.rn.satfinite.e2m1x2.f32"), "{e}");
}

#[test]
fn a_bf16_product_accumulated_in_f32_rounds_once_and_needs_sm_100() {
    // f32 -> bf16 (.rn) -> fma.rn.f32.bf16 -> add.rz.f32.f16: a bf16 product accumulated in f32
    // (9.7.5.3), then an f16 added in f32 (9.7.5.1). bf16(1 + 2^-7) squared is
    // 1 + 2^-6 + 2^-14, exact in f32 before the one rounding; plus -1 leaves 2^-6 + 2^-14.
    let p = Program::parse(
        "// inputs: %f0:f32, %f1:f32, %h2:f16
cvt.rn.bf16.f32 %h3, %f0;
fma.rn.f32.bf16 %f4, %h3, %h3, %f1;
add.rz.f32.f16 %f5, %h2, %f4;
// outputs: %f4, %f5
",
    )
    .unwrap();
    assert_eq!(p.to_string(), Program::parse(&p.to_string()).unwrap().to_string());
    assert_eq!(p.reg_type(Reg(2)), ValType::Float(Type::F16));
    let x = (1.0f32 + 2f32.powi(-7) + 2f32.powi(-12)).to_bits() as u64;
    let got: Vec<u64> = p.run(&[x, (-1.0f32).to_bits() as u64, 0x3c00]).unwrap().iter().map(|e| e.primary_bits()).collect();
    let product = 2f32.powi(-6) + 2f32.powi(-14);
    assert_eq!(got, [product.to_bits() as u64, (1.0 + product).to_bits() as u64]);
    assert_eq!(p.requirement().0, 100);
    // `c` is the f32 and `a` the half: swapped, the program is refused with the types.
    let e = Program::parse("// inputs: %f0:f32, %h1:f16\nadd.rn.f32.f16 %f2, %f0, %h1;\n// outputs: %f2\n").unwrap_err();
    assert!(e.to_string().contains("f16"), "{e}");
}

#[test]
fn a_stochastic_cvt_takes_its_random_bits_from_an_integer_input() {
    // 9.7.9.21: d[31:16] from a with rbits[31:16], d[15:0] from b with rbits[15:0]. bf16 keeps
    // 16 of f32's bits: a = 1 + 2^-8 (discarded 0x8000) carries with 0x8000 and not with
    // 0x7fff; b = 1.0 is exact whatever the bits.
    let p = Program::parse("// inputs: %f0:f32, %f1:f32, %r2:u32\ncvt.rs.bf16x2.f32 %r3, %f0, %f1, %r2;\n// outputs: %r3\n").unwrap();
    assert_eq!(p.to_string(), Program::parse(&p.to_string()).unwrap().to_string());
    let a = (1.0f32 + 2f32.powi(-8)).to_bits() as u64;
    let run = |rbits: u64| p.run(&[a, 0x3f80_0000, rbits]).unwrap()[0].primary_bits();
    assert_eq!(run(0x8000_1234), 0x3f81_3f80);
    assert_eq!(run(0x7fff_ffff), 0x3f80_3f80);
    let t = p.requirement();
    assert_eq!((t.0, t.1), (100, PtxVersion::new(8, 7)));
    // rbits is the u32 of a .b32 register: an f32 input there is refused.
    let e = Program::parse("// inputs: %f0:f32, %f1:f32, %f2:f32\ncvt.rs.bf16x2.f32 %r3, %f0, %f1, %f2;\n// outputs: %r3\n").unwrap_err();
    assert!(e.to_string().contains("u32"), "{e}");
}
