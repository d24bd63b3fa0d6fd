//! Whole-program rewrites: compiler effects that change one statement's result through the
//! statement feeding it, which no one-instruction model of the catalogue can reproduce (ptxas
//! fuses two conversions, folds a `neg` into a `set`, converts a `set`'s truth value). Each is
//! a row of [`REWRITES`], with the evidence that ptxas does it (a hardware run and a SASS test);
//! [`explain_statement`] tries them around the catalogue. Only a compiled program (one kernel)
//! can show them: the instruction VM runs every statement alone. `worker::modes` (the VM
//! against the compiled kernel) and `api::cluster` (a compiled finding's cluster) use them.

use super::{family_key, Case, Explanation};
use crate::interp::eval;
use crate::program::{Program, Reg};

/// When a rewrite is tried against the catalogue's one-instruction models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Before: a catalogue entry fits some of its cases by coincidence (`folded-to-operand`
    /// fits a `neg` that kept +0, `other-rounding` a `cvt` of a truth value), and the SASS says
    /// the rewrite is what ptxas did.
    BeforeCatalogue,
    /// After: the catalogue's answer on the statement's own operands is the simpler one.
    AfterCatalogue,
}

/// One whole-program rewrite. `id` is stable (it keys clusters, as a catalogue id does).
pub struct Rewrite {
    pub id: &'static str,
    /// One line: what the compiled program computed instead.
    pub description: &'static str,
    /// The PTX ISA section (or rule) the behaviour departs from.
    pub spec: &'static str,
    /// What ptxas 13.5 emits for it (sm_90), the explanation's detail line.
    pub sass: &'static str,
    pub checked: Checked,
    /// Whether statement `k` of `program` gave `got` by this rewrite, `value` reading a
    /// register as the statements run one by one would give it (an input or a result).
    pub applies: fn(&Program, usize, u64, &dyn Fn(Reg) -> u64) -> bool,
}

/// The rewrites, in the order each group is tried. Sources: the functions' comments.
pub const REWRITES: &[Rewrite] = &[
    Rewrite {
        id: "neg-folded-into-set",
        description: "a neg of a float set's result folded into the set's constants (-1.0 or +0): a false comparison gives +0, not -0",
        spec: "9.7.3.10 neg (flips the sign of zeros too)",
        sass: "ptxas 13.5, in some kernels with a call: SEL R, RZ, 0xbc00, !P (f16); FSEL R, RZ, -1, !P (f32)",
        checked: Checked::BeforeCatalogue,
        applies: neg_folded_into_set,
    },
    Rewrite {
        id: "set-converted-by-value",
        description: "an integer cvt of a 16-bit set's result computed from the comparison's truth value (1 or 0), not from the bits read as the cvt's half type",
        spec: "9.7.7.1 set (1.0 of its .dtype) / 9.7.9.21 cvt",
        sass: "ptxas 13.5: HSET2 (no .BF), PRMT, IABS",
        checked: Checked::BeforeCatalogue,
        applies: set_converted_by_value,
    },
    Rewrite {
        id: "folded-to-operand",
        description: "the instruction is folded away with the neg/abs feeding it: the result is that neg/abs's operand",
        spec: "9.7.3 (the instruction's own semantics)",
        sass: "max.xorsign.abs r, r of neg x compiled as max.xorsign.abs x, x, then folded",
        checked: Checked::AfterCatalogue,
        applies: folded_through_sign,
    },
    Rewrite {
        id: "half-conversions-fused",
        description: "cvt.rzi of a half to an integer fused with the half-to-half cvt feeding it: the first cvt's source read as the second's half type, rounded with the first's mode",
        spec: "9.7.9.21 cvt (each conversion rounds its own result)",
        sass: "ptxas 13.5: one F2I.F16{.TRUNC,.FLOOR,.CEIL}, no F2F",
        checked: Checked::AfterCatalogue,
        applies: half_conversions_fused,
    },
];

/// Why statement `k` of a compiled `program` gave `got`, `value` reading a register as the
/// statements run one by one give it: the rewrites checked before the catalogue, then the
/// catalogue on the statement's operands, then the other rewrites. `None` when the PTX ISA
/// accepts `got` on those operands (nothing to explain) or nothing reproduces it.
pub fn explain_statement(program: &Program, k: usize, got: u64, value: &dyn Fn(Reg) -> u64) -> Option<Explanation> {
    let instr = program.body()[k].instr;
    let operands: Vec<u64> = program.body()[k].srcs().iter().map(|&r| value(r)).collect();
    if eval(&instr, &operands).is_ok_and(|e| e.accepts(got)) {
        return None;
    }
    let found = |checked: Checked| {
        REWRITES.iter().filter(|r| r.checked == checked).find(|r| (r.applies)(program, k, got, value)).map(|r| Explanation {
            id: r.id,
            description: r.description,
            spec: r.spec,
            family_key: family_key(&instr),
            model: None,
            detail: r.sass.to_string(),
        })
    };
    found(Checked::BeforeCatalogue)
        .or_else(|| super::explain(&instr, &[Case { operands, got }]))
        .or_else(|| found(Checked::AfterCatalogue))
}

/// Whether statement `k`'s result `got` is the source of a `neg` or `abs` feeding it: the fold of
/// `folded-to-operand` one statement further up. The compiler drops a sign operation under an
/// instruction that ignores it (`max.xorsign.abs r, r` of `neg x` is `max.xorsign.abs x, x`),
/// then folds that to its operand: the H200's `modes-check` (docs/hardware/nvidia-h200-2026-11-29,
/// `modes.jsonl`) gave `x` for `neg.f16x2 r, x; max.xorsign.abs.f16x2 d, r, r` and
/// `abs.f16x2 r, x; max.NaN.xorsign.abs.f16x2 d, r, r`.
fn folded_through_sign(program: &Program, k: usize, got: u64, value: &dyn Fn(Reg) -> u64) -> bool {
    use crate::isa::Opcode;
    program.body()[k].srcs().iter().any(|&r| {
        program.definition(r).is_some_and(|j| {
            let s = &program.body()[j];
            matches!(s.instr.op, Opcode::Neg | Opcode::Abs) && s.instr.ty == program.body()[k].instr.ty && s.srcs().iter().any(|&x| value(x) == got)
        })
    })
}

/// Whether statement `k`, a `cvt.rzi` of a half to an integer, gave `got` because ptxas fused
/// it with the `cvt.rnd` between the halves (`cvt.rnd.f16.bf16`, `cvt.rnd.bf16.f16`) that
/// feeds it: one `F2I` that reads the earlier conversion's source bits as the later one's half
/// type and rounds to an integer with `rnd` (as the `.rndi` of that type would). It is ptxas's
/// fusion of `cvt.rndi.f16.f16; cvt.rzi.s32.f16` into `F2I.{rnd}`, applied to a conversion
/// that changes the format. Found by the H200's third `modes-check`
/// (docs/hardware/nvidia-h200-2026-12-04): `cvt.rz.f16.bf16` of 0xe0c1 (-1.11e20) then
/// `cvt.rzi.sat.s32.f16` gave -608 (0xe0c1 read as f16 is -608.5), not -65504. ptxas 13.5
/// reproduces it without a GPU (sm_90 and sm_100a: `F2I.F16.TRUNC` alone, no `F2F`;
/// `ptx/tests/ptxas_cvt_fusion.rs`) for each of `.rn`/`.rz`/`.rm`/`.rp` and the s32, u16 and
/// s64 destinations; a `.rni`/`.rmi`/`.rpi` second conversion is not fused.
fn half_conversions_fused(program: &Program, k: usize, got: u64, value: &dyn Fn(Reg) -> u64) -> bool {
    use crate::isa::{IntEnd, Opcode, Precision, RoundTo};
    use crate::Rounding;
    let second = program.body()[k].instr;
    // A `cvt.rzi` from a 16-bit float to an integer.
    let rzi_to_int = second.op == Opcode::Cvt
        && second.ty.lanes() == 1
        && second.ty.scalar().bits() == 16
        && second.precision == Precision::Rounded(Rounding::Rz)
        && second.conv.is_some_and(|c| c.round_to == RoundTo::Integer && matches!(c.int, Some(IntEnd::Dest(_))));
    if !rzi_to_int {
        return false;
    }
    program.body()[k].srcs().iter().any(|&r| {
        let Some(j) = program.definition(r) else { return false };
        let s = &program.body()[j];
        let first = s.instr;
        // A conversion between the two 16-bit formats, to the later one's half type.
        let between_halves = first.op == Opcode::Cvt
            && first.ty == second.ty
            && first.conv.is_some_and(|c| {
                c.round_to == RoundTo::Format && c.int.is_none() && c.narrow.is_none() && c.from != first.ty && c.from.lanes() == 1 && c.from.scalar().bits() == 16
            });
        let (true, Precision::Rounded(rnd)) = (between_halves, first.precision) else { return false };
        let mut fused = second;
        fused.precision = Precision::Rounded(rnd);
        s.srcs().first().is_some_and(|&x| eval(&fused, &[value(x)]).is_ok_and(|e| e.accepts(got)))
    })
}

/// Whether statement `k`, a `neg` of a float `set`'s result, gave `got` because ptxas folded
/// the negation into the `set`'s two constants: it selects -1.0 or +0.0 (`SEL R, RZ, 0xbc00,
/// !P` for f16; `FSEL R, RZ, -1, !P` for f32), so a false comparison gives +0 where `neg` of
/// the `set`'s +0 is -0 (9.7.3.10: `neg` flips the sign bit of every value, zeros included).
/// The result is then the +0 the `neg` read, returned as is. ptxas 13.5 does it
/// in some kernels that also call a subroutine (an f64 `sqrt` or an `.rp` `rcp` slow path; not
/// in all: seed 2's program 127,958 calls the f64 `rsqrt` slow path and keeps it), never in
/// a kernel of the two statements alone (`ptx/tests/ptxas_set_folds.rs` checks both in the
/// SASS). The H200's third run met it as campaign findings `neg.f16`, `neg.bf16` and `neg.f32`
/// (`~signed-zero`: docs/hardware/nvidia-h200-2026-12-04; their programs, regenerated from the
/// campaigns' seed, compile to such a `SEL`).
fn neg_folded_into_set(program: &Program, k: usize, got: u64, value: &dyn Fn(Reg) -> u64) -> bool {
    use crate::isa::Opcode;
    let s = &program.body()[k];
    let (instr, [src]) = (s.instr, s.srcs()) else { return false };
    if instr.op != Opcode::Neg || float_set_defining(program, *src).is_none() {
        return false;
    }
    // Scalar forms only: the fold selects one 32-bit constant on one predicate, and a packed
    // `set` keeps its `neg` (`HSET2.BF`, then `HADD2 R, -R, -RZ`), beside a call too.
    let x = value(*src);
    instr.ty.lanes() == 1 && x == 0 && got == 0 && eval(&instr, &[x]).is_ok_and(|e| e.primary_bits() != 0)
}

/// Whether statement `k`, a `cvt` of a half to an integer, gave `got` because ptxas converted
/// the truth value of the float `set` feeding it (1 or 0) instead of its bits read as the
/// `cvt`'s half type. A `set` writes 1.0 of its `.dtype` (9.7.7.1), and a register holds bits:
/// `set.nan.f16.f16` then `cvt.rni.u32.bf16` reads 0x3c00 as bf16, 2^-7, which rounds to 0,
/// where ptxas 13.5 computes `|mask|` (`HSET2` with no `.BF`, `PRMT`, `IABS`, `PRMT`): 1. The
/// same for every rounding and integer type, and for a bf16 `set` (`set.gt.bf16.f16`) read as
/// f16 (0x3f80 is 1.875: 2 with `.rni`). The H200's run 2 met it as `cvt.rni.u32.bf16~rounding` (282 mismatches, 2
/// statements: docs/hardware/nvidia-h200-2026-12-04; the regenerated program's `set` is true
/// in exactly 282 of its 1,024 cases); `ptx/tests/ptxas_set_folds.rs` checks the SASS.
fn set_converted_by_value(program: &Program, k: usize, got: u64, value: &dyn Fn(Reg) -> u64) -> bool {
    use crate::isa::{IntEnd, Opcode};
    let s = &program.body()[k];
    let (instr, [src]) = (s.instr, s.srcs()) else { return false };
    let to_int_from_half = instr.op == Opcode::Cvt
        && instr.ty.lanes() == 1
        && instr.ty.scalar().bits() == 16
        && instr.conv.is_some_and(|c| matches!(c.int, Some(IntEnd::Dest(_))));
    let from_half_set = float_set_defining(program, *src).is_some_and(|set| set.ty.lanes() == 1 && set.ty.scalar().bits() == 16);
    to_int_from_half && from_half_set && got == u64::from(value(*src) != 0)
}

/// The float `set` (9.7.7.1, comparing floats) that defines register `r`, if one
/// does: the statement both ptxas folds above rewrite.
fn float_set_defining(program: &Program, r: Reg) -> Option<crate::isa::Instr> {
    let set = program.body()[program.definition(r)?].instr;
    (set.op == crate::isa::Opcode::Set && set.cmp.is_some_and(|c| c.int.is_none())).then_some(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statements' results of `p` on `inputs`, the interpreter's primary ones, as `value`.
    fn run(p: &Program, inputs: &[u64]) -> Vec<u64> {
        let mut regs = inputs.to_vec();
        for s in p.body() {
            let ops: Vec<u64> = s.srcs().iter().map(|r| regs[r.0 as usize]).collect();
            regs.push(eval(&s.instr, &ops).unwrap().primary_bits());
        }
        regs
    }

    fn explained(text: &str, inputs: &[u64], got: u64) -> Option<Explanation> {
        let p = Program::parse(text).unwrap();
        let regs = run(&p, inputs);
        explain_statement(&p, p.body().len() - 1, got, &|r: Reg| regs[r.0 as usize])
    }

    const NEG_OF_SET: &str = "// inputs: %h0:f16, %h1:f16\nset.gt.f16.f16 %h2, %h0, %h1;\nneg.f16 %h3, %h2;\n// outputs: %h3\n";

    #[test]
    fn a_neg_of_a_false_set_that_kept_positive_zero_is_neg_folded_into_set_before_the_catalogue_s_fold() {
        // 1 > 2 is false: set gives +0, neg of it -0 (0x8000); the folded kernel gives +0.
        let e = explained(NEG_OF_SET, &[0x3c00, 0x4000], 0x0000).unwrap();
        assert_eq!((e.id, e.family_key.as_str(), e.model.clone()), ("neg-folded-into-set", "neg.f16", None));
        assert!(e.detail.contains("SEL"), "{e:?}");
        // The catalogue alone calls it a fold to the operand.
        assert_eq!(super::super::explain(&Program::parse(NEG_OF_SET).unwrap().body()[1].instr, &[Case { operands: vec![0], got: 0 }]).unwrap().id, "folded-to-operand");
    }

    #[test]
    fn a_result_the_isa_accepts_or_no_rewrite_reproduces_is_not_put_down_to_a_rewrite() {
        assert!(explained(NEG_OF_SET, &[0x3c00, 0x4000], 0x8000).is_none(), "-0 is neg's own result");
        // A true comparison: set gives 1.0, neg -1.0; +1.0 back is the catalogue's fold, not the set fold.
        assert_eq!(explained(NEG_OF_SET, &[0x4000, 0x3c00], 0x3c00).unwrap().id, "folded-to-operand");
    }

    #[test]
    fn an_integer_cvt_of_a_half_set_that_gave_its_truth_value_is_set_converted_by_value() {
        let p = "// inputs: %h0:f16, %h1:f16\nset.nan.f16.f16 %h2, %h0, %h1;\ncvt.rni.u32.bf16 %r3, %h2;\n// outputs: %r3\n";
        // A NaN operand: set writes 0x3c00, 2^-7 as bf16, which rounds to 0; the kernel gave 1.
        let e = explained(p, &[0x7e00, 0x3c00], 1).unwrap();
        assert_eq!((e.id, e.family_key.as_str()), ("set-converted-by-value", "cvt.bf16"));
    }

    #[test]
    fn a_rzi_cvt_reading_the_source_of_the_half_cvt_feeding_it_is_half_conversions_fused() {
        // docs/hardware/nvidia-h200-2026-12-04: 0xe0c1 read as f16 is -608.5, truncated -608.
        let p = "// inputs: %h0:bf16\ncvt.rz.f16.bf16 %h1, %h0;\ncvt.rzi.sat.s32.f16 %r2, %h1;\n// outputs: %r2\n";
        let e = explained(p, &[0xe0c1], (-608i32) as u32 as u64).unwrap();
        assert_eq!(e.id, "half-conversions-fused");
    }

    #[test]
    fn every_rewrite_id_is_unique_but_the_fold_one_statement_up_shares_the_catalogue_s() {
        for (i, r) in REWRITES.iter().enumerate() {
            assert!(REWRITES[..i].iter().all(|o| o.id != r.id), "{} twice", r.id);
            let in_catalogue = super::super::CATALOGUE.iter().any(|e| e.id == r.id);
            assert_eq!(in_catalogue, r.id == "folded-to-operand", "{}", r.id);
        }
        let neg = REWRITES.iter().find(|r| r.id == "neg-folded-into-set").unwrap();
        assert_eq!(neg.checked, Checked::BeforeCatalogue);
    }
}
