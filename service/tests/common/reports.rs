//! A generator of realistic, distinct ingest reports for the ingest, crash and concurrency tests
//! and the ingest benchmark.
//!
//! Report `i` is a real reproducer: a one-instruction program parsed by `ptx` (its canonical JSON
//! and text), inputs of the operand classes its signature names (hex and decimal), the
//! interpreter's expected results, and a signature key built by `api::signature::Signature`.
//! Reports differ in content for every index (inputs and `found_after_cases` carry it), while
//! their signatures are drawn from `signatures` slots, so several indices (and several clients)
//! share one finding. Generating is deterministic: a retried index gives the same report.
#![allow(dead_code)]

use api::findings::FindingReport;
use api::repro::{OriginalCase, Reproducer, FORMAT};
use api::signature::{MismatchClass, OperandClass, Signature};
use ptx::isa::Instr;
use ptx::program::Program;

/// The instructions findings are reported on: (mnemonic, inputs, PTX type).
const INSTRUCTIONS: &[(&str, usize, &str)] = &[
    ("add.rn.f32", 2, "f32"),
    ("add.rz.f32", 2, "f32"),
    ("add.rm.ftz.f32", 2, "f32"),
    ("sub.rp.f64", 2, "f64"),
    ("mul.rn.f64", 2, "f64"),
    ("mul.rz.ftz.f32", 2, "f32"),
    ("fma.rn.f32", 3, "f32"),
    ("fma.rm.f64", 3, "f64"),
    ("div.rn.f32", 2, "f32"),
    ("sqrt.rn.f32", 1, "f32"),
    ("sqrt.rz.f64", 1, "f64"),
    ("min.f32", 2, "f32"),
    ("add.rn.f16", 2, "f16"),
];

/// Mismatch classes a GPU plausibly shows on those instructions.
const CLASSES: &[MismatchClass] = &[
    MismatchClass::Rounding,
    MismatchClass::Ftz,
    MismatchClass::SignedZero,
    MismatchClass::NanPayload,
    MismatchClass::NanVsNumber,
    MismatchClass::Gross,
];

const SMS: &[u32] = &[80, 86, 89, 90, 100];

const GPUS: &[&str] = &["NVIDIA A100-SXM4-80GB", "NVIDIA RTX A6000", "NVIDIA L40S", "NVIDIA H100 80GB HBM3", "NVIDIA B200"];

/// One instruction, parsed once.
struct Template {
    instr: Instr,
    inputs: usize,
    /// (exponent bits, mantissa bits) of the type.
    format: (u32, u32),
    program: Program,
    program_json: serde_json::Value,
    program_text: String,
}

/// Deterministic generator of reports over `signatures` signature slots.
pub struct Reports {
    templates: Vec<Template>,
    signatures: u64,
}

impl Reports {
    /// `signatures`: how many signature slots reports are spread over (distinct signatures can
    /// be fewer when slots collide; count them from the reports with [`distinct_signatures`]).
    pub fn new(signatures: u64) -> Reports {
        assert!(signatures > 0);
        let templates = INSTRUCTIONS
            .iter()
            .map(|&(mnemonic, inputs, ty)| {
                let instr = Instr::parse(mnemonic, inputs).unwrap_or_else(|e| panic!("{mnemonic}: {e}"));
                let names = ["%a", "%b", "%c"];
                let decl: Vec<String> = names[..inputs].iter().map(|n| format!("{n}:{ty}")).collect();
                let text = format!("// inputs: {}\n{mnemonic} %d, {};\n// outputs: %d\n", decl.join(", "), names[..inputs].join(", "));
                let program = Program::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
                let format = match ty {
                    "f16" => (5, 10),
                    "f32" => (8, 23),
                    "f64" => (11, 52),
                    other => panic!("no format for {other}"),
                };
                let program_json = serde_json::from_str(&program.to_json()).expect("program JSON is JSON");
                let program_text = program.to_string();
                Template { instr, inputs, format, program, program_json, program_text }
            })
            .collect();
        Reports { templates, signatures }
    }

    /// The signature slot of report `index`: spread so that consecutive indices (one batch)
    /// touch many findings and every client touches the same ones.
    pub fn slot(&self, index: u64) -> u64 {
        // splitmix64's finalizer: a plain multiply leaves patterns modulo small numbers.
        let mut z = index.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % self.signatures
    }

    /// Report `index`.
    pub fn report(&self, index: u64) -> FindingReport {
        let slot = self.slot(index);
        let t = &self.templates[(slot % self.templates.len() as u64) as usize];
        let mut rest = slot / self.templates.len() as u64;
        let class = CLASSES[(rest % CLASSES.len() as u64) as usize];
        rest /= CLASSES.len() as u64;
        let sm = SMS[(rest % SMS.len() as u64) as usize];
        rest /= SMS.len() as u64;
        let operands: Vec<OperandClass> = (0..t.inputs)
            .map(|_| {
                let c = OperandClass::ALL[(rest % 5) as usize];
                rest /= 5;
                c
            })
            .collect();
        let signature =
            Signature { instr: Some(t.instr.clone()), class, operands: operands.iter().copied().collect(), sm: Some(sm) };

        let inputs: Vec<u64> =
            operands.iter().enumerate().map(|(k, &c)| bits_of_class(t.format, c, index.wrapping_mul(7919).wrapping_add(k as u64))).collect();
        let types = t.program.inputs();
        let expected = t.program.run(&inputs).expect("one-instruction programs run on any inputs");
        let out_bits = t.format.0 + t.format.1 + 1;
        // The "GPU" result: the first input's neighbour, so a rounding-like disagreement; one
        // bit further when that is what the reference allows (`min` of it, say), since the
        // server refuses a failing output whose actual the expectation allows.
        let bits = (0..out_bits)
            .map(|b| (inputs[0] ^ (1 << b)) & mask(out_bits))
            .find(|&v| !expected[0].accepts(v))
            .expect("a one-value expectation refuses some neighbour");
        let actual = format!("0x{bits:0w$x}", w = (out_bits / 4) as usize);
        let gpu = GPUS[(sm as usize / 10 + index as usize) % GPUS.len()];
        FindingReport {
            reproducer: Reproducer {
                ptxfuzz_repro: FORMAT,
                signature: signature.key(),
                class: class.name().to_string(),
                target: "cuda:0".into(),
                device: gpu.to_string(),
                sm,
                variant: Default::default(),
                program: t.program_json.clone(),
                program_text: t.program_text.clone(),
                inputs: types.iter().zip(&inputs).map(|(&ty, &v)| ty.format_hex(v)).collect(),
                inputs_decimal: types.iter().zip(&inputs).map(|(&ty, &v)| ty.format_decimal(v)).collect(),
                expected: expected.iter().map(|e| e.to_string()).collect(),
                actual: vec![actual],
                failing_outputs: vec![0],
                found_after_cases: index,
                original: Some(OriginalCase {
                    program_text: t.program_text.clone(),
                    inputs: types.iter().zip(&inputs).map(|(&ty, &v)| ty.format_hex(v)).collect(),
                }),
                probes: 40 + (index % 97) as usize,
                steps: 3 + (index % 5) as usize,
                judge: "spec".into(),
                exec: api::Exec::Compiled,
                // Spread over a day in index order's hash: concurrent clients sharing a finding
                // deliver earlier meetings after later ones, so first_seen moves back (the
                // ingest's separate first_seen step runs under load in the concurrency test).
                found_at: chrono::DateTime::from_timestamp(1_767_225_600 + (index * 7919 % 86_400) as i64, 0),
            },
            hits: 1 + index % 7,
            ptx: None,
            sass: None,
        }
    }

    /// Reports `range`, in order.
    pub fn batch(&self, range: std::ops::Range<u64>) -> Vec<FindingReport> {
        range.map(|i| self.report(i)).collect()
    }
}

/// Distinct signatures among `reports`.
pub fn distinct_signatures<'a>(reports: impl IntoIterator<Item = &'a FindingReport>) -> usize {
    reports.into_iter().map(|r| r.reproducer.signature.as_str()).collect::<std::collections::HashSet<_>>().len()
}

/// Sum of hits per signature.
pub fn hits_by_signature<'a>(reports: impl IntoIterator<Item = &'a FindingReport>) -> std::collections::HashMap<String, u64> {
    let mut m = std::collections::HashMap::new();
    for r in reports {
        *m.entry(r.reproducer.signature.clone()).or_insert(0) += r.hits;
    }
    m
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Bits of a value of IEEE class `class` in a format of (exponent, mantissa) bits, varied by
/// `seed` (sign and mantissa) so that reports differ.
fn bits_of_class((e, m): (u32, u32), class: OperandClass, seed: u64) -> u64 {
    let sign = (seed & 1) << (e + m);
    let mant = (seed >> 1) & mask(m);
    let exp_max = mask(e);
    let body = match class {
        OperandClass::Zero => 0,
        OperandClass::Subnormal => mant.max(1),
        // Exponents near the bias: ordinary magnitudes.
        OperandClass::Normal => ((exp_max >> 1) - 2 + (seed >> 40) % 5) << m | mant,
        OperandClass::Inf => exp_max << m,
        OperandClass::Nan => exp_max << m | mant.max(1),
        // A predicate source: 0 or 1, no sign.
        OperandClass::False => return 0,
        OperandClass::True => return 1,
        // An integer source (a `cvt` from `.s32`, ...): the 32-bit edges, or a small value.
        OperandClass::IntMin => return 0x8000_0000,
        OperandClass::IntMax => return 0x7fff_ffff,
        OperandClass::Int => return 2 + seed % 1000,
    };
    sign | body
}
