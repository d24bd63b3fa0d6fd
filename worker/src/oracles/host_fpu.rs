//! The host CPU's own IEEE arithmetic in every rounding mode (x86-64 SSE/FMA through inline asm).
//!
//! Each operation saves MXCSR, installs the wanted rounding mode with FTZ and DAZ cleared,
//! computes, and restores MXCSR inside ONE asm block: no Rust code ever runs under a
//! non-default mode, so the compiler's own constant folding and codegen are never affected.

use ptx::Rounding;

/// A host scalar operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostOp {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
}

/// Whether this CPU can run the host engine at all (SSE2 always; FMA needs the `fma` feature).
pub fn supports(op: HostOp) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        op != HostOp::Fma || std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = op;
        false
    }
}

/// MXCSR rounding-control field (bits 13-14): 00 nearest, 01 down, 10 up, 11 toward zero.
fn rc_bits(mode: Rounding) -> u32 {
    match mode {
        Rounding::Rn => 0b00 << 13,
        Rounding::Rm => 0b01 << 13,
        Rounding::Rp => 0b10 << 13,
        Rounding::Rz => 0b11 << 13,
    }
}

/// MXCSR with RC cleared, FTZ (bit 15) and DAZ (bit 6) cleared: IEEE subnormals.
const KEEP_MASK: u32 = !(0b11 << 13 | 1 << 15 | 1 << 6);

macro_rules! host_binop {
    ($name:ident, $ty:ty, $insn:literal) => {
        #[cfg(target_arch = "x86_64")]
        fn $name(a: $ty, b: $ty, mode: Rounding) -> $ty {
            let mut x = a;
            let mut slots = [0u32; 2];
            // SAFETY: touches only `slots` (a local buffer) and MXCSR, which it restores
            // before the block ends; no memory is read or written elsewhere.
            unsafe {
                std::arch::asm!(
                    "stmxcsr [{p}]",
                    "mov {t:e}, [{p}]",
                    "and {t:e}, {keep:e}",
                    "or {t:e}, {rc:e}",
                    "mov [{p} + 4], {t:e}",
                    "ldmxcsr [{p} + 4]",
                    concat!($insn, " {x}, {b}"),
                    "ldmxcsr [{p}]",
                    p = in(reg) slots.as_mut_ptr(),
                    t = out(reg) _,
                    keep = in(reg) KEEP_MASK,
                    rc = in(reg) rc_bits(mode),
                    x = inout(xmm_reg) x,
                    b = in(xmm_reg) b,
                    options(nostack),
                );
            }
            x
        }
    };
}

host_binop!(add_f32, f32, "addss");
host_binop!(sub_f32, f32, "subss");
host_binop!(mul_f32, f32, "mulss");
host_binop!(div_f32, f32, "divss");
host_binop!(sqrt_f32_raw, f32, "sqrtss");
host_binop!(add_f64, f64, "addsd");
host_binop!(sub_f64, f64, "subsd");
host_binop!(mul_f64, f64, "mulsd");
host_binop!(div_f64, f64, "divsd");
host_binop!(sqrt_f64_raw, f64, "sqrtsd");

macro_rules! host_fma {
    ($name:ident, $ty:ty, $insn:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "fma")]
        unsafe fn $name(a: $ty, b: $ty, c: $ty, mode: Rounding) -> $ty {
            let mut x = a;
            let mut slots = [0u32; 2];
            // SAFETY: as in host_binop; the caller checked the `fma` feature.
            unsafe {
                std::arch::asm!(
                    "stmxcsr [{p}]",
                    "mov {t:e}, [{p}]",
                    "and {t:e}, {keep:e}",
                    "or {t:e}, {rc:e}",
                    "mov [{p} + 4], {t:e}",
                    "ldmxcsr [{p} + 4]",
                    // x = x * b + c
                    concat!($insn, " {x}, {b}, {c}"),
                    "ldmxcsr [{p}]",
                    p = in(reg) slots.as_mut_ptr(),
                    t = out(reg) _,
                    keep = in(reg) KEEP_MASK,
                    rc = in(reg) rc_bits(mode),
                    x = inout(xmm_reg) x,
                    b = in(xmm_reg) b,
                    c = in(xmm_reg) c,
                    options(nostack),
                );
            }
            x
        }
    };
}

host_fma!(fma_f32, f32, "vfmadd213ss");
host_fma!(fma_f64, f64, "vfmadd213sd");

/// Run `op` on f32 bit patterns in `mode`; `None` where the host lacks the operation.
pub fn f32_op(op: HostOp, mode: Rounding, a: u32, b: u32, c: u32) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        let (a, b, c) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        let r = match op {
            HostOp::Add => add_f32(a, b, mode),
            HostOp::Sub => sub_f32(a, b, mode),
            HostOp::Mul => mul_f32(a, b, mode),
            HostOp::Div => div_f32(a, b, mode),
            // sqrtss x, b computes sqrt(b) into x.
            HostOp::Sqrt => sqrt_f32_raw(0.0, a, mode),
            HostOp::Fma if supports(HostOp::Fma) => unsafe { fma_f32(a, b, c, mode) },
            HostOp::Fma => return None,
        };
        Some(r.to_bits())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (op, mode, a, b, c);
        None
    }
}

/// Run `op` on f64 bit patterns in `mode`; `None` where the host lacks the operation.
pub fn f64_op(op: HostOp, mode: Rounding, a: u64, b: u64, c: u64) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        let (a, b, c) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let r = match op {
            HostOp::Add => add_f64(a, b, mode),
            HostOp::Sub => sub_f64(a, b, mode),
            HostOp::Mul => mul_f64(a, b, mode),
            HostOp::Div => div_f64(a, b, mode),
            HostOp::Sqrt => sqrt_f64_raw(0.0, a, mode),
            HostOp::Fma if supports(HostOp::Fma) => unsafe { fma_f64(a, b, c, mode) },
            HostOp::Fma => return None,
        };
        Some(r.to_bits())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (op, mode, a, b, c);
        None
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn directed_modes_round_the_host_result() {
        let tiny = 2f32.powi(-30).to_bits();
        let one = 1f32.to_bits();
        assert_eq!(f32_op(HostOp::Add, Rounding::Rn, one, tiny, 0), Some(one));
        assert_eq!(f32_op(HostOp::Add, Rounding::Rp, one, tiny, 0), Some(one + 1));
        assert_eq!(f32_op(HostOp::Add, Rounding::Rz, one, tiny, 0), Some(one));
        let m1 = (-1f64).to_bits();
        let t = 2f64.powi(-70).to_bits();
        assert_eq!(f64_op(HostOp::Sub, Rounding::Rm, m1, t, 0), Some(m1 + 1));
    }

    #[test]
    fn mxcsr_is_restored_after_each_operation() {
        let _ = f64_op(HostOp::Div, Rounding::Rz, 1f64.to_bits(), 3f64.to_bits(), 0);
        // Ordinary Rust arithmetic afterwards still rounds to nearest.
        let third = std::hint::black_box(1.0f64) / std::hint::black_box(3.0f64);
        assert_eq!(third.to_bits(), 0x3fd5_5555_5555_5555);
    }

    #[test]
    fn subnormals_are_not_flushed() {
        let min_sub = 1u32;
        assert_eq!(f32_op(HostOp::Add, Rounding::Rn, min_sub, min_sub, 0), Some(2));
    }

    #[test]
    fn sqrt_and_fma_in_directed_modes() {
        let two = 2f64.to_bits();
        let rz = f64_op(HostOp::Sqrt, Rounding::Rz, two, 0, 0).unwrap();
        let rp = f64_op(HostOp::Sqrt, Rounding::Rp, two, 0, 0).unwrap();
        assert_eq!(rp, rz + 1);
        if supports(HostOp::Fma) {
            let third = (1.0f32 / 3.0).to_bits();
            let r = f32_op(HostOp::Fma, Rounding::Rn, third, 3f32.to_bits(), (-1f32).to_bits()).unwrap();
            assert_ne!(f32::from_bits(r), 0.0, "fused: the product's rounding error survives");
        }
    }
}
