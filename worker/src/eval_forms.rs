//! `ptxfuzz eval` for the forms outside `ptx::isa::Instr`: `cvt` (float-float, float-integer,
//! the narrow formats), `setp`/`set`/`selp` and mixed-precision `add`/`sub`/`fma`.

use anyhow::{Context, Result};
use ptx::isa::Type;
use ptx::isa::Instr;
use ptx::profile::{Profile, Resolved};
use ptx::value::{format_register_decimal, format_register_hex, parse_operand, range_notes, RangeNote, ValueError};

use super::accept_line;

/// The line for `mnemonic` if it is one of this module's forms (`full`: decimal values after an
/// accepted set, as single-instruction eval prints them); `notes` gets the decimal operands
/// rounding took to an infinity or a zero.
pub(super) fn line(mnemonic: &str, operands: &[&str], accept: bool, profile: &Profile, full: bool, notes: &mut Vec<RangeNote>) -> Option<Result<String>> {
    if mnemonic.starts_with("cvt.") {
        Some(cvt_line(mnemonic, operands, accept, profile, full, notes))
    } else if is_compare(mnemonic) {
        Some(compare_line(mnemonic, operands, accept, profile, notes))
    } else if ptx::mixed::is_mixed(mnemonic) {
        Some(mixed_line(mnemonic, operands, accept, profile, full, notes))
    } else {
        None
    }
}

/// A mixed-precision `add`/`sub`/`fma` (`ptx::mixed`): the half operands `a` (and `b`) in
/// f16/bf16, `c` in f32; the f32 result as `HEX\tDECIMAL` (or the accepted set).
fn mixed_line(mnemonic: &str, operands: &[&str], accept: bool, profile: &Profile, full: bool, notes: &mut Vec<RangeNote>) -> Result<String> {
    let m = ptx::mixed::Mixed::parse(mnemonic)?;
    let half = if m.half == ptx::Scalar::F16 { Type::F16 } else { Type::Bf16 };
    anyhow::ensure!(operands.len() == m.inputs(), "{m} takes {} operand(s), not {}", m.inputs(), operands.len());
    let ops = operands
        .iter()
        .enumerate()
        .map(|(i, t)| float(if m.is_half_operand(i) { half } else { Type::F32 }, t, notes))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("bad operand for {m} (a{}: {}, c: f32)", if m.inputs() == 3 { ", b" } else { "" }, m.half.name()))?;
    let exp = ptx::mixed::eval(&m, &ops)?;
    let bits = exp.primary_bits();
    let mut line = match accept {
        true if full => accept_line(&exp),
        true => exp.to_string(),
        false => format!("{}\t{}", format_register_hex(Type::F32, bits), format_register_decimal(Type::F32, bits)),
    };
    if let Profile::Hardware(_) = profile {
        line.push_str(&format!("\t({}: no sm_100 profile; the spec's value)", profile.name()));
    }
    Ok(line)
}

/// One `cvt` (`ptx::cvt`): operands parsed in the source format, the result as
/// `HEX\tDECIMAL` in the destination's (or the accepted set, `full`: with the decimal values);
/// under a hardware profile its one result (the NaN rows of `cvt_nan`, from the H200's capture).
fn cvt_line(mnemonic: &str, operands: &[&str], accept: bool, profile: &Profile, full: bool, notes: &mut Vec<RangeNote>) -> Result<String> {
    use ptx::cvt::AnyCvt;
    let c = match AnyCvt::parse(mnemonic)? {
        AnyCvt::Stochastic(c) => return stochastic_line(&c, operands, accept, profile, full, notes),
        AnyCvt::StochasticQuad(c) => return quad_line(&c, operands, accept, profile, notes),
        AnyCvt::Tf32(c) => {
            let ops = operands.iter().map(|t| float(Type::F32, t, notes)).collect::<Result<Vec<_>, _>>().with_context(|| format!("bad operand for {c}"))?;
            let line = cvt_result(&c.eval(&ops)?, Type::F32, accept, profile, full, Some((&Instr::from_tf32(&c), &ops)));
            return Ok(match accept {
                true => format!("{line}\t(tf32 in the f32 layout, 13 low bits zero: a reading, PTX ISA 5.2.3 calls the layout implementation defined)"),
                false => line,
            });
        }
        AnyCvt::Narrow(c) => return narrow_line(&c, operands, accept, profile, notes),
        AnyCvt::Int(c) => return cvt_int_line(&c, operands, accept, profile, notes),
        AnyCvt::Float(c) => c,
    };
    let (src, dst) = (Type::of(c.src, false), Type::of(c.dst, c.packed));
    let ops = operands.iter().map(|t| float(src, t, notes)).collect::<Result<Vec<_>, _>>().with_context(|| format!("bad operand for {c}"))?;
    Ok(cvt_result(&ptx::cvt::eval(&c, &ops)?, dst, accept, profile, full, Some((&Instr::from_cvt(&c), &ops))))
}

/// A `cvt.rs` (`ptx::cvt::stochastic`): `a`, `b` in f32, `rbits` as integer or hex bits; the
/// packed destination as `HEX\tLOW,HIGH`.
fn stochastic_line(c: &ptx::cvt::stochastic::StochasticCvt, operands: &[&str], accept: bool, profile: &Profile, full: bool, notes: &mut Vec<RangeNote>) -> Result<String> {
    let ops = rs_operands(&c.to_string(), "a, b", operands, notes)?;
    let dst = if c.dst == ptx::Scalar::F16 { Type::F16x2 } else { Type::Bf16x2 };
    Ok(cvt_result(&c.eval(&ops)?, dst, accept, profile, full, None))
}

/// The operands of a `cvt.rs`: the f32 values named `floats` (`"a, b"`), then `rbits` as an
/// integer or hex bits (9.7.9.21: "rbits ... .b32").
fn rs_operands(form: &str, floats: &str, operands: &[&str], notes: &mut Vec<RangeNote>) -> Result<Vec<u64>> {
    let n = floats.split(", ").count();
    anyhow::ensure!(operands.len() == n + 1, "{form} takes {floats} (f32) and rbits (b32), not {} operand(s)", operands.len());
    let rbits = ptx::cvt::int::IntType { signed: false, bits: 32 };
    operands
        .iter()
        .enumerate()
        .map(|(i, t)| if i == n { parse_int(rbits, t) } else { Ok(float(Type::F32, t, notes)?) })
        .collect::<Result<Vec<_>>>()
        .with_context(|| format!("bad operand for {form} ({floats}: f32; rbits: b32)"))
}

/// A `cvt.rs` to an x4 destination (`ptx::cvt::stochastic_quad`): `a b e f` in f32, `rbits` as
/// integer or hex bits; the destination as `HEX\tDECIMAL,...` (low element, `f`'s, first, as
/// the pair forms print theirs), the allowed set after it with `--accept`.
fn quad_line(c: &ptx::cvt::stochastic_quad::QuadCvt, operands: &[&str], accept: bool, profile: &Profile, notes: &mut Vec<RangeNote>) -> Result<String> {
    let ops = rs_operands(&c.to_string(), "a, b, e, f", operands, notes)?;
    let exp = c.eval(&ops)?;
    let (bits, w) = (exp.primary_bits(), exp.lane_bits());
    let lanes: Vec<String> = (0..4).map(|i| ptx::cvt::narrow::decode(c.dst, bits >> (w * i) & ((1 << w) - 1)).to_string().to_lowercase()).collect();
    let mut line = format!("0x{bits:0n$x}\t{}", lanes.join(","), n = (c.dst_bits() / 4) as usize);
    if accept {
        line.push_str(&format!("\t({exp}; lane0 is f's, lane3 a's)"));
    }
    if let Profile::Hardware(_) = profile {
        line.push_str(&format!("\t(cvt.rs: {} records no stochastic rounding; the spec's value)", profile.name()));
    }
    Ok(line)
}

/// A `cvt` result in the destination register type `dst` (lanes of `scalar`): the primary as
/// `HEX\tDECIMAL`, or the allowed set when asked for; under a hardware profile the profile's one
/// result of `instr` on its operands (`None`: a form no profile row covers, the spec's set, said so).
fn cvt_result(exp: &ptx::expect::Expectation, dst: Type, accept: bool, profile: &Profile, full: bool, instr: Option<(&Instr, &[u64])>) -> String {
    let one = |bits: u64| format!("{}\t{}", format_register_hex(dst, bits), format_register_decimal(dst, bits));
    let set = || if full { accept_line(exp) } else { exp.to_string() };
    match (profile, instr) {
        (Profile::Hardware(_), Some((i, ops))) => match profile.resolve(i, ops, exp) {
            Resolved::One(bits) => one(bits),
            Resolved::Set(_) => format!("{}\t({}: no row decides this case; the spec's allowed set)", set(), profile.name()),
        },
        (Profile::Hardware(_), None) => format!("{}\t({}: no recording of this form; the spec's allowed set)", set(), profile.name()),
        (Profile::Spec, _) if accept => set(),
        (Profile::Spec, _) => one(exp.primary_bits()),
    }
}

/// A `cvt` with an 8-, 6- or 4-bit format or ue8m0 (`ptx::cvt::narrow`): `a b` (two f32) or one
/// packed register in, the packed destination as `HEX\tLOW,HIGH` (decimal, low lane first).
fn narrow_line(c: &ptx::cvt::narrow::NarrowCvt, operands: &[&str], accept: bool, profile: &Profile, notes: &mut Vec<RangeNote>) -> Result<String> {
    use ptx::cvt::narrow::{decode, eval, Allowed, Direction, Wide};
    let wide_type = |w: Wide| match w {
        Wide::F32 => Type::F32,
        Wide::F16x2 => Type::F16x2,
        Wide::Bf16x2 => Type::Bf16x2,
    };
    anyhow::ensure!(operands.len() == c.inputs(), "{c} takes {} operand(s), not {}", c.inputs(), operands.len());
    let ops = operands
        .iter()
        .map(|t| match c.dir {
            Direction::Down { src, .. } => Ok(float(wide_type(src), t, notes)?),
            Direction::Up { src, .. } => parse_int(ptx::cvt::int::IntType { signed: false, bits: src.packed_bits() }, t),
        })
        .collect::<Result<Vec<_>>>()
        .with_context(|| format!("bad operand for {c}"))?;
    let r = eval(c, &ops)?;
    let render = |bits: u64| match c.dir {
        Direction::Down { dst, .. } => {
            let half = dst.slot_bits();
            let lane = |i: u32| decode(dst, bits >> (half * i) & ((1 << half) - 1)).to_string().to_lowercase();
            format!("0x{:0w$x}\t{},{}", bits, lane(0), lane(1), w = (r.width / 4) as usize)
        }
        Direction::Up { dst, .. } => format!("{}\t{}", format_register_hex(wide_type(dst), bits), format_register_decimal(wide_type(dst), bits)),
    };
    let mut line = render(r.bits);
    let notes: Vec<String> = r
        .lanes
        .iter()
        .enumerate()
        .filter_map(|(i, l)| match l {
            Allowed::One(_) => None,
            Allowed::AnyNan { .. } => Some(format!("lane{i}: any NaN")),
            Allowed::Either { other, why, .. } => Some(format!("lane{i}: or 0x{other:x} ({why})")),
            Allowed::Unspecified { why, .. } => Some(format!("lane{i}: unspecified, {why}")),
        })
        .collect();
    if accept && !notes.is_empty() {
        line.push_str(&format!("\t({})", notes.join("; ")));
    }
    if let Profile::Hardware(_) = profile {
        // The profile's NaN of the format and its `.relu` row (the H200's capture of the fp8 forms).
        let instr = Instr::from_narrow(c);
        match profile.resolve(&instr, &ops, &ptx::interp::eval(&instr, &ops)?) {
            Resolved::One(bits) => line = render(bits),
            Resolved::Set(_) => line.push_str(&format!("\t({}: no recording of this format; the spec's value)", profile.name())),
        }
    }
    Ok(line)
}

/// An integer operand of `ty`: decimal (negative for a signed type) or hex bits.
fn parse_int(ty: ptx::cvt::int::IntType, text: &str) -> Result<u64> {
    let v: i128 = match text.strip_prefix("0x") {
        Some(h) => {
            let b = u64::from_str_radix(h, 16).with_context(|| format!("'{text}' is not hex bits"))?;
            anyhow::ensure!(b & !ty.mask() == 0, "'{text}' has more than {} bits", ty.bits);
            return Ok(b);
        }
        None => text.parse().with_context(|| format!("'{text}' is not an integer; give decimal or hex bits (0x..)"))?,
    };
    anyhow::ensure!((ty.min()..=ty.max()).contains(&v), "{v} is outside .{} ({}..={})", ty.name(), ty.min(), ty.max());
    Ok(v as u64 & ty.mask())
}

/// A `cvt` between a float and an integer type (`ptx::cvt::int`): one value, printed as
/// `HEX\tDECIMAL` in the destination type.
fn cvt_int_line(c: &ptx::cvt::int::CvtInt, operands: &[&str], accept: bool, profile: &Profile, notes: &mut Vec<RangeNote>) -> Result<String> {
    use ptx::cvt::int::Converted;
    let float_ty = Type::of(c.float, false);
    let ops = operands
        .iter()
        .map(|t| if c.to_int { float(float_ty, t, notes).map_err(anyhow::Error::from) } else { parse_int(c.int, t) })
        .collect::<Result<Vec<_>>>()
        .with_context(|| format!("bad operand for {c}"))?;
    let line = match c.eval(&ops)? {
        Converted::Int(t, bits) => format!("0x{bits:0w$x}\t{}", t.value(bits), w = (t.bits / 4) as usize),
        Converted::Float(e) => {
            let b = e.primary_bits();
            format!("{}\t{}", format_register_hex(float_ty, b), format_register_decimal(float_ty, b))
        }
    };
    // The spec allows one value, and the H200's capture of every sm_90 float-integer form agrees
    // with it on every case: a profile's answer is that value.
    Ok(match (accept, profile) {
        (true, _) => format!("{line}\t(the only value the spec allows)"),
        _ => line,
    })
}

/// A float operand of `ty` (`parse_operand`), its out-of-range decimal literals added to `notes`.
pub(super) fn float(ty: Type, text: &str, notes: &mut Vec<RangeNote>) -> Result<u64, ValueError> {
    let bits = parse_operand(ty, text)?;
    notes.extend(range_notes(ty, text));
    Ok(bits)
}

fn is_compare(mnemonic: &str) -> bool {
    ["setp.", "set.", "selp."].iter().any(|p| mnemonic.starts_with(p))
}

/// A `setp`, `set` or `selp` (`ptx::compare`): `a`, `b` in the source type, then the predicate
/// `c` (`1`, `0`, `true`, `false`, `!` negates) where the form takes one. `setp` prints
/// `p|q` (or `p` alone for the scalar half forms) as `1|0\ttrue|false`; `set` and `selp` the
/// destination as `HEX\tDECIMAL`.
fn compare_line(mnemonic: &str, operands: &[&str], accept: bool, profile: &Profile, notes: &mut Vec<RangeNote>) -> Result<String> {
    use ptx::compare::{eval, Compare, Compared, Ty};
    use ptx::cvt::int::IntType;
    let c = Compare::parse(mnemonic)?;
    let float_type = |t: Ty| match t {
        Ty::Float(ptx::Scalar::F16) => Some(Type::F16),
        Ty::Float(ptx::Scalar::BF16) => Some(Type::Bf16),
        Ty::Float(ptx::Scalar::F32) => Some(Type::F32),
        Ty::Float(ptx::Scalar::F64) => Some(Type::F64),
        Ty::Packed(ptx::Scalar::BF16) => Some(Type::Bf16x2),
        Ty::Packed(_) => Some(Type::F16x2),
        _ => None,
    };
    let int_type = |t: Ty| match t {
        Ty::Int(i) => i,
        t => IntType { signed: false, bits: t.bits() },
    };
    let mut value = |t: &str| -> Result<u64> {
        match float_type(c.ty) {
            Some(ft) => Ok(float(ft, t, notes)?),
            None => parse_int(int_type(c.ty), t),
        }
    };
    let predicate = |t: &str| -> Result<u64> {
        let (neg, v) = t.strip_prefix('!').map_or((false, t), |v| (true, v));
        let b = match v {
            "1" | "true" => true,
            "0" | "false" => false,
            _ => anyhow::bail!("predicate '{t}' is not 1, 0, true or false (prefix ! to negate)"),
        };
        Ok((b ^ neg) as u64)
    };
    let c_too = if c.inputs() == 3 { ", then the predicate c" } else { "" };
    anyhow::ensure!(
        operands.len() == c.inputs(),
        "{c} takes {} operand(s) (a, b{c_too}), not {}",
        c.inputs(),
        operands.len()
    );
    let ops = operands
        .iter()
        .enumerate()
        .map(|(i, t)| if i == 2 { predicate(t) } else { value(t) })
        .collect::<Result<Vec<_>>>()
        .with_context(|| format!("bad operand for {c}"))?;
    let word = |b: bool| if b { "true" } else { "false" };
    let line = match eval(&c, &ops)? {
        Compared::Predicates { p, q: Some(q) } => format!("{}|{}\t{}|{}", p as u8, q as u8, word(p), word(q)),
        Compared::Predicates { p, q: None } => format!("{}\t{}", p as u8, word(p)),
        Compared::Register { ty, bits } => match float_type(ty) {
            Some(ft) => format!("{}\t{}", format_register_hex(ft, bits), format_register_decimal(ft, bits)),
            None => {
                let t = int_type(ty);
                format!("0x{bits:0w$x}\t{}", t.value(bits), w = (t.bits / 4) as usize)
            }
        },
    };
    // One value, and the H200's capture of every sm_90 comparison form agrees with it on every
    // case: a profile's answer is that value.
    let _ = profile;
    Ok(match accept {
        true => format!("{line}\t(the only value the spec allows)"),
        false => line,
    })
}

