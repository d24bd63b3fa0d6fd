//! Tests of the batch kernel: each dedicated loop gives `eval`'s primary result.

use super::*;
use crate::isa::{all_forms, Type};

/// Operand lanes that exercise every branch: zeros, subnormals, the smallest normal, one,
/// the largest finite, infinities, quiet and signalling NaNs, and ordinary values.
fn specials<F: Format>() -> Vec<u64> {
    let mut v = vec![
        0,
        1,
        F::MIN_NORMAL - 1,
        F::MIN_NORMAL,
        F::MIN_NORMAL + 1,
        F::ONE,
        F::ONE + 1,
        F::ONE - 1,
        F::MAX_FINITE,
        F::INF,
        F::INF | F::QUIET_BIT | 5,
        F::INF | 3,
        F::ONE >> 1,
        (F::ONE >> 1) + (F::ONE >> 3) + 7,
    ];
    let neg: Vec<u64> = v.iter().map(|x| x | F::SIGN_MASK).collect();
    v.extend(neg);
    v
}

fn cases_for(ty: Type, inputs: usize) -> Vec<[u64; 3]> {
    let lanes: Vec<u64> = match ty.scalar() {
        Scalar::F16 => specials::<F16>(),
        Scalar::BF16 => specials::<BF16>(),
        Scalar::F32 => specials::<F32>(),
        Scalar::F64 => specials::<F64>(),
    };
    let w = ty.scalar().bits();
    let n = lanes.len();
    let mut out = Vec::new();
    for i in 0..n * n {
        let mut c = [0u64; 3];
        for (k, slot) in c.iter_mut().enumerate().take(inputs) {
            let pick = |j: usize| lanes[(i / n.pow(k as u32) + j * 7 + k) % n];
            *slot = pick(0);
            if ty.lanes() == 2 {
                *slot |= pick(3) << w;
            }
        }
        out.push(c);
    }
    out
}

#[test]
fn kernel_matches_eval_on_every_form() {
    let mut checked = 0;
    for instr in all_forms() {
        let Ok(kernel) = Kernel::new(&instr) else {
            assert!(eval(&instr, &[0, 0, 0][..usize::from(instr.inputs)]).is_err());
            continue;
        };
        let n = usize::from(instr.inputs);
        let cases = cases_for(instr.ty, n);
        let mut out = vec![0; cases.len()];
        kernel.run(&cases, &mut out);
        for (c, got) in cases.iter().zip(&out) {
            let want = eval(&instr, &c[..n]).unwrap().primary_bits();
            assert_eq!(*got, want, "{instr} {:x?}", &c[..n]);
            checked += 1;
        }
    }
    assert!(checked > 100_000, "only {checked} cases");
}

/// The 16-bit approximate forms run from a table of primaries (`Form::half_table`): on
/// every input, in both lanes of the packed forms, it gives what `eval` gives.
#[test]
fn half_approximate_forms_match_eval_on_every_input() {
    let mut forms = 0;
    for instr in all_forms() {
        let Some(form) = crate::approx::Form::of(&instr) else { continue };
        if form.half_table().is_none() {
            continue;
        }
        forms += 1;
        let kernel = Kernel::new(&instr).unwrap();
        // Lane 1 carries the input reversed, so both lanes see every value.
        let cases: Vec<[u64; 3]> = (0..=u16::MAX as u64)
            .map(|x| [if instr.ty.lanes() == 2 { x | (x.reverse_bits() >> 48) << 16 } else { x }, 0, 0])
            .collect();
        let mut out = vec![0; cases.len()];
        kernel.run(&cases, &mut out);
        for (c, got) in cases.iter().zip(&out) {
            assert_eq!(*got, eval(&instr, &c[..1]).unwrap().primary_bits(), "{instr} {:#x}", c[0]);
        }
    }
    assert_eq!(forms, 8, "ex2 and tanh on f16, f16x2, bf16, bf16x2");
}

/// Random operands: ordinary values of every magnitude (most results inexact, so every
/// rounding branch runs), with a sprinkling of the special lanes.
fn random_cases(ty: Type, inputs: usize, n: usize, seed: u64) -> Vec<[u64; 3]> {
    let specials: Vec<u64> = match ty.scalar() {
        Scalar::F16 => specials::<F16>(),
        Scalar::BF16 => specials::<BF16>(),
        Scalar::F32 => specials::<F32>(),
        Scalar::F64 => specials::<F64>(),
    };
    let w = ty.scalar().bits();
    let mask = ty.scalar().mask();
    let mut state = seed;
    let mut next = move || {
        // SplitMix64.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|_| {
            let mut c = [0u64; 3];
            for slot in c.iter_mut().take(inputs) {
                for l in 0..ty.lanes() {
                    let r = next();
                    let v = if r % 8 == 0 { specials[(r >> 8) as usize % specials.len()] } else { next() & mask };
                    *slot |= v << (l * w);
                }
            }
            c
        })
        .collect()
}

#[test]
fn kernel_matches_eval_on_random_operands() {
    for (k, instr) in all_forms().into_iter().enumerate() {
        let Ok(kernel) = Kernel::new(&instr) else { continue };
        let n = usize::from(instr.inputs);
        let cases = random_cases(instr.ty, n, 3000, k as u64);
        let mut out = vec![0; cases.len()];
        kernel.run(&cases, &mut out);
        for (c, got) in cases.iter().zip(&out) {
            let want = eval(&instr, &c[..n]).unwrap().primary_bits();
            assert_eq!(*got, want, "{instr} {:x?}", &c[..n]);
        }
    }
}

#[test]
fn every_form_has_a_dedicated_loop() {
    // A form without one still evaluates correctly, through `eval`, but several times
    // slower: a new form or modifier combination should get its loop.
    for instr in all_forms() {
        if let Ok(kernel) = Kernel::new(&instr) {
            assert!(kernel.dedicated, "{instr} goes through eval");
        }
    }
}

#[test]
fn kernel_rejects_what_eval_rejects() {
    // A form that never passed validation: sin has no f64 form (9.7.3.18).
    let bogus = Instr { precision: crate::isa::Precision::Approx, ..Instr::new(Opcode::Sin, Type::F64) };
    assert!(Kernel::new(&bogus).is_err());
    assert!(eval(&bogus, &[0]).is_err());
}

/// The mixed-precision forms (9.7.5): `a` (and `fma`'s `b`) over the half specials, `c` over
/// the f32 ones; the loop widens the halves and runs the `.f32` form's own loop.
#[test]
fn kernel_matches_eval_on_every_mixed_precision_form() {
    let mut checked = 0;
    for instr in crate::isa::mixed::mixed_forms() {
        let kernel = Kernel::new(&instr).unwrap_or_else(|e| panic!("{instr}: {e}"));
        assert!(kernel.dedicated(), "{instr} goes through eval");
        let n = usize::from(instr.inputs);
        let halves: Vec<u64> = cases_for(instr.atype.unwrap(), 1).into_iter().map(|c| c[0]).collect();
        let singles: Vec<u64> = cases_for(Type::F32, 1).into_iter().map(|c| c[0]).collect();
        let cases: Vec<[u64; 3]> = halves
            .iter()
            .enumerate()
            .map(|(i, &h)| {
                let (b, c) = (halves[(i * 7 + 3) % halves.len()], singles[(i * 5 + 1) % singles.len()]);
                if n == 3 { [h, b, c] } else { [h, c, 0] }
            })
            .collect();
        let mut out = vec![0; cases.len()];
        kernel.run(&cases, &mut out);
        for (c, got) in cases.iter().zip(&out) {
            assert_eq!(*got, eval(&instr, &c[..n]).unwrap().primary_bits(), "{instr} {:x?}", &c[..n]);
            checked += 1;
        }
    }
    assert!(checked > 10_000, "only {checked} cases");
}
