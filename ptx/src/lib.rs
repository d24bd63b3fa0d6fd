//! ptx: the reference semantics of PTX floating-point instructions.
//!
//! - [`format`]: the binary formats (f16, bf16, f32, f64) behind one trait;
//! - [`narrow_format`]: the 8-, 6- and 4-bit formats and ue8m0 (encodings, value, class);
//! - [`rounding`]: rounding modes and the exact rounding core;
//! - [`softfloat`]: correctly rounded add, sub, mul, fma, div, sqrt in every mode;
//! - [`isa`]: the instruction model, its legality table and PTX text;
//! - [`expect`]: what an instruction may return ([`expect::Expectation`]) and why it cannot
//!   be evaluated ([`expect::EvalError`]): below both `interp` and `approx`;
//! - [`explain`]: the simplest alternative semantics that reproduces a hardware result (triage);
//! - [`interp`]: the interpreter, which returns an [`interp::Expectation`] per result;
//! - [`program`]: straight-line programs of those instructions, their JSON and PTX text;
//! - [`gen`]: the program and operand generator;
//! - [`kernel`]: PTX kernels that run programs on batches of cases;
//! - [`vm`]: the instruction VM, one precompiled module per sm that runs programs as bytecode;
//! - [`compare`]: setp, set and selp: legality, requirements, results;
//! - [`form_kernel`]: batched kernels of the forms outside `isa::Instr` (cvt, setp/set/selp,
//!   mixed precision), one result word per case, for a GPU capture of them;
//! - [`approx`]: the acceptance model of the approximate instructions (bounds, special values).

pub mod approx;
pub mod compare;
pub mod cvt;
pub mod expect;
pub mod explain;
pub mod form;
pub mod form_kernel;
pub mod form_value;
pub mod format;
pub mod gen;
pub mod integer;
pub mod interp;
pub mod isa;
pub mod kernel;
pub mod mixed;
pub mod narrow_format;
pub mod profile;
pub mod program;
pub mod rounding;
pub mod softfloat;
pub mod value;
pub mod vm;

pub use format::{Format, FpClass, Scalar, BF16, F16, F32, F64};
pub use rounding::Rounding;
