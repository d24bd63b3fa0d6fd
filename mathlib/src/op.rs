//! What a table row computes: the mathematical kernel, its result format and rounding direction,
//! and the C signature (argument and result types) that follows from them.

use std::fmt;

/// Floating-point format of a function's arguments and result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fmt {
    F32,
    F64,
}

impl Fmt {
    /// Significand precision in bits (including the hidden bit).
    pub const fn prec(self) -> u32 {
        match self {
            Fmt::F32 => 24,
            Fmt::F64 => 53,
        }
    }
    pub const fn ty(self) -> Ty {
        match self {
            Fmt::F32 => Ty::F32,
            Fmt::F64 => Ty::F64,
        }
    }
}

/// Rounding direction of a result, named by the CUDA intrinsic suffixes (`__fadd_rz`, ...).
/// Every standard function rounds to nearest; only the IEEE-compliant intrinsics of
/// Tables 10 and 11 have directed variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// `_rn`: to nearest, ties to even.
    Rn,
    /// `_rz`: toward zero.
    Rz,
    /// `_ru`: toward +infinity.
    Ru,
    /// `_rd`: toward -infinity.
    Rd,
}

impl Dir {
    pub(crate) fn round(self) -> rug::float::Round {
        use rug::float::Round;
        match self {
            Dir::Rn => Round::Nearest,
            Dir::Rz => Round::Zero,
            Dir::Ru => Round::Up,
            Dir::Rd => Round::Down,
        }
    }
}

/// A C type of an argument or result. `long` is 64 bits: CUDA device code follows the host's
/// LP64 data model on Linux.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    F32,
    F64,
    /// `int`
    Int,
    /// `long` / `long long`
    Long,
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ty::F32 => "float",
            Ty::F64 => "double",
            Ty::Int => "int",
            Ty::Long => "long",
        })
    }
}

/// The mathematical function a row is about, independent of precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    Add,
    Sub,
    Mul,
    Div,
    /// 1/x
    Rcp,
    Sqrt,
    /// 1/sqrt(x)
    Rsqrt,
    Cbrt,
    /// 1/cbrt(x)
    Rcbrt,
    Hypot,
    /// 1/hypot(x,y)
    Rhypot,
    Norm3d,
    Rnorm3d,
    Norm4d,
    Rnorm4d,
    /// norm(dim, arr): the arguments are the array elements.
    Norm,
    Rnorm,
    Exp,
    Exp2,
    Exp10,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    /// Two results: sin, cos.
    Sincos,
    Sinpi,
    Cospi,
    /// Two results: sinpi, cospi.
    Sincospi,
    Asin,
    Acos,
    Atan,
    /// atan2(y, x)
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Pow,
    Erf,
    Erfc,
    Erfinv,
    Erfcinv,
    /// exp(x^2) erfc(x)
    Erfcx,
    /// Standard normal cumulative distribution function.
    Normcdf,
    Normcdfinv,
    /// log|Gamma(x)|
    Lgamma,
    Tgamma,
    Fma,
    /// Two results: significand in [0.5, 1), exponent (int).
    Frexp,
    Ldexp,
    Scalbn,
    Scalbln,
    Logb,
    Ilogb,
    J0,
    J1,
    /// jn(n, x)
    Jn,
    Y0,
    Y1,
    /// yn(n, x)
    Yn,
    /// Modified Bessel function of the first kind, order 0 (cyl_bessel_i0).
    I0,
    I1,
    Fmod,
    Remainder,
    /// Two results: remainder, quotient bits (int).
    Remquo,
    /// Two results: fractional part, integral part.
    Modf,
    Fdim,
    Trunc,
    Round,
    Rint,
    Nearbyint,
    Ceil,
    Floor,
    Lrint,
    Lround,
    Llrint,
    Llround,
}

/// Shape of a kernel's arguments, in C order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Args {
    /// `n` floating-point arguments of the row's format.
    Floats(usize),
    /// A float then an integer of the given type (ldexp, scalbn, scalbln).
    FloatInt(Ty),
    /// An int then a float (jn, yn).
    IntFloat,
    /// `dim, arr`: any number of floats, passed as the array elements.
    Array,
}

/// Shape of a kernel's results: the return value first, then what it writes through pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Results {
    Float,
    Int(Ty),
    FloatFloat,
    FloatInt,
}

impl Kernel {
    pub const fn args(self) -> Args {
        use Kernel::*;
        match self {
            Add | Sub | Mul | Div | Hypot | Rhypot | Atan2 | Pow | Fmod | Remainder | Remquo
            | Fdim => Args::Floats(2),
            Fma | Norm3d | Rnorm3d => Args::Floats(3),
            Norm4d | Rnorm4d => Args::Floats(4),
            Norm | Rnorm => Args::Array,
            Ldexp | Scalbn => Args::FloatInt(Ty::Int),
            Scalbln => Args::FloatInt(Ty::Long),
            Jn | Yn => Args::IntFloat,
            _ => Args::Floats(1),
        }
    }

    pub const fn results(self) -> Results {
        use Kernel::*;
        match self {
            Sincos | Sincospi | Modf => Results::FloatFloat,
            Frexp | Remquo => Results::FloatInt,
            Ilogb => Results::Int(Ty::Int),
            Lrint | Lround | Llrint | Llround => Results::Int(Ty::Long),
            _ => Results::Float,
        }
    }
}

/// What a row computes: kernel, format, rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Op {
    pub kernel: Kernel,
    pub fmt: Fmt,
    pub dir: Dir,
}

impl Op {
    pub const fn new(kernel: Kernel, fmt: Fmt) -> Op {
        Op { kernel, fmt, dir: Dir::Rn }
    }

    /// Argument types for `n_array` array elements (ignored unless the kernel takes an array).
    pub fn arg_types(&self, n_array: usize) -> Vec<Ty> {
        let f = self.fmt.ty();
        match self.kernel.args() {
            Args::Floats(n) => vec![f; n],
            Args::FloatInt(t) => vec![f, t],
            Args::IntFloat => vec![Ty::Int, f],
            Args::Array => vec![f; n_array],
        }
    }

    /// Result types: the return value, then the values written through pointers.
    pub fn result_types(&self) -> Vec<Ty> {
        let f = self.fmt.ty();
        match self.kernel.results() {
            Results::Float => vec![f],
            Results::Int(t) => vec![t],
            Results::FloatFloat => vec![f, f],
            Results::FloatInt => vec![f, Ty::Int],
        }
    }
}

/// One result value: float bits, or an integer, or a value the C standard leaves unspecified
/// (for example `lrintf(NaN)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    F32(u32),
    F64(u64),
    Int(i32),
    Long(i64),
    Unspecified,
}

impl Value {
    pub(crate) fn float(fmt: Fmt, bits: u64) -> Value {
        match fmt {
            Fmt::F32 => Value::F32(bits as u32),
            Fmt::F64 => Value::F64(bits),
        }
    }

    /// Raw bits (integers as two's complement); 0 for `Unspecified`.
    pub fn bits(&self) -> u64 {
        match *self {
            Value::F32(b) => b as u64,
            Value::F64(b) => b,
            Value::Int(i) => i as i64 as u64,
            Value::Long(i) => i as u64,
            Value::Unspecified => 0,
        }
    }

    /// The value as an f64 (exact for every variant but `Long` beyond 2^53).
    pub fn to_f64(&self) -> f64 {
        match *self {
            Value::F32(b) => f32::from_bits(b) as f64,
            Value::F64(b) => f64::from_bits(b),
            Value::Int(i) => i as f64,
            Value::Long(i) => i as f64,
            Value::Unspecified => f64::NAN,
        }
    }
}

/// The shortest decimal that round-trips: plain between 1e-5 and 1e16 (`1`, `0.1`,
/// `123456.79`), with an exponent outside (`1.7014118e38`, `1e-45`), so that `1` never reads
/// as `1e0` nor `f32::MAX` as 39 digits.
fn shortest<T: fmt::Display + fmt::LowerExp>(x: T, abs: f64) -> String {
    if abs == 0.0 || abs.is_nan() || abs.is_infinite() || (1e-5..1e16).contains(&abs) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

impl fmt::Display for Value {
    /// Hex bits and the shortest decimal that round-trips (`0x3f800000 (1)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::F32(b) => write!(f, "{b:#010x} ({})", shortest(f32::from_bits(b), f32::from_bits(b).abs() as f64)),
            Value::F64(b) => write!(f, "{b:#018x} ({})", shortest(f64::from_bits(b), f64::from_bits(b).abs())),
            Value::Int(i) => write!(f, "{i}"),
            Value::Long(i) => write!(f, "{i}"),
            Value::Unspecified => f.write_str("unspecified"),
        }
    }
}
