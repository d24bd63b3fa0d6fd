//! An `exec:` engine with ONE planted semantic deviation, for testing that campaigns find,
//! minimize and keep real bugs (worker/tests/planted.rs). It answers the exec protocol
//! (docs/exec-protocol.md) with the reference interpreter's primary results, except where
//! its deviation applies:
//!
//! - `faithful`: none (a campaign against it must find nothing);
//! - `ftz-result`: `.ftz` flushes subnormal inputs but not results (arithmetic forms);
//! - `rz-as-rn`: `add.rz.f32` rounds to nearest;
//! - `fma-split`: fma/mad compute a rounded multiply, then a rounded add;
//! - `sat-nan`: `.sat` lets a NaN result through instead of giving +0;
//! - `minmax-zeros`: min/max return the first operand when all operands are zeros;
//! - `rcp-binade`: rcp.approx.f32 is 2 ulps off (1 beyond its 1-ulp bound, 9.7.3.13) for
//!   inputs in +-[1, 2).
//! - `cvt-rz-as-rn`: `cvt.rz{.relu}{.satfinite}.bf16.f32` rounds to nearest (a conversion
//!   inside programs: the campaign must find it through chains of other formats, issue 16).
//! - `selp-swapped`: `selp` selects `b` where its predicate is true and `a` where it is false
//!   (a predicate source: the campaign must find it behind the `setp` that defines it).
//! - `cvt-rni-as-rzi`: `cvt.rni{.ftz}{.sat}.s32.f32` truncates (an integer result inside
//!   programs, whose readers are `cvt`s from `.s32`).
//! - `ue8m0-rz-as-rp`: `cvt.rz{.satfinite}.ue8m0x2.{f32,bf16x2}` rounds up, as `.rp` does
//!   (an MX scale one binade too large; the forms need `sm_100a`: `campaign --sm 100a`).
//! - `i32-f32-rn-as-rz`: `cvt.rn.f32.{s32,u32}` truncates the integer's low bits. Only an
//!   integer above 2^24 that f32 cannot hold shows it, which no float-to-integer `cvt` writes
//!   (its integer came from an f32): the campaign must find it through integer inputs.
//! - `mixed-bf16-as-f16`: the mixed-precision `{add,sub,fma}.f32.bf16` of sm_100 widen their
//!   bf16 operands as f16 (a widening picked by width alone; `campaign --sm 100`).
//! - `setp-pair-swapped`: a packed `setp.{f16x2,bf16x2}` writes the upper halves' outcome to
//!   `p` and the lower's to `q` (a predicate pair, an output of programs).
//!
//! Usage: `ptxfuzz campaign --target "exec:ptxfuzz-planted-engine rz-as-rn"`.

use std::io::{self, BufRead, Write};

use ptx::format::{Format, Scalar, BF16, F16, F32, F64};
use ptx::interp::{self, Expectation};
use ptx::isa::{AbsMode, Clamp, Ftz, Instr, IntType, Narrow, Opcode, Precision, Type};
use ptx::program::Program;
use ptx::Rounding;
use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Deviation {
    Faithful,
    FtzResult,
    RzAsRn,
    FmaSplit,
    SatNan,
    MinmaxZeros,
    RcpBinade,
    CvtRzAsRn,
    SelpSwapped,
    CvtRniAsRzi,
    Ue8m0RzAsRp,
    I32F32RnAsRz,
    MixedBf16AsF16,
    SetpPairSwapped,
}

const NAMES: [(&str, Deviation); 14] = [
    ("faithful", Deviation::Faithful),
    ("ftz-result", Deviation::FtzResult),
    ("rz-as-rn", Deviation::RzAsRn),
    ("fma-split", Deviation::FmaSplit),
    ("sat-nan", Deviation::SatNan),
    ("minmax-zeros", Deviation::MinmaxZeros),
    ("rcp-binade", Deviation::RcpBinade),
    ("cvt-rz-as-rn", Deviation::CvtRzAsRn),
    ("selp-swapped", Deviation::SelpSwapped),
    ("cvt-rni-as-rzi", Deviation::CvtRniAsRzi),
    ("ue8m0-rz-as-rp", Deviation::Ue8m0RzAsRp),
    ("i32-f32-rn-as-rz", Deviation::I32F32RnAsRz),
    ("mixed-bf16-as-f16", Deviation::MixedBf16AsF16),
    ("setp-pair-swapped", Deviation::SetpPairSwapped),
];

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let Some(&(_, dev)) = NAMES.iter().find(|(n, _)| *n == arg) else {
        let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
        eprintln!("usage: ptxfuzz-planted-engine DEVIATION  (one of: {})", names.join(", "));
        std::process::exit(2);
    };
    let stdin = io::stdin().lock();
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Value>(&line) {
            Ok(req) => {
                let id = req.get("id").cloned().unwrap_or(Value::Null);
                match answer(&req, dev) {
                    Ok(results) => json!({ "id": id, "results": results }),
                    Err(e) => json!({ "id": id, "error": e }),
                }
            }
            Err(e) => json!({ "id": null, "error": format!("bad request: {e}") }),
        };
        if writeln!(stdout, "{reply}").and_then(|_| stdout.flush()).is_err() {
            break;
        }
    }
}

fn answer(req: &Value, dev: Deviation) -> Result<Vec<Vec<String>>, String> {
    let program_json = json!({
        "types": req["types"], "inputs": req["inputs"], "body": req["body"], "outputs": req["outputs"],
    });
    let p = Program::from_json(&program_json.to_string()).map_err(|e| e.to_string())?;
    let cases = req["cases"].as_array().ok_or("\"cases\" must be an array")?;
    let widths: Vec<u32> = p.outputs().iter().map(|&r| p.reg_type(r).bits()).collect();
    let mut out = Vec::with_capacity(cases.len());
    let mut vals: Vec<u64> = Vec::with_capacity(p.reg_count());
    for case in cases {
        let case = case.as_array().ok_or("each case must be an array of hex strings")?;
        if case.len() != p.inputs().len() {
            return Err(format!("a case has {} values for {} inputs", case.len(), p.inputs().len()));
        }
        vals.clear();
        for v in case {
            let s = v.as_str().ok_or("values must be strings")?;
            let h = s.strip_prefix("0x").ok_or_else(|| format!("value '{s}' is not 0x-prefixed hex"))?;
            vals.push(u64::from_str_radix(h, 16).map_err(|e| format!("value '{s}': {e}"))?);
        }
        for s in p.body() {
            let ops: Vec<u64> = s.srcs().iter().map(|r| vals[r.0 as usize]).collect();
            vals.push(eval(&s.instr, &ops, dev)?);
        }
        out.push(
            p.outputs()
                .iter()
                .zip(&widths)
                .map(|(r, &w)| format!("0x{:0d$x}", vals[r.0 as usize], d = (w as usize).div_ceil(4)))
                .collect(),
        );
    }
    Ok(out)
}

fn primary(instr: &Instr, ops: &[u64]) -> Result<u64, String> {
    interp::eval(instr, ops).map(|e: Expectation| e.primary_bits()).map_err(|e| e.to_string())
}

/// Lane `l` of a register of type `ty`.
fn lane(ty: Type, v: u64, l: u32) -> u64 {
    let s = ty.scalar();
    (v >> (l * s.bits())) & s.mask()
}

/// Register `v` with lane `l` replaced by `x`.
fn with_lane(ty: Type, v: u64, l: u32, x: u64) -> u64 {
    let s = ty.scalar();
    let sh = l * s.bits();
    (v & !(s.mask() << sh)) | (x << sh)
}

fn per_scalar<R>(s: Scalar, f16: impl Fn() -> R, bf16: impl Fn() -> R, f32: impl Fn() -> R, f64: impl Fn() -> R) -> R {
    match s {
        Scalar::F16 => f16(),
        Scalar::BF16 => bf16(),
        Scalar::F32 => f32(),
        Scalar::F64 => f64(),
    }
}

fn flush_lane(s: Scalar, x: u64) -> u64 {
    per_scalar(s, || F16::flush(x), || BF16::flush(x), || F32::flush(x), || F64::flush(x))
}

fn is_zero_lane(s: Scalar, x: u64) -> bool {
    per_scalar(s, || F16::is_zero(x), || BF16::is_zero(x), || F32::is_zero(x), || F64::is_zero(x))
}

fn eval(i: &Instr, ops: &[u64], dev: Deviation) -> Result<u64, String> {
    let ty = i.ty;
    let lanes = ty.lanes();
    match dev {
        Deviation::FtzResult
            if i.ftz == Ftz::Flush
                && !i.is_approximate()
                && matches!(i.op, Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma | Opcode::Mad | Opcode::Div | Opcode::Rcp | Opcode::Sqrt) =>
        {
            // Inputs flushed by hand, the operation itself without .ftz: results stay subnormal.
            let flushed: Vec<u64> = ops
                .iter()
                .map(|&v| (0..lanes).fold(v, |acc, l| with_lane(ty, acc, l, flush_lane(ty.scalar(), lane(ty, v, l)))))
                .collect();
            primary(&Instr { ftz: Ftz::Preserve, ..*i }, &flushed)
        }
        Deviation::RzAsRn
            if i.op == Opcode::Add && ty == Type::F32 && i.precision == Precision::Rounded(Rounding::Rz) =>
        {
            primary(&Instr { precision: Precision::Rounded(Rounding::Rn), ..*i }, ops)
        }
        Deviation::CvtRzAsRn
            if i.op == Opcode::Cvt
                && ty == Type::Bf16
                && i.src_type() == Type::F32
                && i.precision == Precision::Rounded(Rounding::Rz) =>
        {
            primary(&Instr { precision: Precision::Rounded(Rounding::Rn), ..*i }, ops)
        }
        Deviation::SelpSwapped if i.op == Opcode::Selp => primary(i, &[ops[1], ops[0], ops[2]]),
        Deviation::CvtRniAsRzi
            if i.op == Opcode::Cvt
                && i.int_dest() == Some(IntType { signed: true, bits: 32 })
                && ty == Type::F32
                && i.precision == Precision::Rounded(Rounding::Rn) =>
        {
            primary(&Instr { precision: Precision::Rounded(Rounding::Rz), ..*i }, ops)
        }
        Deviation::I32F32RnAsRz
            if i.op == Opcode::Cvt
                && i.int_source().is_some_and(|t| t.bits == 32)
                && ty == Type::F32
                && i.precision == Precision::Rounded(Rounding::Rn) =>
        {
            primary(&Instr { precision: Precision::Rounded(Rounding::Rz), ..*i }, ops)
        }
        Deviation::MixedBf16AsF16 if i.atype == Some(Type::Bf16) => primary(&Instr { atype: Some(Type::F16), ..*i }, ops),
        Deviation::SetpPairSwapped if i.writes_predicate_pair() => primary(i, ops).map(|pq| (pq & 1) << 1 | pq >> 1),
        Deviation::Ue8m0RzAsRp
            if i.narrow_dest() == Some(Narrow::Ue8m0) && i.precision == Precision::Rounded(Rounding::Rz) =>
        {
            primary(&Instr { precision: Precision::Rounded(Rounding::Rp), ..*i }, ops)
        }
        Deviation::FmaSplit if matches!(i.op, Opcode::Fma | Opcode::Mad) && !i.is_approximate() => {
            let mul = Instr { op: Opcode::Mul, inputs: 2, clamp: Clamp::None, ..*i };
            let add = Instr { op: Opcode::Add, inputs: 2, ..*i };
            let t = primary(&mul, &ops[..2])?;
            primary(&add, &[t, ops[2]])
        }
        Deviation::SatNan if i.clamp == Clamp::Sat => {
            let sat = primary(i, ops)?;
            let raw = primary(&Instr { clamp: Clamp::None, ..*i }, ops)?;
            let s = ty.scalar();
            Ok((0..lanes).fold(sat, |acc, l| {
                let r = lane(ty, raw, l);
                if s.is_nan(r) {
                    with_lane(ty, acc, l, r)
                } else {
                    acc
                }
            }))
        }
        Deviation::MinmaxZeros if matches!(i.op, Opcode::Min | Opcode::Max) && i.abs == AbsMode::None => {
            let r = primary(i, ops)?;
            let s = ty.scalar();
            Ok((0..lanes).fold(r, |acc, l| {
                if ops.iter().all(|&v| is_zero_lane(s, lane(ty, v, l))) {
                    with_lane(ty, acc, l, lane(ty, ops[0], l))
                } else {
                    acc
                }
            }))
        }
        Deviation::RcpBinade
            if i.op == Opcode::Rcp && ty == Type::F32 && i.precision == Precision::Approx && (ops[0] >> 23) & 0xff == 127 =>
        {
            // 1/x for |x| in [1, 2) lies in (0.5, 1]: 2 steps away from zero stay finite.
            Ok(ptx::approx::correctly_rounded(i, ops).map_err(|e| e.to_string())? + 2)
        }
        _ => primary(i, ops),
    }
}
