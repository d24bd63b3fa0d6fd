//! `ptxfuzz sweep --dump FILE`: every output of a run of consecutive inputs, written in the
//! dense format of the H100 recordings (`../shared/hw/h100-sm90/README.md`, `dense/`), so that
//! a GPU session can record the binades a bit-exact model needs and a later session without a
//! GPU can fit and test against them (issue #15: the tanh binades of
//! docs/hardware/dense-nvidia-h200-2026-11-26/ were recorded so, and the tanh model fitted).
//!
//! Format: an xz stream; a JSON header line (`instr`, `start`, `count`, `out_bytes`, `first`,
//! `deltas`); the first output as a little-endian i64; then the `count - 1` differences
//! between consecutive outputs, each in the narrowest little-endian signed type that holds
//! all of them (`deltas`). Output `i` is the running sum.

use anyhow::{bail, Context, Result};

/// The most outputs one dump holds in memory (8 bytes each: 2 GiB). A whole 2^32 space is a
/// fingerprint's job (`--truth`), not a dump's; dump binades, as the recordings do.
pub const MAX_OUTPUTS: u64 = 1 << 28;

/// The dense file's name for `count` outputs of `instr` from input `start`, as the recordings
/// name theirs (`rcp.approx.f32.3f800000.8388608.dxz`).
pub fn file_name(instr: &str, start: u64, count: u64) -> String {
    format!("{instr}.{start:08x}.{count}.dxz")
}

/// The bytes of a dense file holding `outputs` (consecutive inputs from `start`) of `instr`,
/// whose result register is `out_bits` wide.
pub fn encode(instr: &str, start: u64, out_bits: u32, outputs: &[u64]) -> Result<Vec<u8>> {
    let Some(&first) = outputs.first() else { bail!("nothing to dump: the sweep ran no input") };
    let deltas: Vec<i64> = outputs.windows(2).map(|w| (w[1] as i64).wrapping_sub(w[0] as i64)).collect();
    let (name, width) = match deltas.iter().map(|d| d.unsigned_abs()).max().unwrap_or(0) {
        m if m < 1 << 7 => ("int8", 1),
        m if m < 1 << 15 => ("int16", 2),
        m if m < 1 << 31 => ("int32", 4),
        _ => ("int64", 8),
    };
    // Field order and spacing as the recordings' headers (Python's json.dumps).
    let header = format!(
        "{{\"instr\": {}, \"start\": {start}, \"count\": {}, \"out_bytes\": {}, \"first\": \"int64\", \"deltas\": \"{name}\"}}\n",
        serde_json::to_string(instr)?,
        outputs.len(),
        out_bits / 8
    );
    let mut raw = header.into_bytes();
    raw.extend_from_slice(&(first as i64).to_le_bytes());
    for d in &deltas {
        raw.extend_from_slice(&d.to_le_bytes()[..width]);
    }
    let mut xz = Vec::new();
    lzma_rs::xz_compress(&mut &raw[..], &mut xz).context("xz compression failed")?;
    Ok(xz)
}

/// Run the `count` consecutive inputs from `start` on `engine` (the job path: every output
/// comes back) and return their outputs in input order. Refuses what the format cannot hold: a
/// stride other than 1, a run past the end of the space, more than [`MAX_OUTPUTS`]; a faulted
/// batch is an error (a dump with a hole would be read as the hardware's answer).
pub fn record(engine: &mut dyn crate::oracles::Engine, instr: &ptx::isa::Instr, plan: super::Plan, batch: usize, stop: &std::sync::atomic::AtomicBool) -> Result<Vec<u64>> {
    let space = 1u128 << super::space_bits(instr)?;
    if plan.stride != 1 {
        bail!("--dump records consecutive inputs: leave --stride at 1");
    }
    if plan.count > MAX_OUTPUTS as u128 {
        bail!("--dump holds at most {MAX_OUTPUTS} outputs: give --limit (a binade of f32 is 8388608)");
    }
    if plan.start as u128 + plan.count > space {
        bail!("inputs {:#x} + {} run past the end of {instr}'s input space ({space} inputs): lower --start or --limit", plan.start, plan.count);
    }
    let p = super::program_of(instr)?;
    if !engine.supports(&p) {
        return Err(super::not_run(engine, instr, false));
    }
    let mut outputs = Vec::with_capacity(plan.count as usize);
    let mut cases = Vec::new();
    let (mut next, end) = (plan.start, plan.start as u128 + plan.count);
    let mut reported = 0u128;
    while (next as u128) < end {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            bail!("interrupted after {} of {} inputs: nothing written", outputs.len(), plan.count);
        }
        let n = (end - next as u128).min(batch as u128) as u64;
        cases.clear();
        for i in next..next + n {
            cases.extend_from_slice(&super::operands(instr, i)[..instr.inputs as usize]);
        }
        let out = engine.run(&[crate::oracles::Job::new(&p, &cases, false)]).pop().context("the engine returned no result")?;
        let out = out.map_err(|f| anyhow::anyhow!("the target faulted on inputs {next:#x}..{:#x}: {f}; nothing written", next + n))?;
        outputs.extend_from_slice(&out.values);
        next += n;
        // Progress on long dumps (one line per eighth).
        if (outputs.len() as u128) * 8 / plan.count > reported {
            reported = (outputs.len() as u128) * 8 / plan.count;
            eprintln!("  {} of {} inputs", outputs.len(), plan.count);
        }
    }
    Ok(outputs)
}

/// A dense file read back: its header's instruction and first input, and every output.
#[derive(Debug, PartialEq)]
pub struct Dense {
    pub instr: String,
    pub start: u64,
    pub outputs: Vec<u64>,
}

/// Read a dense file (ours or the recordings'); an error says what is wrong with it.
pub fn decode(bytes: &[u8]) -> Result<Dense> {
    let mut raw = Vec::new();
    lzma_rs::xz_decompress(&mut &bytes[..], &mut raw).map_err(|e| anyhow::anyhow!("not an xz stream: {e:?}"))?;
    let nl = raw.iter().position(|&b| b == b'\n').context("no header line")?;
    let header: serde_json::Value = serde_json::from_slice(&raw[..nl]).context("the header line is not JSON")?;
    let field = |k: &str| header.get(k).with_context(|| format!("the header has no '{k}'"));
    let count = field("count")?.as_u64().context("'count' is not a number")? as usize;
    let width = match field("deltas")?.as_str() {
        Some("int8") => 1,
        Some("int16") => 2,
        Some("int32") => 4,
        Some("int64") => 8,
        other => bail!("unknown delta type {other:?}"),
    };
    let body = &raw[nl + 1..];
    if count == 0 || body.len() != 8 + (count - 1) * width {
        bail!("{} data bytes where count {count} and {width}-byte deltas need {}", body.len(), 8 + count.saturating_sub(1) * width);
    }
    let mut v = i64::from_le_bytes(body[..8].try_into().expect("8 bytes"));
    let mut outputs = Vec::with_capacity(count);
    outputs.push(v as u64);
    let shift = 64 - 8 * width as u32;
    for d in body[8..].chunks_exact(width) {
        let mut b = [0u8; 8];
        b[..width].copy_from_slice(d);
        v = v.wrapping_add(i64::from_le_bytes(b) << shift >> shift);
        outputs.push(v as u64);
    }
    Ok(Dense {
        instr: field("instr")?.as_str().context("'instr' is not a string")?.to_string(),
        start: field("start")?.as_u64().context("'start' is not a number")?,
        outputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DENSE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/dense/");

    #[test]
    fn a_dump_reads_back_as_the_outputs_it_was_given_with_the_narrowest_deltas() {
        for outputs in [vec![0x3f80_0000u64, 0x3f7f_ffff, 0x3f80_0001], vec![0, 0x7fff_ffff, 5], vec![u64::MAX, 0, 1 << 63]] {
            let bytes = encode("rcp.approx.f32", 0x3f80_0000, 32, &outputs).unwrap();
            let d = decode(&bytes).unwrap();
            assert_eq!(d, Dense { instr: "rcp.approx.f32".into(), start: 0x3f80_0000, outputs: outputs.clone() });
        }
        let mut raw = Vec::new();
        lzma_rs::xz_decompress(&mut &encode("x", 0, 32, &[1, 2, 3]).unwrap()[..], &mut raw).unwrap();
        assert!(raw.starts_with(b"{\"instr\": \"x\", \"start\": 0, \"count\": 3, \"out_bytes\": 4, \"first\": \"int64\", \"deltas\": \"int8\"}\n"));
        assert_eq!(raw.len() - raw.iter().position(|&b| b == b'\n').unwrap() - 1, 8 + 2);
    }

    #[test]
    fn an_h100_recording_reencodes_to_the_same_content() {
        // The recordings' own rcp binade: decoded, re-encoded by us, decoded again.
        let path = format!("{DENSE}rcp.approx.f32.3f800000.8388608.dxz");
        let h100 = decode(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).unwrap();
        assert_eq!((h100.instr.as_str(), h100.start, h100.outputs.len()), ("rcp.approx.f32", 0x3f80_0000, 8_388_608));
        let ours = decode(&encode(&h100.instr, h100.start, 32, &h100.outputs).unwrap()).unwrap();
        assert_eq!(ours, h100);
        assert_eq!(file_name(&h100.instr, h100.start, 8_388_608), "rcp.approx.f32.3f800000.8388608.dxz");
    }

    #[test]
    fn a_damaged_file_is_an_error_not_a_panic() {
        assert!(decode(b"not xz").is_err());
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &b"{\"instr\": \"x\", \"start\": 0, \"count\": 3, \"deltas\": \"int8\"}\n12345678\x01"[..], &mut xz).unwrap();
        let e = decode(&xz).unwrap_err().to_string();
        assert!(e.contains("count 3"), "{e}");
    }
}
