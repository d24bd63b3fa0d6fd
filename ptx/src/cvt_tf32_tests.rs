//! tf32 `cvt` against an independent rounding in f64 arithmetic (the value divided by the tf32
//! ulp of its binade, rounded as an integer, multiplied back), the special rows one by one,
//! the spellings and the requirements.

use super::*;
use crate::expect::Outcome;

fn form(s: &str) -> Tf32Cvt {
    Tf32Cvt::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn primary(c: &Tf32Cvt, x: u32) -> u32 {
    c.eval(&[x as u64]).unwrap().primary_bits() as u32
}

/// The tf32 value of the finite f32 `x` rounded by `mode`, as f32 bits, without bit tricks:
/// tf32 keeps f32's exponent range (subnormals too) with 10 fraction bits, so the grid step
/// of a binade [2^e, 2^(e+1)) is 2^(e-10), and 2^-136 below 2^-126.
fn reference(x: u32, mode: Tf32Rounding) -> u32 {
    let v = f32::from_bits(x) as f64;
    let a = v.abs();
    if a.is_infinite() {
        return x;
    }
    let e = if a == 0.0 { -126 } else { (a.log2().floor() as i32).max(-126) };
    // log2 of a value just below a power of two may round up: step back if so.
    let e = if a != 0.0 && a < 2f64.powi(e) { e - 1 } else { e };
    let step = 2f64.powi(e.max(-126) - 10);
    let q = a / step;
    let r = match mode {
        Tf32Rounding::Rz => q.floor(),
        Tf32Rounding::Rn => q.round_ties_even(),
        Tf32Rounding::Rna => q.round(),
    };
    let m = r * step;
    let bits = if m >= 2f64.powi(128) { 0x7f80_0000 } else { (m as f32).to_bits() };
    bits | (x & 0x8000_0000)
}

/// Inputs: a stride over all 2^32 encodings, every 13-bit tail under a few heads (the ties and
/// the carries), and both sides of every binade edge.
fn inputs() -> Vec<u32> {
    let mut xs: Vec<u32> = (0..u32::MAX / 4099).map(|i| i.wrapping_mul(4099)).collect();
    for head in [0x3f80_0000u32, 0x3fff_e000, 0x0000_0000, 0x007f_e000, 0x7f7f_e000, 0x7f7f_c000] {
        xs.extend((0..0x2000).map(|t| head | t));
    }
    for e in 0..=255u32 {
        let edge = e << 23;
        xs.extend([edge, edge.wrapping_sub(1), edge + 1, edge + 0x1000, edge + 0x0fff]);
    }
    let negated: Vec<u32> = xs.iter().map(|x| x ^ 0x8000_0000).collect();
    xs.extend(negated);
    xs
}

#[test]
fn each_rounding_agrees_with_an_f64_reference_over_a_sample_of_inputs() {
    for mode in Tf32Rounding::ALL {
        let c = Tf32Cvt { rounding: mode, relu: false, satfinite: false };
        for x in inputs() {
            if f32::from_bits(x).is_nan() {
                continue;
            }
            assert_eq!(primary(&c, x), reference(x, mode), "{c} 0x{x:08x}");
        }
    }
}

/// Every f32 input, each rounding (ignored: 2^32 inputs three times; run with
/// `cargo test -p ptx --release -- --ignored tf32_every_f32_input`).
#[test]
#[ignore]
fn tf32_every_f32_input_agrees_with_the_f64_reference() {
    std::thread::scope(|s| {
        for part in 0..2u64 {
            s.spawn(move || {
                for mode in Tf32Rounding::ALL {
                    let c = Tf32Cvt { rounding: mode, relu: false, satfinite: false };
                    for x in (part << 31)..((part + 1) << 31) {
                        let x = x as u32;
                        if !f32::from_bits(x).is_nan() {
                            assert_eq!(primary(&c, x), reference(x, mode), "{c} 0x{x:08x}");
                        }
                    }
                }
            });
        }
    });
}

#[test]
fn results_keep_thirteen_low_bits_zero_and_ties_differ_only_between_rn_and_rna() {
    // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: rn keeps the even 1, rna goes away.
    let tie = 0x3f80_1000;
    assert_eq!(primary(&form("cvt.rn.tf32.f32"), tie), 0x3f80_0000);
    assert_eq!(primary(&form("cvt.rna.tf32.f32"), tie), 0x3f80_2000);
    assert_eq!(primary(&form("cvt.rz.tf32.f32"), 0x3f80_1fff), 0x3f80_0000);
    for c in Tf32Cvt::all() {
        for x in inputs() {
            let r = primary(&c, x);
            assert_eq!(r & DROPPED, 0, "{c} 0x{x:08x} -> 0x{r:08x}");
        }
    }
}

#[test]
fn special_rows_follow_the_section() {
    let inf = 0x7f80_0000u64;
    let all = |s: &str, x: u32| form(s).eval(&[x as u64]).unwrap().lanes[0].clone();
    // Overflow: rn and rna reach infinity, rz stays at MAX_NORM; .satfinite gives MAX_NORM.
    assert_eq!(primary(&form("cvt.rn.tf32.f32"), 0x7f7f_f000 | 0x800), inf as u32);
    assert_eq!(primary(&form("cvt.rna.tf32.f32"), 0x7f7f_f000), inf as u32);
    assert_eq!(primary(&form("cvt.rz.tf32.f32"), 0x7f7f_ffff), MAX_NORM);
    assert_eq!(primary(&form("cvt.rn.satfinite.tf32.f32"), 0xff7f_ffff), 0x8000_0000 | MAX_NORM);
    assert_eq!(primary(&form("cvt.rna.satfinite.tf32.f32"), inf as u32), MAX_NORM);
    assert_eq!(primary(&form("cvt.rn.tf32.f32"), 0xff80_0000), 0xff80_0000);
    // NaN: any NaN (the payload kept, quieted, as the primary); canonical with .relu.
    let nan = all("cvt.rn.satfinite.tf32.f32", 0x7f80_0001);
    assert_eq!(nan.primary, Outcome::Bits(0x7fc0_0000));
    assert!(nan.alternatives.iter().any(|(o, _)| *o == Outcome::AnyNan));
    assert_eq!(all("cvt.rz.relu.tf32.f32", 0xffc0_0000).primary, Outcome::Bits(0x7fff_e000));
    // .relu: negative to +0, a -0 result may keep its sign (the open question of ptx::cvt).
    assert_eq!(primary(&form("cvt.rn.relu.tf32.f32"), (-2.5f32).to_bits()), 0);
    let neg_zero = all("cvt.rz.relu.tf32.f32", 0x8000_0001);
    assert_eq!(neg_zero.primary, Outcome::Bits(0));
    assert!(neg_zero.alternatives.iter().any(|(o, _)| *o == Outcome::Bits(0x8000_0000)));
    // Subnormals stay: tf32 has f32's range.
    assert_eq!(primary(&form("cvt.rna.tf32.f32"), 0x0000_1000), 0x0000_2000);
}

#[test]
fn spellings_outside_the_syntax_lines_name_their_rule() {
    assert_eq!(Tf32Cvt::all().len(), 10);
    for c in Tf32Cvt::all() {
        assert_eq!(Tf32Cvt::parse(&c.to_string()), Ok(c));
    }
    let rule = |s: &str| Tf32Cvt::parse(s).unwrap_err().to_string();
    assert!(rule("cvt.tf32.f32").contains("Rounding modifier is mandatory"));
    assert!(rule("cvt.rna.relu.tf32.f32").contains("has no .relu"));
    assert!(rule("cvt.rm.tf32.f32").contains(".frnd2"));
    assert!(rule("cvt.rn.ftz.tf32.f32").contains("no .ftz"));
    assert!(rule("cvt.rn.f32.tf32").contains("from .f32 only"));
    assert!(rule("cvt.rn.rn.tf32.f32").contains("twice"));
    assert!(Tf32Cvt::claims("cvt.rna.tf32.f32") && !Tf32Cvt::claims("cvt.rn.f16.f32"));
}

#[test]
fn requirements_follow_the_ptx_isa_and_target_notes() {
    let need = |s: &str| {
        let r = form(s).requirement();
        (r.sm, r.ptx.to_string())
    };
    assert_eq!(need("cvt.rna.tf32.f32"), (80, "7.0".to_string()));
    assert_eq!(need("cvt.rna.satfinite.tf32.f32"), (80, "8.1".to_string()));
    assert_eq!(need("cvt.rz.relu.tf32.f32"), (90, "7.8".to_string()));
    assert_eq!(need("cvt.rn.satfinite.relu.tf32.f32"), (100, "8.6".to_string()));
}
