//! Reader for the Berkeley TestFloat vectors in `shared/testvectors/softfloat/`
//! (format: that folder's README.md): one [`VectorFile`] per `<type>_<op>.<mode>.txt.gz`,
//! one [`Case`] per line. Usable by any test that checks IEEE results (softfloat functions
//! today, whole instructions through the interpreter later).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use ptx::{Rounding, Scalar};

/// Environment variable naming the vector folder (overrides the default location).
pub const DIR_VAR: &str = "PTXFUZZ_TESTVECTORS";

/// The TestFloat operations the vectors cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Add,
    Sub,
    Mul,
    /// `a * b + c`, one rounding.
    MulAdd,
    Div,
    Sqrt,
}

impl Op {
    pub const ALL: [Op; 6] = [Op::Add, Op::Sub, Op::Mul, Op::MulAdd, Op::Div, Op::Sqrt];

    /// TestFloat's name (`add`, `mulAdd`, ...), as in the file names.
    pub fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::MulAdd => "mulAdd",
            Op::Div => "div",
            Op::Sqrt => "sqrt",
        }
    }

    pub fn arity(self) -> usize {
        match self {
            Op::Sqrt => 1,
            Op::MulAdd => 3,
            _ => 2,
        }
    }
}

/// One vector file: which type, operation and rounding mode it tests.
#[derive(Clone, Debug)]
pub struct VectorFile {
    pub path: PathBuf,
    pub ty: Scalar,
    pub op: Op,
    pub mode: Rounding,
}

/// One line: operands, the correctly rounded result, IEEE flags (informational).
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub line: usize,
    pub operands: [u64; 3],
    pub arity: usize,
    pub result: u64,
    pub flags: u8,
}

impl Case {
    pub fn operands(&self) -> &[u64] {
        &self.operands[..self.arity]
    }
}

/// The vector folder: `$PTXFUZZ_TESTVECTORS`, else `shared/testvectors/softfloat` beside the
/// repository clone. Panics with what to do when it is missing: a missing folder must fail
/// the tests, never skip them.
pub fn dir() -> PathBuf {
    let dir = match std::env::var_os(DIR_VAR) {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/testvectors/softfloat"),
    };
    if !dir.is_dir() {
        panic!(
            "TestFloat vectors not found at {}: clone the repository next to `shared/` \
             (so that ../shared/testvectors/softfloat exists) or set {DIR_VAR} to the folder \
             holding the 72 <type>_<op>.<mode>.txt.gz files",
            dir.display()
        );
    }
    dir
}

/// Every vector file in [`dir`], sorted by name; panics on a name it cannot read.
pub fn files() -> Vec<VectorFile> {
    let dir = dir();
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        let Some(stem) = name.strip_suffix(".txt.gz") else { continue };
        out.push(parse_name(stem).map(|(ty, op, mode)| VectorFile { path, ty, op, mode }).unwrap_or_else(
            || panic!("unexpected vector file name {name}: want <f16|f32|f64>_<op>.<rn|rz|rm|rp>.txt.gz"),
        ));
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn parse_name(stem: &str) -> Option<(Scalar, Op, Rounding)> {
    let (ty_op, mode) = stem.split_once('.')?;
    let (ty, op) = ty_op.split_once('_')?;
    let ty = match ty {
        "f16" => Scalar::F16,
        "f32" => Scalar::F32,
        "f64" => Scalar::F64,
        _ => return None,
    };
    let op = *Op::ALL.iter().find(|o| o.name() == op)?;
    Some((ty, op, Rounding::from_name(mode)?))
}

/// The cases of one file, in order. Panics (with file and line) on a malformed line.
pub fn cases(file: &VectorFile) -> impl Iterator<Item = Case> {
    let f = File::open(&file.path).unwrap_or_else(|e| panic!("opening {}: {e}", file.path.display()));
    let mut reader = BufReader::with_capacity(1 << 16, GzDecoder::new(f));
    let arity = file.op.arity();
    let path = file.path.clone();
    let mut buf = String::new();
    let mut line = 0usize;
    std::iter::from_fn(move || {
        buf.clear();
        let n = reader.read_line(&mut buf).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        if n == 0 {
            return None;
        }
        line += 1;
        let bad = || panic!("{}:{line}: malformed vector line {buf:?}", path.display());
        let mut fields = buf.split_ascii_whitespace().map(|t| u64::from_str_radix(t, 16).unwrap_or_else(|_| bad()));
        let mut operands = [0u64; 3];
        for slot in operands.iter_mut().take(arity) {
            *slot = fields.next().unwrap_or_else(bad);
        }
        let result = fields.next().unwrap_or_else(bad);
        let flags = fields.next().unwrap_or_else(bad) as u8;
        Some(Case { line, operands, arity, result, flags })
    })
}
