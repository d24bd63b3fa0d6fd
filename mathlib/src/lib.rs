//! CUDA math-library error bounds as data, with a correctly rounded reference.
//!
//! - [`table::FUNCTIONS`]: every row of the CUDA C++ Programming Guide appendix "Mathematical
//!   Functions" (Tables 7, 8, 10, 11; Table 9 is [`table::FAST_MATH`]): name, signature, bound,
//!   the conditions it holds under (argument range, compute capability, `-prec-div`,
//!   `-prec-sqrt`, `-use_fast_math`), and the table it comes from.
//! - [`reference`]: correctly rounded results of every function (CORE-MATH for the
//!   single-precision functions it has, MPFR otherwise; functions MPFR lacks are composed with
//!   rigorous enclosures and Ziv's loop), with the exact values for display.
//! - [`allowed`]: the results a row's bound accepts; the module documents how ulp error is
//!   measured.
//! - [`cli`]: text for `ptxfuzz math list` and `ptxfuzz math eval`.
//!
//! Building needs `m4` (GMP's configure, through `rug`): `apt-get install -y m4`. The first
//! build of GMP and MPFR takes minutes; gmp-mpfr-sys caches them in ~/.cache/gmp-mpfr-sys.

pub mod allowed;
pub mod cli;
pub mod exact;
pub mod fast;
pub mod op;
pub mod reference;
pub mod table;

pub use allowed::{allowed, allowed_for, Accept, Allowed};
pub use cli::{evaluate, format_table, parse_operand, Evaluation};
pub use op::{Dir, Fmt, Kernel, Op, Ty, Value};
pub use reference::{reference, reference_op, Exact, Reference};
pub use table::{select, Bound, Build, Cc, Condition, Flags, MathFn, FUNCTIONS};

/// Errors of lookups and evaluations.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MathError {
    #[error("unknown math function `{0}`; `ptxfuzz math list` shows the names")]
    UnknownFunction(String),
    #[error("{function} takes {want} argument(s), got {got}: give {want} operand(s) after its name (hex bits or decimals)")]
    Arity { function: String, want: usize, got: usize },
    #[error("int argument {0} does not fit in a 32-bit int")]
    IntRange(i64),
    #[error("operand `{operand}` is not a valid {ty}: {why}; {advice}")]
    Operand { operand: String, ty: Ty, why: String, advice: &'static str },
    /// The reference cannot compute this input in reasonable time (and no bound decides it):
    /// the function, the arguments as given, and why.
    #[error("{call}: beyond the reference: {why}")]
    BeyondReference { call: String, why: &'static str },
    #[error("row `{name}` (\"{text}\") does not apply to these arguments; pick the row with table::select")]
    Condition { name: &'static str, text: &'static str },
}
