//! `replay:PATH`: a hardware capture as a target. The capture is the format of
//! `../shared/hw/h100-sm90/cases.txt.gz` (one case per line, `INSTR OPERAND... -> RESULT`,
//! operands and result as 0x-hex of the register width, `testp` results `0`/`1`; plain text or
//! gzip), so a machine without a GPU runs a real differential campaign against recorded GPU
//! truth: the campaign replays every recorded case of every form ([`Capture::items`]) and
//! this engine answers each case with what the GPU returned.
//!
//! Only recorded cases have answers. A job with a case the capture lacks (another operand
//! value, another form, more than one instruction) is refused as `unsupported`, which is what
//! limits minimization on this target: a finding keeps its recorded operands, and shrinks
//! only where the smaller candidate was recorded too.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use ptx::form::Form;
use ptx::isa::Instr;
use ptx::program::{Program, Reg, Stmt, ValType};

use super::engine::{Engine, EngineFault, EngineInfo, Job, Output};

/// Operands of one recorded case (unused slots 0).
type Operands = [u64; 3];

/// Every case recorded for one instruction form.
#[derive(Debug)]
pub struct RecordedForm {
    pub instr: Instr,
    /// The one-instruction program the cases are replayed as.
    pub program: Program,
    /// Inputs, flat in the engine layout (`instr.inputs` per case), in file order.
    pub cases: Vec<u64>,
    results: HashMap<Operands, u64>,
}

/// Every case recorded for one form outside `Instr` (a `cvt`, comparison or mixed-precision
/// form, `ptx::form`): these run through `Engine::run_forms`, not as programs.
#[derive(Debug)]
pub struct RecordedOther {
    pub form: Form,
    /// Operands, flat (`form.operands().len()` per case), in file order.
    pub cases: Vec<u64>,
    results: HashMap<Operands, u64>,
}

/// Where a mnemonic's cases go.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Instr(usize),
    Other(usize),
}

/// A capture file, parsed.
#[derive(Debug)]
pub struct Capture {
    pub path: PathBuf,
    pub forms: Vec<RecordedForm>,
    /// The forms outside `Instr` (`cvt`, `setp`, `set`, `selp`, mixed precision).
    pub others: Vec<RecordedOther>,
    by_name: HashMap<String, Slot>,
    /// Lines whose instruction this ptxfuzz does not parse, per mnemonic (count, the reason).
    pub unparsed: Vec<(String, u64, String)>,
    /// The same operands recorded twice with different results (the first one is kept).
    pub conflicts: u64,
    /// The GPU and sm named by the capture's info ([`info`]: `FILE.info.json`, or a folder-wide
    /// `capture-info.json` that can only be this file's, as ../shared has it).
    pub gpu: Option<String>,
    pub sm: Option<u32>,
    /// The info file those came from.
    pub info_path: Option<PathBuf>,
    /// The first line no form parses (number, text, why): what an `Empty` capture names.
    first_bad: Option<(u64, String, String)>,
}

/// Where the capture's info lives and how a folder-wide one is trusted (a module of its own so
/// that `capture` writes what `replay:` reads).
#[path = "diff_replay_info.rs"]
pub mod info;

/// What a capture is, in the errors that ask for one.
const CAPTURE: &str = "a capture file such as ../shared/hw/h100-sm90/cases.txt.gz";

/// Why a capture cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// Missing or a folder: said as such, with what to give (`input_file::open_stream`; a
    /// FIFO is read, `<(zcat cases.txt.gz)`, its lines bounded by `LINE_CAP`).
    #[error(transparent)]
    File(#[from] crate::input_file::InputError),
    #[error("cannot read capture {path}: {cause}; give the path of {CAPTURE}")]
    Io { path: PathBuf, cause: std::io::Error },
    /// The file opened but its bytes are no capture text: a truncated or corrupt gzip stream,
    /// or a binary file (the users' file, said as such, not as an engine's spelling).
    #[error("{path} is not a valid {kind} capture (at line {line}: {cause}); copy or record it again (`ptxfuzz capture --out FILE.txt.gz`), or give an uncompressed `INSTR 0xOPERAND... -> 0xRESULT` text file")]
    Corrupt { path: PathBuf, kind: &'static str, line: u64, cause: std::io::Error },
    #[error("{path}:{line}: {why}; each line must read `INSTR 0xOPERAND... -> 0xRESULT`")]
    Line { path: PathBuf, line: u64, why: String },
    #[error("{path} holds no case of an instruction or form this ptxfuzz knows{}", describe_bad(.first_bad, *.bad_lines))]
    Empty { path: PathBuf, first_bad: Option<(u64, String, String)>, bad_lines: u64 },
}

/// The tail of an `Empty` error: the first line no form parses and what to do, or that the
/// file has no case line at all.
fn describe_bad(first: &Option<(u64, String, String)>, bad_lines: u64) -> String {
    match first {
        None => ": it has no `INSTR 0xOPERAND... -> 0xRESULT` line (it is empty or only comments); give a file written by `ptxfuzz capture`".into(),
        Some((n, text, why)) => {
            // A line of a binary file or a long one would flood the message.
            let shown: String = text.chars().take(80).collect();
            let more = if text.chars().count() > 80 { "..." } else { "" };
            let others = if bad_lines > 1 { format!(" ({bad_lines} such lines)") } else { String::new() };
            format!(
                ": line {n} `{shown}{more}` is not one: {why}{others}; spell the instruction as PTX does (`add.rn.f32`, `cvt.rn.bf16.f32`), or record the capture with `ptxfuzz capture`"
            )
        }
    }
}

/// The one-instruction program of `instr`: one input per source, the result the only output.
pub fn program_of(instr: &Instr) -> Result<Program, ptx::program::ProgramError> {
    let n = instr.inputs as usize;
    let srcs: Vec<Reg> = (0..n).map(|k| Reg(k as u16)).collect();
    let inputs: Vec<ValType> = (0..n).map(|k| ValType::Float(instr.src_type_at(k))).collect();
    Program::new(inputs, vec![Stmt::new(*instr, &srcs)?], vec![Reg(n as u16)])
}

impl Capture {
    /// Read a capture (gzip when the file starts with the gzip magic bytes).
    pub fn load(path: &Path) -> Result<Capture, CaptureError> {
        let io = |cause| CaptureError::Io { path: path.to_path_buf(), cause };
        let mut file = BufReader::new(crate::input_file::open_stream(path, CAPTURE)?);
        let gz = file.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
        let reader: Box<dyn BufRead> =
            if gz { Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file))) } else { Box::new(file) };
        let mut c = Capture::parse_as(path, reader, if gz { "gzip" } else { "text" })?;
        // A malformed info file only loses the GPU's name: the cases are what count.
        let distinct = c.forms.len() + c.others.len() + c.unparsed.len();
        if let Some(found) = info::find(path, distinct) {
            c.gpu = found.info.gpu;
            c.sm = found.info.sm;
            c.info_path = Some(found.path);
        }
        Ok(c)
    }

    #[cfg(test)]
    fn parse(path: &Path, reader: impl Read) -> Result<Capture, CaptureError> {
        Capture::parse_as(path, reader, "text")
    }

    /// Parse the lines of a capture; `kind` ("gzip", "text") names the file's format in the
    /// error a read failure gives.
    fn parse_as(path: &Path, reader: impl Read, kind: &'static str) -> Result<Capture, CaptureError> {
        let mut c = Capture {
            path: path.to_path_buf(),
            forms: Vec::new(),
            others: Vec::new(),
            by_name: HashMap::new(),
            unparsed: Vec::new(),
            conflicts: 0,
            gpu: None,
            sm: None,
            info_path: None,
            first_bad: None,
        };
        let mut bad: HashMap<String, (u64, String)> = HashMap::new();
        let mut current: Option<(String, Option<Slot>)> = None;
        // Line by line with a cap on each line's length: a capture may be gigabytes, and a file
        // without newlines (`/dev/zero`, a binary) must not become one line without end.
        let mut reader = BufReader::new(reader);
        let mut line = String::new();
        for n in 1u64.. {
            match crate::input_file::read_line_capped(&mut reader, &mut line, crate::input_file::LINE_CAP) {
                Ok(true) => {}
                Ok(false) => break,
                Err(cause) => return Err(CaptureError::Corrupt { path: path.to_path_buf(), kind, line: n, cause }),
            }
            let err = |why: String| CaptureError::Line { path: path.to_path_buf(), line: n, why };
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (lhs, result) = line.split_once("->").ok_or_else(|| err("no `->`".into()))?;
            let mut words = lhs.split_whitespace();
            let mnemonic = words.next().ok_or_else(|| err("no instruction".into()))?;
            let mut ops: Operands = [0; 3];
            let mut k = 0;
            for w in words {
                if k == 3 {
                    return Err(err("more than 3 operands".into()));
                }
                ops[k] = hex(w).ok_or_else(|| err(format!("operand {w:?} is not 0x-hex")))?;
                k += 1;
            }
            let result = result.trim();
            let got = hex(result).or_else(|| result.parse().ok()).ok_or_else(|| err(format!("result {result:?} is not 0x-hex")))?;
            // Consecutive lines share their form: parse the mnemonic once per run of lines.
            let slot = match &current {
                Some((m, f)) if m == mnemonic => *f,
                _ => {
                    let f = c.slot(mnemonic, k).map_err(|why| bad.entry(mnemonic.to_string()).or_insert((0, why))).ok();
                    current = Some((mnemonic.to_string(), f));
                    f
                }
            };
            let (cases, results, widths, result_bits) = match slot {
                Some(Slot::Instr(f)) => {
                    let r = &mut c.forms[f];
                    let widths: Vec<u32> = r.program.inputs().iter().map(|t| t.bits()).collect();
                    let bits = ValType::of_result(&r.instr).bits();
                    (&mut r.cases, &mut r.results, widths, bits)
                }
                Some(Slot::Other(f)) => {
                    let r = &mut c.others[f];
                    let bits = r.form.result_bits();
                    (&mut r.cases, &mut r.results, r.form.operands().iter().map(|o| o.bits()).collect(), bits)
                }
                None => {
                    let entry = bad.get_mut(mnemonic).expect("recorded above");
                    entry.0 += 1;
                    c.first_bad.get_or_insert_with(|| (n, line.clone(), entry.1.clone()));
                    continue;
                }
            };
            // The flat case layout holds only if every line of a form has its operand count.
            if k != widths.len() {
                return Err(err(format!("{mnemonic} takes {} operand(s), the line has {k}", widths.len())));
            }
            // An operand wider than its register (`0x1ffffffff` for an f32) would reach an
            // engine as a word no register holds, and fault there at replay time; it is the
            // file's error, said here with its line.
            if let Some((i, bits)) = ops[..k].iter().zip(&widths).enumerate().find(|(_, (&v, &b))| b < 64 && v >> b != 0).map(|(i, (_, &b))| (i, b)) {
                return Err(err(format!("operand {} ({}) is wider than the {bits}-bit register {mnemonic} reads there", i + 1, words_of(&line, i + 1))));
            }
            // So is a result no destination holds (`0x123456789` for an f32, `0x7` for a setp's
            // two predicates): compared as recorded, it would count as a difference of the engine.
            if result_bits < 64 && got >> result_bits != 0 {
                let what = match result_bits {
                    1 => "a predicate result is 0 or 1".to_string(),
                    2 => "a setp result is 0 to 3 (p in bit 0, q in bit 1)".to_string(),
                    b => format!("{mnemonic} writes a {b}-bit register"),
                };
                return Err(err(format!("result {result} is too wide: {what}")));
            }
            match results.entry(ops) {
                std::collections::hash_map::Entry::Occupied(e) => c.conflicts += u64::from(*e.get() != got),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(got);
                    cases.extend_from_slice(&ops[..k]);
                }
            }
        }
        let mut unparsed: Vec<_> = bad.into_iter().map(|(m, (n, why))| (m, n, why)).collect();
        unparsed.sort();
        c.unparsed = unparsed;
        if c.forms.is_empty() && c.others.is_empty() {
            let bad_lines = c.unparsed.iter().map(|u| u.1).sum();
            return Err(CaptureError::Empty { path: path.to_path_buf(), first_bad: c.first_bad.take(), bad_lines });
        }
        Ok(c)
    }

    /// Where `mnemonic`'s cases (of `k` operands) go: an instruction form, else a form outside
    /// `Instr`, registered on first sight; or why neither parses it.
    fn slot(&mut self, mnemonic: &str, k: usize) -> Result<Slot, String> {
        if let Some(&s) = self.by_name.get(mnemonic) {
            return Ok(s);
        }
        // The forms outside 9.7.3/9.7.4 first: a float `cvt` line is a `Form` line, as
        // `capture --forms` writes it, although programs hold that `cvt` as an `Instr`.
        let slot = match Form::parse(mnemonic) {
            Ok(form) => {
                if form.operands().len() != k {
                    return Err(format!("{form} takes {} operand(s), the line has {k}", form.operands().len()));
                }
                self.others.push(RecordedOther { form, cases: Vec::new(), results: HashMap::new() });
                Slot::Other(self.others.len() - 1)
            }
            Err(ptx::form::FormError::Unknown(_)) => match Instr::parse(mnemonic, k) {
                Ok(instr) if instr.inputs as usize == k => {
                    let program = program_of(&instr).map_err(|e| e.to_string())?;
                    self.forms.push(RecordedForm { instr, program, cases: Vec::new(), results: HashMap::new() });
                    Slot::Instr(self.forms.len() - 1)
                }
                Ok(_) => return Err(format!("{k} operand(s) do not fit")),
                Err(e) => return Err(e.to_string()),
            },
            Err(f) => return Err(f.to_string()),
        };
        self.by_name.insert(mnemonic.to_string(), slot);
        Ok(slot)
    }

    /// Cases recorded (distinct operands) over every parsed form.
    pub fn case_count(&self) -> u64 {
        let others: u64 = self.others.iter().map(|f| f.results.len() as u64).sum();
        self.forms.iter().map(|f| f.results.len() as u64).sum::<u64>() + others
    }

    /// The recorded result of `form` (outside `Instr`) on `ops`, if the capture has it.
    pub fn form_result(&self, form: &Form, ops: &[u64]) -> Option<u64> {
        let Slot::Other(i) = *self.by_name.get(&form.to_string())? else { return None };
        let f = &self.others[i];
        if f.form != *form || ops.len() > 3 {
            return None;
        }
        let mut key: Operands = [0; 3];
        key[..ops.len()].copy_from_slice(ops);
        f.results.get(&key).copied()
    }

    /// The recorded result of `instr` on `ops`, if the capture has it.
    pub fn result(&self, instr: &Instr, ops: &[u64]) -> Option<u64> {
        let Slot::Instr(i) = *self.by_name.get(&instr.to_string())? else { return None };
        let f = &self.forms[i];
        if f.instr != *instr || ops.len() != f.instr.inputs as usize {
            return None;
        }
        let mut key: Operands = [0; 3];
        key[..ops.len()].copy_from_slice(ops);
        f.results.get(&key).copied()
    }
}

/// The `k`th word of a capture line (0: the instruction), as written.
fn words_of(line: &str, k: usize) -> &str {
    line.split_whitespace().nth(k).unwrap_or_default()
}

fn hex(w: &str) -> Option<u64> {
    w.strip_prefix("0x").and_then(ptx::value::parse_hex)
}

/// The engine answering from a capture.
pub struct ReplayEngine {
    capture: std::sync::Arc<Capture>,
    info: EngineInfo,
}

impl ReplayEngine {
    pub fn open(path: &Path, sm: Option<u32>) -> Result<ReplayEngine, EngineFault> {
        let c = Capture::load(path).map_err(|e| EngineFault::Capture { message: e.to_string() })?;
        Ok(ReplayEngine::new(std::sync::Arc::new(c), sm))
    }

    /// `sm`: the GPU the capture was recorded on (`--sm`, else its info file: [`info`]), recorded
    /// in signatures.
    pub fn new(capture: std::sync::Arc<Capture>, sm: Option<u32>) -> ReplayEngine {
        let mut info = EngineInfo::new(
            format!("replay:{}", capture.path.display()),
            format!(
                "{} recorded: {} case(s) of {} form(s)",
                capture.gpu.as_deref().unwrap_or("a GPU"),
                capture.case_count(),
                capture.forms.len() + capture.others.len()
            ),
        );
        info.sm = sm.or(capture.sm);
        if capture.conflicts > 0 {
            info.notes.push(format!("{} operand tuples recorded twice with different results (first kept)", capture.conflicts));
        }
        info.notes.push("answers only recorded cases: minimization keeps recorded operands".into());
        if !capture.unparsed.is_empty() {
            let skipped: u64 = capture.unparsed.iter().map(|u| u.1).sum();
            info.notes.push(format!("{skipped} lines of {} unknown forms skipped", capture.unparsed.len()));
        }
        ReplayEngine { capture, info }
    }

    pub fn capture(&self) -> &std::sync::Arc<Capture> {
        &self.capture
    }

    fn run_job(&self, job: &Job) -> Result<Output, EngineFault> {
        job.check()?;
        let p = job.program;
        let stmt = &p.body()[0];
        let per_case = job.per_case();
        let dst = p.dst(0);
        let mut values = Vec::with_capacity(job.n_cases() * per_case);
        let mut ops = [0u64; 3];
        for i in 0..job.n_cases() {
            let inputs = job.case(i);
            let n = stmt.srcs().len();
            for (o, s) in ops.iter_mut().zip(stmt.srcs()) {
                *o = inputs[s.0 as usize];
            }
            let r = self.capture.result(&stmt.instr, &ops[..n]).ok_or_else(|| EngineFault::Unsupported {
                what: format!(
                    "{} on {} was not recorded in {} (replay answers recorded cases only)",
                    stmt.instr,
                    ops[..n].iter().map(|o| format!("0x{o:x}")).collect::<Vec<_>>().join(" "),
                    self.capture.path.display()
                ),
            })?;
            for &out in p.outputs() {
                values.push(if out == dst { r } else { inputs[out.0 as usize] });
            }
            if job.trace {
                values.push(r);
            }
        }
        Ok(Output { values, per_case })
    }
}

impl Engine for ReplayEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    /// One instruction of a recorded form (whether each case was recorded is known per case).
    fn supports(&self, p: &Program) -> bool {
        p.body().len() == 1
            && matches!(self.capture.by_name.get(&p.body()[0].instr.to_string()), Some(&Slot::Instr(f)) if self.capture.forms[f].instr == p.body()[0].instr)
    }

    fn supports_form(&self, form: &Form) -> bool {
        matches!(self.capture.by_name.get(&form.to_string()), Some(&Slot::Other(f)) if self.capture.others[f].form == *form)
    }

    /// The recorded word of each case; a case the capture lacks refuses the batch.
    fn run_forms(&mut self, form: &Form, cases: &[u64]) -> Result<Vec<u64>, EngineFault> {
        let k = form.operands().len();
        cases
            .chunks(k)
            .map(|ops| {
                self.capture.form_result(form, ops).ok_or_else(|| EngineFault::Unsupported {
                    what: format!(
                        "{form} on {} was not recorded in {} (replay answers recorded cases only)",
                        ops.iter().map(|o| format!("0x{o:x}")).collect::<Vec<_>>().join(" "),
                        self.capture.path.display()
                    ),
                })
            })
            .collect()
    }

    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        jobs.iter()
            .map(|j| {
                if self.supports(j.program) {
                    self.run_job(j)
                } else {
                    Err(EngineFault::Unsupported { what: "a program other than one recorded instruction (replay answers recorded cases only)".into() })
                }
            })
            .collect()
    }

    fn preferred_cases(&self) -> usize {
        1 << 15
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "add.f32 0x3f800000 0x3f800000 -> 0x40000000\n\
                          add.f32 0x3f800000 0x00000000 -> 0x3f800000\n\
                          testp.notanumber.f32 0x7fc00000 -> 1\n\
                          frobnicate.f32 0x1 -> 0x1\n\
                          cvt.rn.bf16.f32 0x3fc00000 -> 0x3fc0\n\
                          setp.lt.f16x2 0x40003c00 0x3c004000 -> 1\n";

    fn capture() -> Capture {
        Capture::parse(Path::new("sample.txt"), SAMPLE.as_bytes()).unwrap()
    }

    #[test]
    fn a_capture_groups_cases_by_form_and_counts_unknown_forms() {
        let c = capture();
        assert_eq!(c.forms.len(), 2);
        assert_eq!(c.case_count(), 3 + 2, "three instruction cases, two of forms outside Instr");
        assert_eq!(c.forms[0].cases, vec![0x3f800000, 0x3f800000, 0x3f800000, 0]);
        assert_eq!(c.unparsed.len(), 1);
        assert_eq!(c.unparsed[0].0, "frobnicate.f32");
    }

    #[test]
    fn forms_outside_instr_are_recorded_apart_and_replayed() {
        let c = std::sync::Arc::new(capture());
        assert_eq!(c.others.len(), 2);
        let bf16 = Form::parse("cvt.rn.bf16.f32").unwrap();
        assert_eq!(c.form_result(&bf16, &[0x3fc00000]), Some(0x3fc0));
        let mut e = ReplayEngine::new(c.clone(), Some(90));
        assert!(e.supports_form(&bf16));
        let setp = Form::parse("setp.lt.f16x2").unwrap();
        assert_eq!(e.run_forms(&setp, &[0x40003c00, 0x3c004000]).unwrap(), vec![1]);
        let miss = e.run_forms(&bf16, &[0x3f800000]).unwrap_err();
        assert!(miss.to_string().contains("not recorded"), "{miss}");
        assert!(!e.supports_form(&Form::parse("cvt.rz.bf16.f32").unwrap()));
    }

    #[test]
    fn replay_answers_recorded_cases_and_refuses_others() {
        let c = std::sync::Arc::new(capture());
        let mut e = ReplayEngine::new(c.clone(), Some(90));
        let f = &c.forms[0];
        let out = e.run(&[Job::new(&f.program, &f.cases, true)]);
        assert_eq!(out[0].as_ref().unwrap().values, vec![0x40000000, 0x40000000, 0x3f800000, 0x3f800000]);
        let other = [0x3f800000u64, 0x3f800001];
        let out = e.run(&[Job::new(&f.program, &other, false)]);
        assert!(matches!(&out[0], Err(EngineFault::Unsupported { what }) if what.contains("not recorded")));
    }

    #[test]
    fn a_line_with_another_operand_count_than_its_form_is_an_error() {
        for text in ["cvt.rn.bf16.f32 0x1 -> 0x0\ncvt.rn.bf16.f32 0x1 0x2 -> 0x0\n", "add.f32 0x1 0x2 -> 0x3\nadd.f32 0x1 -> 0x3\n"] {
            let e = Capture::parse(Path::new("x.txt"), text.as_bytes()).unwrap_err();
            assert!(e.to_string().contains("x.txt:2") && e.to_string().contains("operand(s), the line has"), "{e}");
        }
    }

    #[test]
    fn a_result_no_destination_holds_or_an_endless_line_is_an_error_with_its_line() {
        let e = Capture::parse(Path::new("x.txt"), "add.f32 0x1 0x2 -> 0x3\nadd.f32 0x1 0x2 -> 0x123456789\n".as_bytes()).unwrap_err().to_string();
        assert!(e.contains("x.txt:2: result 0x123456789 is too wide: add.f32 writes a 32-bit register"), "{e}");
        let e = Capture::parse(Path::new("x.txt"), "setp.lt.f32 0x1 0x2 -> 0x7\n".as_bytes()).unwrap_err().to_string();
        assert!(e.contains("x.txt:1: result 0x7 is too wide: a setp result is 0 to 3"), "{e}");
        assert!(Capture::parse(Path::new("x.txt"), "setp.lt.f32 0x1 0x2 -> 0x3\n".as_bytes()).is_ok());
        let e = Capture::parse(Path::new("z"), std::io::repeat(0).take(1 << 20)).unwrap_err().to_string();
        assert!(e.contains("at line 1: a line longer than 64 KiB"), "{e}");
    }

    #[test]
    fn a_capture_that_cannot_be_read_is_the_users_file_not_an_invalid_job() {
        let e = ReplayEngine::open(&std::env::temp_dir(), None).err().expect("a folder is no capture");
        assert_eq!(e.kind(), "capture");
        assert!(e.to_string().ends_with("is not a regular file (a folder); give the path of a file") && !e.to_string().contains("invalid job"), "{e}");
        let e = ReplayEngine::open(Path::new("/nonexistent/cases.txt.gz"), None).err().expect("no such file");
        assert_eq!(e.to_string(), format!("/nonexistent/cases.txt.gz does not exist; give the path of {CAPTURE}"));
    }

    #[test]
    fn a_capture_whose_only_line_is_unknown_names_the_line_and_why() {
        let e = Capture::parse(Path::new("x.txt"), "\nfrobnicate.f32 0x1 -> 0x1\n".as_bytes()).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("holds no case") && m.contains("line 2 `frobnicate.f32 0x1 -> 0x1` is not one: unknown opcode"), "{m}");
        let e = Capture::parse(Path::new("x.txt"), "# nothing\n".as_bytes()).unwrap_err();
        assert!(e.to_string().contains("empty or only comments"), "{e}");
    }

    #[test]
    fn an_operand_wider_than_its_register_is_a_parse_error_with_its_line() {
        for (text, want) in [
            ("add.f32 0x1 0x2 -> 0x3\nadd.f32 0x1ffffffff 0x0 -> 0x0\n", "x.txt:2: operand 1 (0x1ffffffff) is wider than the 32-bit register"),
            ("cvt.rn.bf16.f32 0x100000000 -> 0x0\n", "x.txt:1: operand 1 (0x100000000) is wider than the 32-bit register"),
            ("selp.f32 0x1 0x2 0x2 -> 0x1\n", "x.txt:1: operand 3 (0x2) is wider than the 1-bit register"),
        ] {
            let e = Capture::parse(Path::new("x.txt"), text.as_bytes()).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
        // 64-bit operands take every word.
        assert!(Capture::parse(Path::new("x.txt"), "add.f64 0xffffffffffffffff 0x0 -> 0x0\n".as_bytes()).is_ok());
    }

    #[test]
    fn a_corrupt_gzip_capture_is_said_to_be_one_with_what_to_do() {
        let path = std::env::temp_dir().join(format!("ptxfuzz-corrupt-{}.txt.gz", std::process::id()));
        std::fs::write(&path, [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, 0xff, 0x00]).unwrap();
        let e = Capture::load(&path).unwrap_err().to_string();
        std::fs::remove_file(&path).unwrap();
        assert!(e.contains("is not a valid gzip capture") && e.contains("record it again") && !e.contains("replay:"), "{e}");
    }

    #[test]
    fn a_malformed_line_is_named_with_its_line_number() {
        let e = Capture::parse(Path::new("x.txt"), "add.f32 0x1 0x2 0x3\nadd.f32 zz -> 0x1\n".as_bytes()).unwrap_err();
        assert!(e.to_string().contains("x.txt:1"), "{e}");
    }
}
