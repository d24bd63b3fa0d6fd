//! The exec protocol (docs/exec-protocol.md): one JSON object per line each way. Requests
//! carry a program (types, inputs, PTX body lines, outputs) and cases as hex bit patterns;
//! replies carry results, or an error. Both ends live here: [`encode_request`] /
//! [`decode_reply`] for the `exec:` engine, [`serve`] for engines written in Rust
//! (`ptxfuzz exec-reference` answers with the interpreter).
//!
//! Trace mode needs no protocol extension: the request lists every instruction's destination
//! after the outputs.

use std::fmt::Write as _;
use std::io::{BufRead, Write};

use ptx::program::{Program, Reg, ValType};
use serde::Deserialize;

/// Hex digits of a value of type `t`: the register width (`pred`: 1 digit, `0x0`/`0x1`).
fn hex_digits(t: ValType) -> usize {
    (t.bits() as usize).div_ceil(4)
}

/// The registers a request for `p` lists as outputs: the outputs, then (trace) every
/// instruction's destination.
pub fn requested_outputs(p: &Program, trace: bool) -> Vec<Reg> {
    let traced = if trace { p.body().len() } else { 0 };
    p.outputs().iter().copied().chain((0..traced).map(|j| p.dst(j))).collect()
}

/// Append one request line (with its `\n`) for `p` on `cases` (flat, `p.inputs().len()` per case).
pub fn encode_request(out: &mut String, id: u64, p: &Program, trace: bool, cases: &[u64]) {
    let json = |s: &str| serde_json::to_string(s).expect("a string always serialises");
    let _ = write!(out, "{{\"id\":{id},\"types\":{{");
    for i in 0..p.reg_count() {
        let r = Reg(i as u16);
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}:\"{}\"", json(&p.name(r).to_string()), p.reg_type(r).name());
    }
    out.push_str("},\"inputs\":[");
    for i in 0..p.inputs().len() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&json(&p.name(Reg(i as u16)).to_string()));
    }
    out.push_str("],\"body\":[");
    for j in 0..p.body().len() {
        if j > 0 {
            out.push(',');
        }
        out.push_str(&json(&p.stmt_text(j)));
    }
    out.push_str("],\"outputs\":[");
    for (k, r) in requested_outputs(p, trace).into_iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&json(&p.name(r).to_string()));
    }
    out.push_str("],\"cases\":[");
    let n_in = p.inputs().len();
    let widths: Vec<usize> = p.inputs().iter().map(|&t| hex_digits(t)).collect();
    for (i, case) in cases.chunks_exact(n_in.max(1)).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        for (k, (&v, &w)) in case.iter().zip(&widths).enumerate() {
            if k > 0 {
                out.push(',');
            }
            let _ = write!(out, "\"0x{v:0w$x}\"");
        }
        out.push(']');
    }
    out.push_str("]}\n");
}

/// Bytes a reply line may take per requested value and per case row, see [`max_reply_line`].
pub const REPLY_BYTES_PER_VALUE: usize = 64;
/// Bytes every reply line may take besides its values, see [`max_reply_line`].
pub const REPLY_LINE_BASE: usize = 1 << 20;

/// The longest reply line ptxfuzz reads for a request of `n_cases` cases and `n_outputs`
/// requested outputs (docs/exec-protocol.md, "Reply size"); a longer one is a protocol fault,
/// so that an engine that never ends its line cannot make ptxfuzz buffer without bound.
///
/// Why this much: the widest legitimate value is `"0x` + 16 digits + `"` and a comma, 21
/// bytes, and each case's row adds `[`, `]` and a comma. 64 bytes per value and per row is
/// three times that, room for spaces after separators or any JSON writer's layout; the 1 MiB
/// base covers the `{"id":..,"results":[..]}` frame and an `error` reply's message.
pub fn max_reply_line(n_cases: usize, n_outputs: usize) -> usize {
    let slots = n_cases.saturating_mul(n_outputs.saturating_add(1));
    REPLY_LINE_BASE.saturating_add(slots.saturating_mul(REPLY_BYTES_PER_VALUE))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReply {
    id: Option<u64>,
    #[serde(default)]
    results: Option<Vec<Vec<String>>>,
    #[serde(default)]
    error: Option<String>,
}

/// A decoded reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Flat results: `outputs.len()` values per case.
    Results(Vec<u64>),
    /// The engine's `"error"` message.
    Error(String),
}

/// Decode the reply `line` to request `id` for `p` with `n_cases` cases; `Err` is a protocol
/// violation (message for the user).
pub fn decode_reply(line: &str, id: u64, p: &Program, trace: bool, n_cases: usize) -> Result<Reply, String> {
    let raw: RawReply = serde_json::from_str(line).map_err(|e| {
        let shown: String = line.chars().take(200).collect();
        format!("reply is not a JSON object {{\"id\":..,\"results\":..}}: {e}: {shown}")
    })?;
    if raw.id != Some(id) {
        let got = raw.id.map_or("none".to_string(), |i| i.to_string());
        return Err(format!("reply id {got}, expected {id} (answer requests in order, one line each)"));
    }
    match (raw.results, raw.error) {
        (None, Some(e)) => Ok(Reply::Error(e)),
        (Some(results), None) => {
            let outs = requested_outputs(p, trace);
            if results.len() != n_cases {
                return Err(format!("{} result rows for {n_cases} cases", results.len()));
            }
            let mut flat = Vec::with_capacity(n_cases * outs.len());
            for (i, row) in results.iter().enumerate() {
                if row.len() != outs.len() {
                    return Err(format!("case {i}: {} values for {} outputs", row.len(), outs.len()));
                }
                for (text, &r) in row.iter().zip(&outs) {
                    let t = p.reg_type(r);
                    let v = text
                        .strip_prefix("0x")
                        .and_then(ptx::value::parse_hex)
                        .filter(|v| t.bits() >= 64 || v >> t.bits() == 0)
                        .ok_or_else(|| {
                            format!("case {i}: '{text}' for {} is not a 0x-hex value of {} bits", p.name(r), t.bits())
                        })?;
                    flat.push(v);
                }
            }
            Ok(Reply::Results(flat))
        }
        _ => Err("a reply has exactly one of \"results\" and \"error\"".into()),
    }
}

/// A parsed request, as [`serve`] hands it to an engine.
pub struct Request {
    pub id: u64,
    /// The program; its outputs are the request's outputs (traced destinations included).
    pub program: Program,
    /// Flat inputs, `program.inputs().len()` per case.
    pub cases: Vec<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequest {
    id: u64,
    types: serde_json::Map<String, serde_json::Value>,
    inputs: Vec<String>,
    body: Vec<String>,
    outputs: Vec<String>,
    cases: Vec<Vec<String>>,
}

/// Parse one request line; `Err((id, message))` for the error reply (id 0 if unreadable).
pub fn decode_request(line: &str) -> Result<Request, (u64, String)> {
    let raw: RawRequest = serde_json::from_str(line).map_err(|e| (0, format!("bad request: {e}")))?;
    let id = raw.id;
    let program_json = serde_json::json!({
        "types": raw.types, "inputs": raw.inputs, "body": raw.body, "outputs": raw.outputs,
    });
    let program = Program::from_json(&program_json.to_string()).map_err(|e| (id, e.to_string()))?;
    let n_in = program.inputs().len();
    let mut cases = Vec::with_capacity(raw.cases.len() * n_in);
    for (i, row) in raw.cases.iter().enumerate() {
        if row.len() != n_in {
            return Err((id, format!("case {i}: {} values for {n_in} inputs", row.len())));
        }
        for (text, ty) in row.iter().zip(program.inputs()) {
            let v = ty.parse_input(text).map_err(|e| (id, format!("case {i}: {e}")))?;
            cases.push(v);
        }
    }
    Ok(Request { id, program, cases })
}

/// Append the reply line for `id`: results (flat, `p.outputs().len()` per case) or an error.
pub fn encode_reply(out: &mut String, id: u64, p: &Program, result: Result<&[u64], &str>) {
    match result {
        Err(message) => {
            let _ = writeln!(out, "{{\"id\":{id},\"error\":{}}}", serde_json::to_string(message).unwrap());
        }
        Ok(values) => {
            let widths: Vec<usize> = p.outputs().iter().map(|&r| hex_digits(p.reg_type(r))).collect();
            let _ = write!(out, "{{\"id\":{id},\"results\":[");
            for (i, case) in values.chunks_exact(widths.len()).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('[');
                for (k, (&v, &w)) in case.iter().zip(&widths).enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "\"0x{v:0w$x}\"");
                }
                out.push(']');
            }
            out.push_str("]}\n");
        }
    }
}

/// Answer requests from `input` on `output` until end of input: `engine` maps a request to
/// flat results (`program.outputs().len()` per case) or an error message. The loop of every
/// engine written in Rust; `ptxfuzz exec-reference` is `serve` around the interpreter.
pub fn serve<R: BufRead, W: Write>(
    input: R,
    mut output: W,
    mut engine: impl FnMut(&Request) -> Result<Vec<u64>, String>,
) -> std::io::Result<()> {
    let mut out = String::new();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        out.clear();
        match decode_request(&line) {
            Ok(req) => {
                let r = engine(&req);
                encode_reply(&mut out, req.id, &req.program, r.as_deref().map_err(String::as_str));
            }
            Err((id, message)) => {
                let _ = writeln!(out, "{{\"id\":{id},\"error\":{}}}", serde_json::to_string(&message).unwrap());
            }
        }
        output.write_all(out.as_bytes())?;
        output.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog() -> Program {
        Program::parse("// inputs: %f0:f32, %h1:f16\nadd.rz.f32 %f2, %f0, %f0;\ntestp.finite.f32 %p3, %f2;\nneg.f16 %h4, %h1;\n// outputs: %h4, %p3\n").unwrap()
    }

    #[test]
    fn request_is_the_documented_shape() {
        let mut s = String::new();
        encode_request(&mut s, 7, &prog(), false, &[0x3f80_0000, 0x3c00, 1, 2]);
        assert_eq!(
            s,
            concat!(
                r#"{"id":7,"types":{"%f0":"f32","%h1":"f16","%f2":"f32","%p3":"pred","%h4":"f16"},"#,
                r#""inputs":["%f0","%h1"],"body":["add.rz.f32 %f2, %f0, %f0;","testp.finite.f32 %p3, %f2;","neg.f16 %h4, %h1;"],"#,
                r#""outputs":["%h4","%p3"],"cases":[["0x3f800000","0x3c00"],["0x00000001","0x0002"]]}"#,
                "\n"
            )
        );
        let mut t = String::new();
        encode_request(&mut t, 8, &prog(), true, &[0, 0]);
        assert!(t.contains(r#""outputs":["%h4","%p3","%f2","%p3","%h4"]"#), "{t}");
    }

    #[test]
    fn request_round_trips_through_the_server_side_decoder() {
        let mut s = String::new();
        encode_request(&mut s, 3, &prog(), true, &[0x3f80_0000, 0x3c00]);
        let req = decode_request(s.trim_end()).unwrap();
        assert_eq!(req.id, 3);
        assert_eq!(req.cases, [0x3f80_0000, 0x3c00]);
        assert_eq!(req.program.outputs().len(), 5);
        assert_eq!(req.program.body(), prog().body());
    }

    #[test]
    fn replies_are_checked_for_id_count_and_width() {
        let p = prog();
        let ok = r#"{"id":1,"results":[["0xbc00","0x1"]]}"#;
        assert_eq!(decode_reply(ok, 1, &p, false, 1), Ok(Reply::Results(vec![0xbc00, 1])));
        assert_eq!(
            decode_reply(r#"{"id":1,"error":"no f16"}"#, 1, &p, false, 1),
            Ok(Reply::Error("no f16".into()))
        );
        for (bad, why) in [
            (r#"{"id":2,"results":[["0xbc00","0x1"]]}"#, "reply id 2, expected 1"),
            (r#"{"results":[["0xbc00","0x1"]]}"#, "reply id none, expected 1"),
            (r#"{"id":1,"results":[]}"#, "0 result rows"),
            (r#"{"id":1,"results":[["0xbc00"]]}"#, "1 values for 2"),
            (r#"{"id":1,"results":[["0x1bc00","0x1"]]}"#, "16 bits"),
            (r#"{"id":1,"results":[["0xbc00","0x2"]]}"#, "1 bits"),
            (r#"{"id":1,"results":[["bc00","0x1"]]}"#, "0x-hex"),
            ("not json", "not a JSON object"),
            (r#"{"id":1}"#, "exactly one"),
        ] {
            let e = decode_reply(bad, 1, &p, false, 1).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn the_reply_line_limit_is_three_times_the_widest_legitimate_reply() {
        // The widest reply: 64-bit outputs, every value all ones, and a 20-digit id.
        let p = Program::parse("// inputs: %fd0:f64\nneg.f64 %fd1, %fd0;\nabs.f64 %fd2, %fd0;\n// outputs: %fd1, %fd2, %fd1\n").unwrap();
        for n_cases in [1, 1000, 65_536] {
            let mut s = String::new();
            encode_reply(&mut s, u64::MAX, &p, Ok(&vec![u64::MAX; n_cases * 3]));
            let limit = max_reply_line(n_cases, 3);
            assert!(s.len() * 3 <= limit, "{n_cases} cases: {} bytes, limit {limit}", s.len());
            // Not wildly more either: the limit bounds what a faulty engine costs in memory.
            assert!(limit <= REPLY_LINE_BASE + s.len() * 4, "{n_cases} cases: {} bytes, limit {limit}", s.len());
        }
    }

    #[test]
    fn serve_answers_each_line_and_reports_bad_requests() {
        let mut req = String::new();
        encode_request(&mut req, 1, &prog(), false, &[0x3f80_0000, 0x3c00]);
        req.push_str("{\"id\":2,\"garbage\":1}\n");
        req.push_str(r#"{"id":3,"types":{"%f0":"f32"},"inputs":["%f0"],"body":["add.rn.f32 %f1, %f0, 0f3F800000;"],"outputs":["%f1"],"cases":[["0x0"]]}"#);
        req.push('\n');
        let mut out = Vec::new();
        serve(req.as_bytes(), &mut out, |r| Ok([0xbc00, 1].repeat(r.cases.len() / 2))).unwrap();
        let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
        assert_eq!(lines[0], r#"{"id":1,"results":[["0xbc00","0x1"]]}"#);
        assert!(lines[1].starts_with(r#"{"id":0,"error":"bad request"#), "{}", lines[1]);
        // Immediates are legal PTX but not a program this crate models: an error reply.
        assert!(lines[2].starts_with(r#"{"id":3,"error":"#), "{}", lines[2]);
        assert_eq!(lines.len(), 3);
    }
}
