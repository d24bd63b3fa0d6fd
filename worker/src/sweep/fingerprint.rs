//! The output fingerprint of an exhaustive sweep, as `../shared/hw/h100-sm90/README.md` defines
//! it for `sweeps.jsonl`: the sum over every input `u` of `mix((u << 32) | out(u))` modulo 2^64,
//! `mix` the splitmix64 finalizer. It does not depend on the order inputs run in, so a sweep on
//! any engine (or a model) over the whole space can be compared with recorded hardware truth.
//!
//! Defined for forms whose input number and result both fit 32 bits: the unary f32 forms
//! (`u` the input bits) and the binary 16-bit forms (`u = a | b << 16`, which is the sweep's
//! input numbering, `crate::sweep::operands`).
//!
//! The shift is the result's width: the README writes `u << 32` (the f32 forms), but the
//! recorded hashes of the 16-bit pairs are sums of `mix((u << 16) | out)`. Found by
//! recomputing `add_f16` outside ptxfuzz (a C loop over `_Float16`) under several readings:
//! only `u << 16` gives the recorded `4f4efca4b7216189`, and the interpreter's sweep gives the
//! same (the test in `crate::sweep`).

use std::path::Path;

use anyhow::{Context, Result};
use ptx::isa::Instr;

/// The splitmix64 finalizer (the README's `mix`).
pub fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// One input's term of the fingerprint: the input number, then the `out_bits`-bit result.
pub fn term(input: u64, out: u64, out_bits: u32) -> u64 {
    mix((input << out_bits) | (out & ((1u64 << out_bits) - 1)))
}

/// Whether `instr` has a fingerprint: at most 32 bits of input and of result.
pub fn defined_for(instr: &Instr, space_bits: u32) -> bool {
    space_bits <= 32 && instr.ty.bits() <= 32
}

/// One line of `sweeps.jsonl`: the form's name there and its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The form in `eval`'s spelling (the file's `op` names translated, see [`instr_of_op`]).
    pub instr: String,
    pub hash: u64,
}

/// The PTX form a `sweeps.jsonl` `op` names: `rcp`, `rcp_ftz`, ... are the approximate f32
/// forms (`rcp.approx.f32`, `rcp.approx.ftz.f32`), `add_f16`, ... the 16-bit `.rn` pairs.
pub fn instr_of_op(op: &str) -> Option<String> {
    let (name, suffix) = op.split_once('_').map_or((op, None), |(n, s)| (n, Some(s)));
    match (name, suffix) {
        ("add" | "sub" | "mul", Some(t @ ("f16" | "bf16"))) => Some(format!("{name}.rn.{t}")),
        ("rcp" | "sqrt" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh", None) => Some(format!("{name}.approx.f32")),
        ("rcp" | "sqrt" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos", Some("ftz")) => Some(format!("{name}.approx.ftz.f32")),
        _ => None,
    }
}

/// The recorded fingerprints of a `sweeps.jsonl` file (lines without `op` and `hash`, such as
/// the device line, are skipped; an `op` this build does not know is an error).
pub fn read_recorded(path: &Path) -> Result<Vec<Recorded>> {
    let text = crate::input_file::read_text(path, 64 << 20, "a sweeps.jsonl")?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: serde_json::Value =
            serde_json::from_str(line).with_context(|| format!("{}:{}: not JSON", path.display(), n + 1))?;
        let (Some(op), Some(hash)) = (v["op"].as_str(), v["hash"].as_str()) else { continue };
        let instr = instr_of_op(op).with_context(|| format!("{}:{}: unknown op '{op}'", path.display(), n + 1))?;
        let hash = u64::from_str_radix(hash, 16).with_context(|| format!("{}:{}: hash '{hash}' is not hex", path.display(), n + 1))?;
        out.push(Recorded { instr, hash });
    }
    Ok(out)
}

/// The recorded fingerprint of `instr` in `path`, if the file has one.
pub fn recorded_for(path: &Path, instr: &Instr) -> Result<Option<u64>> {
    let want = instr.to_string();
    Ok(read_recorded(path)?.into_iter().find(|r| r.instr == want).map(|r| r.hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_is_the_splitmix64_finalizer() {
        // splitmix64's first output for seed 0 is mix(0x9e3779b97f4a7c15) = 0xe220a8397b1dcdaf.
        assert_eq!(mix(0x9e37_79b9_7f4a_7c15), 0xe220_a839_7b1d_cdaf);
        assert_eq!(mix(0), 0);
    }

    #[test]
    fn every_op_of_the_recorded_sweeps_names_a_form_this_build_parses() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/hw/h100-sm90/sweeps.jsonl");
        let recorded = read_recorded(&path).unwrap();
        assert_eq!(recorded.len(), 21, "15 approximate f32 forms and 6 16-bit pairs");
        for r in &recorded {
            let i = Instr::parse_default(&r.instr).unwrap_or_else(|e| panic!("{}: {e}", r.instr));
            assert_eq!(i.to_string(), r.instr);
        }
        assert_eq!(instr_of_op("tanh_ftz"), None, "tanh.approx.f32 has no .ftz form");
    }
}
