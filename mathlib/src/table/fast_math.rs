//! Table 9 (H.2): the functions `-use_fast_math` replaces by their intrinsics.

/// One row of Table 9: compiling with `-use_fast_math` turns `function` into `device_function`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastMath {
    /// Operator/Function column as printed (`x/y`, `sinf(x)`).
    pub function: &'static str,
    /// Lookup name of the standard function's rows (`fdiv` for Table 7's `x/y`).
    pub name: &'static str,
    /// Device Function column as printed (`__fdividef(x,y)`).
    pub device_function: &'static str,
    /// Lookup name of the intrinsic's rows in Table 10.
    pub intrinsic: &'static str,
}

const fn m(
    function: &'static str,
    name: &'static str,
    device_function: &'static str,
    intrinsic: &'static str,
) -> FastMath {
    FastMath { function, name, device_function, intrinsic }
}

/// CUDA C++ Programming Guide, Appendix Mathematical Functions, Table 9
/// ("Functions Affected by -use_fast_math"), in table order.
pub static FAST_MATH: &[FastMath] = &[
    m("x/y", "fdiv", "__fdividef(x,y)", "__fdividef"),
    m("sinf(x)", "sinf", "__sinf(x)", "__sinf"),
    m("cosf(x)", "cosf", "__cosf(x)", "__cosf"),
    m("tanf(x)", "tanf", "__tanf(x)", "__tanf"),
    m("sincosf(x,sptr,cptr)", "sincosf", "__sincosf(x,sptr,cptr)", "__sincosf"),
    m("logf(x)", "logf", "__logf(x)", "__logf"),
    m("log2f(x)", "log2f", "__log2f(x)", "__log2f"),
    m("log10f(x)", "log10f", "__log10f(x)", "__log10f"),
    m("expf(x)", "expf", "__expf(x)", "__expf"),
    m("exp10f(x)", "exp10f", "__exp10f(x)", "__exp10f"),
    m("powf(x,y)", "powf", "__powf(x,y)", "__powf"),
];
