//! `Program`: register naming, tracing and the validation errors.

use super::*;
use crate::isa::Precision;
use crate::rounding::Rounding;

fn add_f32() -> Instr {
    let mut i = Instr::new(Opcode::Add, Type::F32);
    i.precision = Precision::Rounded(Rounding::Rn);
    i
}

#[test]
fn canonical_names_follow_register_class_and_index() {
    let p = Program::new(
        vec![Type::F32, Type::F64, Type::F16x2],
        vec![Stmt::new(add_f32(), &[Reg(0), Reg(0)]).unwrap()],
        vec![Reg(3)],
    )
    .unwrap();
    let names: Vec<String> = (0..4).map(|i| p.name(Reg(i)).to_string()).collect();
    assert_eq!(names, ["%f0", "%fd1", "%r2", "%f3"]);
}

#[test]
fn traced_appends_every_destination_to_the_outputs_and_runs_as_a_trace() {
    let p = Program::new(
        vec![Type::F32],
        vec![Stmt::new(add_f32(), &[Reg(0), Reg(0)]).unwrap(), Stmt::new(add_f32(), &[Reg(1), Reg(0)]).unwrap()],
        vec![Reg(2)],
    )
    .unwrap();
    let t = p.traced();
    assert_eq!(t.outputs(), [Reg(2), Reg(1), Reg(2)]);
    // 1 + 1 = 2, then 2 + 1 = 3: the output, then each instruction's result.
    let got: Vec<u64> = t.run(&[0x3f80_0000]).unwrap().iter().map(|e| e.primary_bits()).collect();
    assert_eq!(got, [0x4040_0000, 0x4000_0000, 0x4040_0000]);
}

#[test]
fn use_before_definition_is_rejected() {
    let e = Program::new(
        vec![Type::F32],
        vec![Stmt::new(add_f32(), &[Reg(0), Reg(2)]).unwrap(), Stmt::new(add_f32(), &[Reg(0), Reg(0)]).unwrap()],
        vec![Reg(2)],
    )
    .unwrap_err();
    assert!(matches!(e, ProgramError::UseBeforeDefinition { index: 0, ref reg } if reg == "%f2"), "{e}");
}

#[test]
fn operand_of_other_register_class_is_a_type_mismatch() {
    let e = Program::new(
        vec![Type::F32, Type::F64],
        vec![Stmt::new(add_f32(), &[Reg(0), Reg(1)]).unwrap()],
        vec![Reg(2)],
    )
    .unwrap_err();
    assert!(matches!(e, ProgramError::TypeMismatch { ref reg, found: "f64", .. } if reg == "%fd1"), "{e}");
    assert!(e.to_string().contains("needs f32"), "{e}");
}

#[test]
fn unknown_register_and_empty_program_are_rejected() {
    let e = Program::new(vec![Type::F32], vec![Stmt::new(add_f32(), &[Reg(0), Reg(9)]).unwrap()], vec![Reg(1)])
        .unwrap_err();
    assert!(matches!(e, ProgramError::UnknownRegister { .. }), "{e}");
    let e = Program::new(vec![Type::F32], vec![], vec![Reg(0)]).unwrap_err();
    assert_eq!(e, ProgramError::NoInstructions);
    let e =
        Program::new(vec![Type::F32], vec![Stmt::new(add_f32(), &[Reg(0), Reg(0)]).unwrap()], vec![]).unwrap_err();
    assert_eq!(e, ProgramError::NoOutputs);
}

#[test]
fn wrong_operand_count_is_an_arity_error() {
    let e = Stmt::new(add_f32(), &[Reg(0)]).unwrap_err();
    assert!(matches!(e, ProgramError::Arity { expected: 2, got: 1, .. }), "{e}");
}

#[test]
fn illegal_form_is_rejected() {
    // 9.7.3.3: .sat exists for f32 only, not for f64.
    let mut i = Instr::new(Opcode::Add, Type::F64);
    i.precision = Precision::Rounded(Rounding::Rn);
    i.clamp = crate::isa::Clamp::Sat;
    let e =
        Program::new(vec![Type::F64], vec![Stmt::new(i, &[Reg(0), Reg(0)]).unwrap()], vec![Reg(1)]).unwrap_err();
    assert!(matches!(e, ProgramError::IllegalForm { index: 0, .. }), "{e}");
    // The message holds the cause's; a `source` too would print it twice under anyhow's `{:#}`.
    assert!(std::error::Error::source(&e).is_none(), "{e}");
}
