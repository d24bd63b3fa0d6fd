//! `ptxfuzz bench --cvt`: the interpreter's conversions (`ptx::cvt`) beside the host's own,
//! where the host has one: f32 to f16 and back through F16C, f32 to bf16 by bit manipulation
//! (round to nearest even on the upper 16 bits), f32 to s32 with Rust's saturating cast, f32
//! to tf32 by bit manipulation. `cvt.rs` has no host counterpart: interpreter only.

use std::time::Duration;

use anyhow::{Context, Result};

use crate::bench::{measure, SplitMix};

/// (form, the host's operation name): the conversions compilers emit around f16/bf16 kernels.
const FORMS: &[&str] = &["cvt.rn.f16.f32", "cvt.f32.f16", "cvt.rn.bf16.f32", "cvt.f32.bf16", "cvt.rzi.s32.f32", "cvt.rni.s32.f32", "cvt.rn.f32.s32", "cvt.rn.satfinite.e4m3x2.f32", "cvt.rna.tf32.f32", "cvt.rs.bf16x2.f32"];

/// Typical operands: finite f32 with exponents in [-14, 15] (normal in f16), random sign and
/// fraction; 16-bit sources take the upper half of such an f32 (a bf16) or its f16 rounding.
fn operands(form: &str, n: usize) -> Vec<[u64; 3]> {
    let mut rng = SplitMix(0x5eed_c0de);
    (0..n)
        .map(|_| {
            let (r, r2) = (rng.next(), rng.next());
            let f = |r: u64| ((r >> 63) << 31) | ((127 - 14 + (r >> 32) % 30) << 23) | (r & 0x7f_ffff);
            let x = f(r);
            let a = match form {
                "cvt.f32.f16" => ptx::rounding::round_f64::<ptx::F16>((f32::from_bits(x as u32) as f64).to_bits(), ptx::rounding::Rounding::Rn),
                "cvt.f32.bf16" => x >> 16,
                "cvt.rn.f32.s32" => r & 0xffff_ffff,
                _ => x,
            };
            [a, f(r2), r2 >> 32]
        })
        .collect()
}

/// The host's conversion for `form`, if it has one: its name and the function.
fn host(form: &str) -> Option<(&'static str, fn(u64) -> u64)> {
    let f: (&'static str, fn(u64) -> u64) = match form {
        "cvt.rn.bf16.f32" => ("bf16 bits", |x| {
            let b = x as u32;
            // Round to nearest even on the upper half; a NaN stays a NaN (quieted).
            if f32::from_bits(b).is_nan() {
                return ((b >> 16) | 0x40) as u64;
            }
            ((b as u64 + 0x7fff + ((b as u64 >> 16) & 1)) >> 16) & 0xffff
        }),
        "cvt.f32.bf16" => ("bf16 bits", |x| x << 16),
        // Half of the 13 dropped bits added, then cleared (ptxas 13.5's own code for sm_80/90).
        "cvt.rna.tf32.f32" => ("tf32 bits", |x| {
            let b = x as u32;
            let finite = b & 0x7f80_0000 != 0x7f80_0000;
            (if finite { b.wrapping_add(0x1000) } else { b } & 0xffff_e000) as u64
        }),
        "cvt.rzi.s32.f32" => ("f32 as i32", |x| f32::from_bits(x as u32) as i32 as u32 as u64),
        "cvt.rni.s32.f32" => ("round as", |x| f32::from_bits(x as u32).round_ties_even() as i32 as u32 as u64),
        "cvt.rn.f32.s32" => ("i32 as f32", |x| (x as u32 as i32 as f32).to_bits() as u64),
        // SAFETY (both): F16C is present, checked just above.
        #[cfg(target_arch = "x86_64")]
        "cvt.rn.f16.f32" if std::is_x86_feature_detected!("f16c") => ("F16C", |x| unsafe { f16c::to_half(f32::from_bits(x as u32)) }),
        #[cfg(target_arch = "x86_64")]
        "cvt.f32.f16" if std::is_x86_feature_detected!("f16c") => ("F16C", |x| unsafe { f16c::from_half(x) }),
        _ => return None,
    };
    Some(f)
}

/// The host's conversion timed on `cases` like the interpreter.
fn native(form: &str, cases: &[[u64; 3]], time: Duration) -> Option<(String, f64)> {
    use std::hint::black_box;
    let (name, f) = host(form)?;
    Some((name.to_string(), measure(cases, time, |chunk, out| chunk.iter().zip(out.iter_mut()).for_each(|(c, o)| *o = f(black_box(c[0]))))))
}

#[cfg(target_arch = "x86_64")]
mod f16c {
    use std::arch::x86_64::{_mm_cvtph_ps, _mm_cvtps_ph, _mm_cvtsi128_si32, _mm_cvtsi32_si128, _mm_cvtss_f32, _mm_set_ss, _MM_FROUND_TO_NEAREST_INT};

    /// # Safety
    /// The CPU must have F16C (checked by the caller).
    #[target_feature(enable = "f16c")]
    pub unsafe fn to_half(x: f32) -> u64 {
        (_mm_cvtsi128_si32(_mm_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT }>(_mm_set_ss(x))) as u32 & 0xffff) as u64
    }

    /// # Safety
    /// The CPU must have F16C (checked by the caller).
    #[target_feature(enable = "f16c")]
    pub unsafe fn from_half(x: u64) -> u64 {
        _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(x as i32))).to_bits() as u64
    }
}

/// One line (or JSON object) per conversion: the interpreter's results/s and the host's.
pub fn run(cases: usize, time: Duration, json: bool, filter: Option<&str>) -> Result<()> {
    if let Some(f) = filter.filter(|f| !FORMS.iter().any(|form| form.contains(f))) {
        anyhow::bail!("no conversion measured here contains '{f}' (--filter): leave it out to see the list");
    }
    if !json {
        println!("{:<30} {:>9}   {:<11} {:>9} {:>8}", "form", "M ops/s", "native", "M ops/s", "native/x");
    }
    for &form in FORMS.iter().filter(|f| filter.is_none_or(|t| f.contains(t))) {
        let cases = operands(form, cases);
        let parsed = ptx::cvt::AnyCvt::parse(form).with_context(|| format!("bench form {form}"))?;
        let ops = measure(&cases, time, |chunk, out| chunk.iter().zip(out.iter_mut()).for_each(|(c, o)| *o = parsed.primary(&c[..parsed.inputs()]).unwrap_or(0)));
        let native = native(form, &cases, time);
        if json {
            let mut obj = serde_json::json!({ "form": form, "ops_per_s": ops.round() });
            if let Some((name, n)) = &native {
                obj["native"] = name.clone().into();
                obj["native_ops_per_s"] = n.round().into();
            }
            println!("{obj}");
        } else {
            let (n, o, r) = native.map_or((String::new(), String::new(), String::new()), |(n, o)| (n, format!("{:.1}", o / 1e6), format!("{:.2}", o / ops)));
            println!("{:<30} {:>9.1}   {:<11} {:>9} {:>8}", form, ops / 1e6, n, o, r);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_conversions_agree_with_the_interpreter_on_the_bench_operands() {
        for &form in FORMS {
            let Some((name, f)) = host(form) else { continue };
            let parsed = ptx::cvt::AnyCvt::parse(form).unwrap();
            for c in operands(form, 20_000) {
                assert_eq!(f(c[0]), parsed.primary(&c[..parsed.inputs()]).unwrap(), "{form} vs {name} on 0x{:x}", c[0]);
            }
        }
    }

    #[test]
    fn every_bench_form_parses() {
        for &form in FORMS {
            ptx::cvt::AnyCvt::parse(form).unwrap();
        }
    }
}
