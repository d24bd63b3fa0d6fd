//! `ptxfuzz eval`: run one instruction, or a stream of them, through the reference interpreter.

use std::collections::HashMap;
use std::io::{self, BufRead, BufWriter, Write};

use anyhow::{Context, Result};
use clap::Args;
use ptx::interp::{self, Expectation};
use ptx::isa::{Instr, Type};
use ptx::profile::{Profile, Resolved};
use ptx::value::{format_register_decimal, format_register_hex, parse_hex, parse_operand};

#[path = "eval_forms.rs"]
mod forms;

const EXAMPLES: &str = "\
Examples:
  ptxfuzz eval add.rz.f32 1 0x33800000          -> 0x3f800000\t1
  ptxfuzz eval fma.rn.f64 0x3ff0000000000000 2 -1
  ptxfuzz eval --accept mul.rn.ftz.f32 0x1fffffff 0x1fffffff
  ptxfuzz eval testp.subnormal.f64 0x0000000000000001  -> 1\ttrue
  ptxfuzz eval min.NaN.f16x2 0x7e003c00 0x00004000  (lane 0 = low 16 bits)
  printf 'add.rn.f32 0x3f800000 0x3f800000\\n' | ptxfuzz eval --batch
  ptxfuzz eval --profile sm_90 abs.f64 0xfff0000000000001   -> 0xfff8000000000001 (what the H100 gives)
  ptxfuzz eval cvt.rn.bf16.f32 1.5                  -> 0x3fc0	1.5
  ptxfuzz eval cvt.rz.relu.satfinite.f16x2.f32 -3 70000   -> 0x00007bff (a to the upper half)
  ptxfuzz eval cvt.rni.s8.f32 -300.5                -> 0x80	-128 (clamped)
  ptxfuzz eval cvt.rn.f16.u32 70000                 -> 0x7c00	inf
  ptxfuzz eval cvt.rn.satfinite.e4m3x2.f32 1 500       -> 0x387e	448,1 (a to the upper byte)
  ptxfuzz eval add.rp.f32.bf16 1 0x33800000           -> 0x3f800001	1.0000001 (a widened exactly)
  ptxfuzz eval setp.ltu.f32 nan 1                   -> 1|0	true|false (p|q)
  ptxfuzz eval set.lt.and.u32.f16x2 0x3c000000 0x00003c00 1   -> 0x0000ffff	65535 (c = 1)

Output: the destination's bits in hex, zero-padded to the register width (4 digits for
f16/bf16, 8 for f32/f16x2/bf16x2, 16 for f64/f32x2; 0 or 1 for testp), a tab, and the
value in decimal (packed lanes comma-separated, lane 0 first). A NaN result the spec leaves
unspecified prints as the canonical NaN; --accept shows every allowed result. A decimal
operand that reads as an infinity or a zero in its type (70000 for an f16, 1e-50 for an f32)
gets a note on stderr, so that an `inf` result is not taken for the instruction's overflow.
--profile sm_90 prints the one result an H100 gives (ptx/profiles/sm_90.json), for the
approximate forms too: the profile has a bit-exact model of every one (rcp, sqrt, rsqrt, ex2,
lg2, sin, cos, tanh .approx.f32, div.approx/.full, the f64 forms, ex2 and tanh on f16/bf16;
docs/approx.md), and for a cvt the NaN an sm_90 GPU writes (the cvt_nan rows, from the H200's
capture of every sm_90 cvt form; docs/semantics.md). A profile without a bit-exact model of a
form prints the spec's allowed set and says why.";

/// Evaluate instructions in the reference interpreter.
#[derive(Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct EvalArgs {
    /// The instruction as PTX spells it, e.g. `add.rz.ftz.f32`, `min.NaN.xorsign.abs.f16x2`;
    /// or a whole line in one argument, `'add.rn.f32 1, 2'` (its operands come first).
    #[arg(required_unless_present = "batch")]
    instr: Option<String>,

    /// Source operands: hex bits (0x3f800000; packed types one word, lane 0 in the low bits)
    /// or decimal literals (1.5, -0, inf, nan; packed types: one value for all lanes or
    /// comma-separated lanes such as 1,-2). 3 operands for fma/mad and 3-input min/max.
    #[arg(allow_hyphen_values = true)]
    operands: Vec<String>,

    /// Print the whole set of results the spec allows (e.g. `0x00800000 | 0x00000000
    /// (ftz-before-rounding)`, `nan`) instead of the primary result.
    #[arg(long)]
    accept: bool,

    /// Read lines `INSTR OPERAND...` from stdin and write one line per input line: the result
    /// in hex (or the --accept set), or `error: MESSAGE` for a bad line, and go on.
    #[arg(long, conflicts_with = "instr")]
    batch: bool,

    /// Which results to print: `spec` (the PTX ISA's, default) or a GPU's (`sm_90`: one result,
    /// bit for bit what an H100 gives).
    #[arg(long, default_value = "spec")]
    profile: String,
}

pub fn run(args: EvalArgs) -> Result<()> {
    let profile = Profile::named(&args.profile)?;
    if args.batch {
        let stdin = io::stdin().lock();
        let stdout = crate::output::stdout();
        return batch(stdin, stdout, args.accept, &profile).context("eval --batch: I/O error");
    }
    let (mnemonic, operands) = words(args.instr.as_deref().expect("clap requires INSTR without --batch"), &args.operands)?;
    let ops: Vec<&str> = operands.iter().map(String::as_str).collect();
    let mut notes = Vec::new();
    if let Some(line) = forms::line(mnemonic, &ops, args.accept, &profile, true, &mut notes) {
        let line = line?;
        note_ranges(&notes);
        println!("{line}");
        return Ok(());
    }
    let instr = Instr::parse(mnemonic, operands.len())?;
    let ops = operands
        .iter()
        .map(|t| forms::float(instr.ty, t, &mut notes))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("bad operand for {instr}"))?;
    note_ranges(&notes);
    let exp = interp::eval(&instr, &ops)?;
    if let Profile::Hardware(_) = profile {
        match profile.resolve(&instr, &ops, &exp) {
            Resolved::One(bits) => {
                println!("{}", render_bits(&instr, bits));
                return Ok(());
            }
            Resolved::Set(exp) => {
                println!("{}\t({})", render(&instr, &exp, true), why_a_set(&profile, &instr));
                return Ok(());
            }
        }
    }
    let mut line = render(&instr, &exp, args.accept);
    if args.accept && instr.is_approximate() {
        // The exact value the bounds are measured from (CORE-MATH, to f64 precision).
        let exact: Vec<String> = (0..instr.ty.lanes())
            .map(|l| ptx::approx::exact_value_lane(&instr, &ops, l).map_or("nan".into(), |v| v.to_string()))
            .collect();
        line.push_str(&format!("\texact {}", exact.join(" ; ")));
    }
    println!("{line}");
    Ok(())
}

/// Decimal operands that read as an infinity or a zero, on stderr before the result: the
/// result line alone would blame the instruction (`add.rn.f16 70000 1` is `inf` because 70000
/// is not an f16). `--batch` keeps to one line per line and leaves them out.
fn note_ranges(notes: &[ptx::value::RangeNote]) {
    for n in notes {
        eprintln!("note: {n}");
    }
}

/// The mnemonic and operands of a single eval. INSTR may hold a whole line in one argument
/// (`'add.rn.f32 1, 2;'`, as pasted from `--batch` input or PTX text): its words, a trailing
/// `,` or `;` dropped (a comma inside a word stays: `1,-2` is a packed operand's lanes), come
/// before any further operands.
fn words<'a>(instr: &'a str, operands: &[String]) -> Result<(&'a str, Vec<String>)> {
    let mut words = instr.split_whitespace().map(|w| w.trim_end_matches([',', ';'])).filter(|w| !w.is_empty());
    let mnemonic = words.next().context("the instruction is empty: give one such as add.rn.f32 followed by its operands")?;
    // Separate arguments take the same trailing `,` (`eval add.rn.f32 1, 2`, as PTX writes
    // operands): a packed operand's lanes never end in a comma.
    let rest = operands.iter().map(|w| w.trim_end_matches([',', ';'])).filter(|w| !w.is_empty());
    let all: Vec<String> = words.map(str::to_string).chain(rest.map(str::to_string)).collect();
    anyhow::ensure!(!all.iter().any(|w| w == RESULT_ARROW), RECORDED_RESULT);
    // After INSTR every word is an operand (a negative one starts with '-'), so an option there
    // would be read as one ("takes 1 input, not 3"); no operand starts with "--".
    if let Some(opt) = all.iter().find(|w| w.starts_with("--")) {
        let name = opt.split('=').next().unwrap_or(opt);
        // `--judge` is what campaign, repro and sweep call eval's `--profile`.
        let (shown, hint) = match name {
            "--judge" | "--profile" => ("--profile sm_90", if name == "--judge" { " (eval calls it --profile)" } else { "" }),
            "--accept" | "--batch" => (name, ""),
            // Not an eval option (`--sm 90` from campaign or sweep): showing it before the
            // instruction would only trade this error for clap's.
            _ => anyhow::bail!(
                "'{opt}' follows the operands, and eval has no option {name}: its options are --accept, --batch and \
                 --profile, given before the instruction, as in `ptxfuzz eval --profile sm_90 {mnemonic} OPERANDS` \
                 (`ptxfuzz eval --help`)"
            ),
        };
        anyhow::bail!(
            "'{opt}' follows the operands, where eval reads operands only: put options before the instruction, \
             as in `ptxfuzz eval {shown} {mnemonic} OPERANDS`{hint}"
        );
    }
    Ok((mnemonic, all))
}

/// What a capture line (`INSTR OPS -> RESULT`) has that eval's input has not.
const RESULT_ARROW: &str = "->";

/// Why such a line is refused, and what compares recorded results.
const RECORDED_RESULT: &str = "the input holds a recorded result (`-> RESULT`, a capture's line): eval computes the result itself; \
     to compare recorded results with the reference, put the lines in a file and run `ptxfuzz capture-check FILE --target interp`";

/// Why a hardware profile answers `instr` with the spec's set: the model it has is partial, or
/// it has none (docs/approx.md, "Models").
fn why_a_set(profile: &Profile, instr: &Instr) -> String {
    let name = profile.name();
    match profile {
        Profile::Hardware(h) => match h.approx_model(&instr.to_string()) {
            Some(m) => format!("approximate form: {name}'s model '{}' of it is partial, docs/approx.md \"Models\"; the spec's allowed set", m.id),
            None => format!("approximate form: {name} has no bit-exact model of it yet; the spec's allowed set"),
        },
        Profile::Spec => "the spec's allowed set".into(),
    }
}

/// One line of single-instruction output: `HEX\tDECIMAL`, or the accept set and its decimals.
fn render(instr: &Instr, exp: &Expectation, accept: bool) -> String {
    if instr.dest_is_predicate() {
        let v = exp.primary_bits();
        return format!("{v}\t{}", v == 1);
    }
    if !accept {
        return render_bits(instr, exp.primary_bits());
    }
    accept_line(exp)
}

/// The accepted set and, after a tab, its values in decimal.
fn accept_line(exp: &Expectation) -> String {
    format!("{exp}\t{}", exp.decimal().unwrap_or_default())
}

/// `HEX\tDECIMAL` of one register value (`0|1\ttrue|false` for testp).
fn render_bits(instr: &Instr, bits: u64) -> String {
    if instr.dest_is_predicate() {
        return format!("{bits}\t{}", bits == 1);
    }
    format!("{}\t{}", format_register_hex(instr.ty, bits), format_register_decimal(instr.ty, bits))
}

/// The batch loop: parsed forms are cached per (mnemonic, operand count), operands in hex take
/// a fast path, and output is buffered; a bad line gives `error: ...` and the loop goes on.
/// Under a hardware profile each line is the one result, or for an approximate form without a
/// bit-exact model the spec's set followed by `\tapproximate: spec set`.
pub fn batch(input: impl BufRead, output: impl Write, accept: bool, profile: &Profile) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, output);
    let mut forms: HashMap<(String, usize), Result<Instr, String>> = HashMap::new();
    let mut last: Option<(String, usize, Result<Instr, String>)> = None;
    let mut ops: Vec<u64> = Vec::with_capacity(3);
    let mut raw = Vec::new();
    let mut input = input;
    loop {
        raw.clear();
        if input.read_until(b'\n', &mut raw)? == 0 {
            break;
        }
        // Read as bytes: a line that is not UTF-8 (a binary file piped in by mistake) is one
        // error line, and the lines after it are still answered one for one.
        let Ok(line) = std::str::from_utf8(&raw) else {
            writeln!(out, "error: the line is not UTF-8 text: expected INSTR OPERAND... (e.g. add.rn.f32 0x3f800000 1.5)")?;
            continue;
        };
        // Blank lines and `#` comments (a hand-written input file's) are skipped, no output.
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let mut words = line.split_ascii_whitespace().map(|w| w.trim_end_matches([',', ';'])).filter(|w| !w.is_empty());
        let Some(mnemonic) = words.next() else {
            writeln!(out, "error: empty line: expected INSTR OPERAND...")?;
            continue;
        };
        if words.clone().any(|w| w == RESULT_ARROW) {
            writeln!(out, "error: {RECORDED_RESULT}")?;
            continue;
        }
        let operands: arrayvec::ArrayVec<&str, 4> = match words.try_fold(arrayvec::ArrayVec::new(), |mut v, w| {
            v.try_push(w).ok().map(|_| v)
        }) {
            Some(v) => v,
            None => {
                writeln!(out, "error: {mnemonic}: too many operands (at most 3)")?;
                continue;
            }
        };
        if let Some(line) = forms::line(mnemonic, &operands, accept, profile, false, &mut Vec::new()) {
            match line {
                // Batch output is the result alone, as for the arithmetic forms: the first column
                // (`HEX`, or `p|q` for setp) without the decimal that single mode adds.
                Ok(l) if !accept => writeln!(out, "{}", l.split('\t').next().unwrap_or_default())?,
                Ok(l) => writeln!(out, "{l}")?,
                Err(e) => writeln!(out, "error: {e:#}")?,
            }
            continue;
        }
        let n = operands.len();
        let form = match &last {
            Some((m, k, f)) if m == mnemonic && *k == n => f.clone(),
            _ => {
                let f = forms
                    .entry((mnemonic.to_string(), n))
                    .or_insert_with(|| Instr::parse(mnemonic, n).map_err(|e| e.to_string()))
                    .clone();
                last = Some((mnemonic.to_string(), n, f.clone()));
                f
            }
        };
        let instr = match form {
            Ok(i) => i,
            Err(e) => {
                writeln!(out, "error: {e}")?;
                continue;
            }
        };
        ops.clear();
        let mut bad = None;
        for t in &operands {
            match fast_operand(instr.ty, t) {
                Ok(v) => ops.push(v),
                Err(e) => {
                    bad = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = bad {
            writeln!(out, "error: {e}")?;
            continue;
        }
        match interp::eval(&instr, &ops) {
            Ok(exp) if matches!(profile, Profile::Hardware(_)) => match profile.resolve(&instr, &ops, &exp) {
                Resolved::One(bits) => write_hex(&mut out, &instr, bits)?,
                Resolved::Set(exp) => writeln!(out, "{exp}\tapproximate: spec set")?,
            },
            Ok(exp) if accept => writeln!(out, "{exp}")?,
            Ok(exp) => write_hex(&mut out, &instr, exp.primary_bits())?,
            Err(e) => writeln!(out, "error: {e}")?,
        }
    }
    out.flush()
}

/// Hex operands without allocation; anything else through the general parser.
fn fast_operand(ty: Type, text: &str) -> Result<u64, String> {
    if let Some(h) = text.strip_prefix("0x") {
        if let Some(v) = parse_hex(h) {
            if ty.bits() == 64 || v >> ty.bits() == 0 {
                return Ok(v);
            }
        }
    }
    parse_operand(ty, text).map_err(|e| e.to_string())
}

fn write_hex(out: &mut impl Write, instr: &Instr, bits: u64) -> io::Result<()> {
    if instr.dest_is_predicate() {
        return out.write_all(if bits == 1 { b"1\n" } else { b"0\n" });
    }
    let digits = (instr.ty.bits() / 4) as usize;
    let mut buf = [0u8; 19];
    buf[0] = b'0';
    buf[1] = b'x';
    for i in 0..digits {
        let nib = (bits >> (4 * (digits - 1 - i))) & 0xf;
        buf[2 + i] = b"0123456789abcdef"[nib as usize];
    }
    buf[2 + digits] = b'\n';
    out.write_all(&buf[..3 + digits])
}

/// Used by tests: evaluate a whole batch text and return the output text.
#[cfg(test)]
fn batch_text(input: &str, accept: bool) -> String {
    let mut out = Vec::new();
    batch(input.as_bytes(), &mut out, accept, &Profile::Spec).unwrap();
    String::from_utf8(out).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_writes_one_line_per_input_line_and_goes_on_after_errors() {
        let out = batch_text(
            "add.rn.f32 0x3f800000 0x3f800000\n,\nbogus.f32 1 2\nadd.rn.f32 1\nadd.rn.f64 1, 2\ntestp.normal.f32 0\nadd.rn.f16 0x10000 1\n",
            false,
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 7, "{out}");
        assert_eq!(lines[0], "0x40000000");
        assert!(lines[1].starts_with("error: empty line"));
        assert!(lines[2].starts_with("error: "), "{}", lines[2]);
        assert!(lines[3].starts_with("error: "), "{}", lines[3]);
        assert_eq!(lines[4], "0x4008000000000000");
        assert_eq!(lines[5], "1");
        assert!(lines[6].starts_with("error: "), "{}", lines[6]);
    }

    #[test]
    fn batch_skips_blank_and_comment_lines() {
        let out = batch_text("# header\n\n   \nadd.rn.f32 1 1\n  # indented comment\nadd.rn.f32 0f3f800000 2\n", false);
        assert_eq!(out, "0x40000000\n0x40400000\n");
    }

    #[test]
    fn separate_operands_may_end_in_a_comma_as_ptx_writes_them() {
        let (m, ops) = words("add.rn.f32", &["1,".to_string(), "2".to_string()]).unwrap();
        assert_eq!((m, ops), ("add.rn.f32", vec!["1".to_string(), "2".to_string()]));
        let (_, ops) = words("min.f16x2", &["1,".into(), ",".into(), "1,-2".into()]).unwrap();
        assert_eq!(ops, ["1", "1,-2"]);
    }

    #[test]
    fn batch_answers_a_line_that_is_not_utf8_with_an_error_and_goes_on() {
        let mut out = Vec::new();
        batch(&b"add.rn.f32 1 1\n\xff\xfe 1 2\nadd.rn.f32 1 2\n"[..], &mut out, false, &Profile::Spec).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0], "0x40000000");
        assert!(lines[1].starts_with("error: the line is not UTF-8"), "{}", lines[1]);
        assert_eq!(lines[2], "0x40400000");
    }

    #[test]
    fn batch_points_a_capture_line_to_capture_check() {
        let out = batch_text("add.f32 0x3f800000 0x3f800000 -> 0x40000000\nfma.rn.f32 1 2 3 -> 0x40a00000\n", false);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines.iter().all(|l| l.starts_with("error: the input holds a recorded result") && l.contains("capture-check")), "{out}");
    }

    #[test]
    fn a_whole_line_in_one_argument_is_split_into_mnemonic_and_operands() {
        let (m, ops) = words("add.rn.f32 1, 0x40000000", &["ignored-by-none".into()]).unwrap();
        assert_eq!((m, ops), ("add.rn.f32", vec!["1".to_string(), "0x40000000".into(), "ignored-by-none".into()]));
        let (m, ops) = words("add.rn.f16x2 1,-2, 3;", &[]).unwrap();
        assert_eq!((m, ops), ("add.rn.f16x2", vec!["1,-2".to_string(), "3".into()]));
        let (m, ops) = words("sqrt.rn.f64", &["4".into()]).unwrap();
        assert_eq!((m, ops), ("sqrt.rn.f64", vec!["4".to_string()]));
        assert!(words("  ", &[]).is_err());
        assert!(words("add.f32 1 2 -> 0x40400000", &[]).unwrap_err().to_string().contains("capture-check"));
    }

    #[test]
    fn batch_prints_the_result_alone_for_conversions_and_comparisons_too() {
        let out = batch_text("cvt.rn.bf16.f32 1.5\nsetp.lt.f32 1 2\ncvt.rna.tf32.f32 1.00048828125\ncvt.rs.bf16x2.f32 1 1 0\n", false);
        assert_eq!(out, "0x3fc0\n1|0\n0x3f802000\n0x3f803f80\n");
    }

    #[test]
    fn batch_accept_prints_the_allowed_set() {
        let out = batch_text("add.rn.f32 inf -inf\n", true);
        assert_eq!(out, "nan\n");
    }

    #[test]
    fn single_output_is_hex_tab_decimal() {
        let i = Instr::parse("add.rz.f32", 2).unwrap();
        let e = interp::eval(&i, &[0x3f80_0000, 0x3380_0000]).unwrap();
        assert_eq!(render(&i, &e, false), "0x3f800000\t1");
        let t = Instr::parse("testp.subnormal.f64", 1).unwrap();
        let e = interp::eval(&t, &[1]).unwrap();
        assert_eq!(render(&t, &e, false), "1\ttrue");
        let p = Instr::parse("add.rn.f16x2", 2).unwrap();
        let e = interp::eval(&p, &[0x3c00_3c00, 0x3c00_4000]).unwrap();
        assert_eq!(render(&p, &e, false), "0x40004200\t3,2");
    }
}

#[cfg(test)]
mod profile_tests {
    use super::*;

    fn sm_90_batch(input: &str) -> String {
        let mut out = Vec::new();
        batch(input.as_bytes(), &mut out, false, &Profile::named("sm_90").unwrap()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn batch_under_sm_90_prints_the_h100_result_for_ieee_and_approximate_forms() {
        let out = sm_90_batch("abs.f64 0xfff0000000000001\nadd.sat.f32 0x80000000 0x80000000\ntanh.approx.f32 0x3f800000\n");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "0xfff8000000000001");
        assert_eq!(lines[1], "0x00000000");
        // cases.txt.gz: tanh.approx.f32 0x3f800000 -> 0x3f42f848 (the tanh unit's model).
        assert_eq!(lines[2], "0x3f42f848");
    }

    #[test]
    fn batch_under_sm_90_prints_the_h200s_nan_for_conversions() {
        // Each line is a case of docs/hardware/nvidia-h200-2026-11-29/forms.txt.gz; the spec
        // allows any NaN (its primary keeps the payload: 0x7e01, 0x7fbf0000 quieted, ...).
        let out = sm_90_batch(
            "cvt.f16.f16 0x7c01\ncvt.f32.bf16 0x7fbf\ncvt.ftz.f64.f32 0xffc00000\ncvt.rn.tf32.f32 0xff800001\n\
             cvt.rn.satfinite.e4m3x2.f32 0xe13d793c 0xfff00000\ncvt.rn.satfinite.relu.e4m3x2.f32 0xcb280860 0x80ffffff\n\
             cvt.rni.s8.f32 -3.5\nsetp.lt.f32 1 2\n",
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines, ["0x7fff", "0x7fbf0000", "0x7fffffffe0000000", "0x7fffe000", "0xfe7f", "0x0000", "0xfc", "1|0"]);
        let spec = batch_text("cvt.f16.f16 0x7c01\ncvt.f32.bf16 0x7fbf\n", false);
        assert_eq!(spec, "0x7e01\n0x7fff0000\n");
    }
}
