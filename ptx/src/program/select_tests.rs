//! Programs with the comparisons whose registers are not one float type: a packed `setp`'s
//! predicate pair `p|q` (9.7.7.2) and the bit-type `selp.b16/.b32/.b64` (9.7.6.3).

use super::*;
use crate::kernel::{module, Mode};

fn run(p: &Program, inputs: &[u64]) -> Vec<u64> {
    p.run(inputs).unwrap().iter().map(|e| e.primary_bits()).collect()
}

#[test]
fn a_packed_setp_writes_p_for_the_lower_halves_and_q_for_the_upper_named_as_a_pair() {
    let text = "// inputs: %r0:f16x2, %r1:f16x2
setp.lt.f16x2 %p2|%q2, %r0, %r1;
setp.equ.f16x2 %p3|%q3, %r0, %r0;
// outputs: %p2|%q2, %p3|%q3
";
    let p = Program::parse(text).unwrap();
    assert_eq!((p.reg_type(Reg(2)), p.name(Reg(2)).to_string()), (ValType::PredPair, "%p2|%q2".to_string()));
    assert_eq!(p.to_string(), text);
    assert_eq!(Program::from_json(&p.to_json()).unwrap(), p);
    // a = (lo 1.0, hi NaN), b = (2.0, 2.0): lt is true below and false above (NaN is
    // unordered); equ of a with itself is true in both (NaN equ NaN). p is bit 0, q bit 1.
    assert_eq!(run(&p, &[0x7e00_3c00, 0x4000_4000]), [0b01, 0b11]);
    assert_eq!(run(&p, &[0x3c00_4400, 0x4000_4000]), [0b10, 0b11]);
    // The kernel declares both halves and hands the pair out as p + 2q.
    let m = module(&[&p], 90, Mode::Outputs).unwrap();
    for want in ["\t.reg .pred %p<4>;", "\t.reg .pred %q<4>;", "\tsetp.lt.f16x2 %p2|%q2, %r0, %r1;", "\t@%q2 or.b64 %k_x, %k_x, 2;"] {
        assert!(m.contains(want), "{want} missing from\n{m}");
    }
    // Spaces around the bar name the same pair.
    assert_eq!(Program::parse(&text.replace("%p2|%q2", "%p2 | %q2")).unwrap(), p);
}

#[test]
fn a_pair_is_named_as_one_and_only_a_packed_setp_writes_one() {
    let e = Program::parse("// inputs: %r0:f16x2\nsetp.lt.f16x2 %p1, %r0, %r0;\n// outputs: %p1\n").unwrap_err();
    assert!(e.to_string().contains("writes two predicates") && e.to_string().contains("%p0|%q0"), "{e}");
    let e = Program::parse("// inputs: %f0:f32\nsetp.lt.f32 %p1|%q1, %f0, %f0;\n// outputs: %p1|%q1\n").unwrap_err();
    assert!(e.to_string().contains("only a packed setp"), "{e}");
    // selp and a .BoolOp read one predicate, never a pair.
    let e = Program::parse(
        "// inputs: %r0:f16x2\nsetp.lt.f16x2 %p1|%q1, %r0, %r0;\nselp.b32 %r2, %r0, %r0, %p1|%q1;\n// outputs: %r2\n",
    )
    .unwrap_err();
    assert!(e.to_string().contains("is a program output, not a source"), "{e}");
    assert!(matches!(Program::parse("// inputs: %p0:predx2\nabs.f32 %f1, %p0;\n// outputs: %f1\n"), Err(ProgramError::PredicateInput { .. })));
}

#[test]
fn a_bits_selp_hands_on_the_register_it_picks_typed_as_its_a() {
    // No selp.bf16 exists: a compiler selects bf16 values with selp.b16.
    let text = "// inputs: %h0:bf16, %h1:bf16, %f2:f32, %f3:f32
setp.lt.f32 %p4, %f2, %f3;
selp.b16 %h5, %h0, %h1, %p4;
add.rn.bf16 %h6, %h5, %h5;
// outputs: %h6, %h5
";
    let p = Program::parse(text).unwrap();
    assert_eq!(p.reg_type(Reg(5)), ValType::Float(Type::Bf16));
    assert_eq!((p.to_string(), Program::from_json(&p.to_json()).unwrap()), (text.to_string(), p.clone()));
    let (one, two) = (0x3f80, 0x4000);
    assert_eq!(run(&p, &[one, two, 1f32.to_bits() as u64, 2f32.to_bits() as u64]), [two, one]);
    assert_eq!(run(&p, &[one, two, 2f32.to_bits() as u64, 1f32.to_bits() as u64]), [0x4080, two]);
    // A chain of them keeps the type of the first `a`; an integer stays an integer.
    let ints = Program::parse(
        "// inputs: %r0:s32, %r1:s32, %f2:f32
setp.num.f32 %p3, %f2, %f2;
selp.b32 %r4, %r0, %r1, %p3;
selp.b32 %r5, %r4, %r0, %p3;
cvt.rn.f32.s32 %f6, %r5;
// outputs: %f6
",
    )
    .unwrap();
    assert_eq!(ints.reg_type(Reg(5)), ValType::Int(crate::integer::IntType { signed: true, bits: 32 }));
    assert_eq!(run(&ints, &[0xffff_fffe, 7, 0]), [(-2f32).to_bits() as u64]);
    assert_eq!(run(&ints, &[0xffff_fffe, 7, f32::NAN.to_bits() as u64]), [(-2f32).to_bits() as u64]);
    // Its class is its width's: selp.b16 does not read an f32.
    let e = Program::parse("// inputs: %f0:f32, %f1:f32\nsetp.lt.f32 %p2, %f0, %f1;\nselp.b16 %h3, %f0, %f1, %p2;\n// outputs: %h3\n")
        .unwrap_err();
    assert!(e.to_string().contains("needs f16 (a .b16 register)"), "{e}");
}
