//! Issue requirement 1: the interpreter (`ptx::interp::eval`) agrees with an independent
//! oracle on at least `check::CASES` (10^6) special-biased random cases per family and type,
//! every run. The oracle: `rustc_apfloat` arithmetic (plus an exact big-integer square root,
//! cross-checked against a big-integer add/sub/mul/fma/div and TestFloat), and PTX rules
//! written from the spec text in `oracle/model.rs`.
//!
//! Run: `cargo test --release -p ptx --test oracle` (`-- --nocapture` prints seeds and times;
//! `ORACLE_SEED=0x...` replays another seed, `ORACLE_CASES=N` runs more cases).

/// The oracle modules' own unit tests (`self_tests! { mod tests {..} }`) run in this binary;
/// exhaustive.rs, which shares the modules, defines the macro to drop them.
macro_rules! self_tests {
    ($($t:tt)*) => { $($t)* };
}

#[path = "oracle/agree.rs"]
mod agree;
#[path = "oracle/apf.rs"]
mod apf;
#[path = "oracle/check.rs"]
mod check;
#[path = "oracle/exact.rs"]
mod exact;
#[path = "oracle/forms.rs"]
mod forms;
#[path = "oracle/model.rs"]
mod model;
#[path = "oracle/operands.rs"]
mod operands;
#[path = "oracle/vectors.rs"]
mod vectors;

use ptx::isa::Opcode;

macro_rules! families {
    ($($name:ident => $op:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check::family(Opcode::$op);
            }
        )*
    };
}

families! {
    testp_agrees_with_oracle => Testp,
    copysign_agrees_with_oracle => Copysign,
    add_agrees_with_oracle => Add,
    sub_agrees_with_oracle => Sub,
    mul_agrees_with_oracle => Mul,
    fma_agrees_with_oracle => Fma,
    mad_agrees_with_oracle => Mad,
    div_agrees_with_oracle => Div,
    abs_agrees_with_oracle => Abs,
    neg_agrees_with_oracle => Neg,
    min_agrees_with_oracle => Min,
    max_agrees_with_oracle => Max,
    rcp_agrees_with_oracle => Rcp,
    sqrt_agrees_with_oracle => Sqrt,
}

/// Every family of the issue is covered, with the types its syntax blocks list.
#[test]
fn suite_covers_every_family_and_type() {
    use ptx::isa::Type::*;
    assert_eq!(forms::FAMILIES.len(), 14);
    for op in forms::FAMILIES {
        assert!(!forms::types(op).is_empty(), "{op:?}");
    }
    assert_eq!(forms::types(Opcode::Fma), vec![F16, F16x2, Bf16, Bf16x2, F32, F32x2, F64]);
    assert_eq!(forms::types(Opcode::Min), vec![F16, F16x2, Bf16, Bf16x2, F32, F64]);
}

/// The oracle's form table, read off the spec independently, and `ptx::isa::all_forms()`
/// agree on the documented IEEE-rounded forms of the 14 families; every form prints and
/// parses as the oracle spells it.
#[test]
fn form_table_matches_isa() {
    use ptx::isa::{all_forms, Instr};
    use std::collections::BTreeSet;
    let isa: BTreeSet<Instr> = all_forms()
        .into_iter()
        .filter(|i| forms::FAMILIES.contains(&i.op) && !i.is_approximate())
        .collect();
    let documented: BTreeSet<Instr> = isa.iter().copied().filter(Instr::is_documented).collect();
    let mine: BTreeSet<Instr> = forms::all().into_iter().collect();
    let show = |s: &BTreeSet<&Instr>| s.iter().map(|i| format!("{} ({} inputs)", forms::spell(i), i.inputs)).collect::<Vec<_>>().join(", ");
    let only_isa: BTreeSet<&Instr> = documented.difference(&mine).collect();
    let only_mine: BTreeSet<&Instr> = mine.difference(&documented).collect();
    let undocumented: BTreeSet<&Instr> = isa.difference(&documented).collect();
    println!("{} oracle forms; isa has {} documented and {} ptxas-only: {}", mine.len(), documented.len(), undocumented.len(), show(&undocumented));
    assert!(only_isa.is_empty() && only_mine.is_empty(), "form tables differ:\n  isa only: {}\n  oracle only: {}", show(&only_isa), show(&only_mine));
    for i in &isa {
        let text = forms::spell(i);
        assert_eq!(i.to_string(), text);
        assert_eq!(Instr::parse(&text, i.inputs as usize).as_ref(), Ok(i), "{text}");
    }
}
