//! The primary result of an approximate form alone, for the batch path (`interp::Kernel`): the
//! bits [`Form::lane`]'s `primary` outcome holds (the special-table value, the canonical or
//! quieted NaN, else the correctly rounded reference, flushed under `.ftz`), without the
//! accepted range around it. Comparing millions of results needs only this value; the range
//! is built (by `Form::lane`) for the rare result that differs. The two follow the same steps
//! in the same order, and `interp::batch`'s `kernel_matches_eval_*` tests hold them equal on
//! every form.

use super::bounds::{self, BoundKind};
use super::reference::{self, correctly_rounded_div, to_f64};
use super::special::{self, Class};
use super::{f64gross, Form, Func};
use crate::format::{Format, Scalar, BF16, F16, F32, F64};

/// Slots of [`Form::primaries`]'s memo: a power of two, 8 KB on the stack per call (a call
/// is one chunk of 2,048 cases at most, whose columns hold a few hundred distinct values).
pub const MEMO: usize = 512;

impl Form {
    /// The primary bits of one lane; `ops[1]` is ignored by one-operand forms.
    #[inline]
    pub fn primary(&self, ops: [u64; 2]) -> u64 {
        match self.scalar {
            Scalar::F32 => self.primary_in::<F32>(ops),
            Scalar::F16 => self.primary_in::<F16>(ops),
            Scalar::BF16 => self.primary_in::<BF16>(ops),
            Scalar::F64 => self.primary_in::<F64>(ops),
        }
    }

    #[inline]
    fn primary_in<F: Format>(&self, [a, b]: [u64; 2]) -> u64 {
        match self.func {
            Func::DivApprox | Func::DivFull => return self.div_primary(self.flush_in::<F32>(a), self.flush_in::<F32>(b)),
            Func::RcpGross | Func::RsqrtGross => return self.gross_primary(a),
            _ => {}
        }
        let a = self.flush_in::<F>(a);
        if let Some(exact) = self.exact_lane::<F>(a) {
            return exact.unwrap_or_else(|| nan_primary::<F>(a));
        }
        // Every bound row keeps the flushed correctly rounded result as its reference
        // (`accept::finish`, `Outcome::unbounded`); for half formats the Abs/Rel rows'
        // `exact_and_rounded` is the same rounding of the same f64 value as
        // `correctly_rounded`. So the row does not matter here and is not looked up.
        self.flush_in::<F>(reference::correctly_rounded::<F>(self.func, a))
    }

    /// The primaries of a 16-bit one-operand form (`ex2`, `tanh` `.approx` on f16 and bf16,
    /// 9.7.4.9-10), every one of the 65,536 inputs computed once per process by
    /// [`Form::primary`] itself (a few ms) and then looked up: each lane was a CORE-MATH
    /// double-precision evaluation, a tenth of an interp campaign's time (`perf`,
    /// docs/benchmarks.md). `None` for every other form.
    pub fn half_table(&self) -> Option<&'static [u16]> {
        use std::sync::OnceLock;
        static TABLES: [OnceLock<Box<[u16]>>; 8] = [const { OnceLock::new() }; 8];
        if self.arity != 1 || self.scalar.bits() != 16 {
            return None;
        }
        let slot = match (self.func, self.scalar) {
            (Func::Ex2, Scalar::F16) => 0,
            (Func::Ex2, Scalar::BF16) => 1,
            (Func::Tanh, Scalar::F16) => 2,
            (Func::Tanh, Scalar::BF16) => 3,
            _ => return None,
        } * 2
            + (self.ftz == crate::isa::Ftz::Flush) as usize;
        Some(TABLES[slot].get_or_init(|| (0..=u16::MAX).map(|x| self.primary([x as u64, 0]) as u16).collect()))
    }

    /// The primaries of a one-operand, one-lane form over a column (`out[i]` of `col[i]`),
    /// each distinct input computed once per call where the function is costly: a campaign's
    /// columns repeat values (half its operands come from a list of 33 specials, and the mixed
    /// three quarters of its cases reuse the generated quarter's inputs, `worker::campaign::
    /// source`), and each lane of `sin`, `lg2`, `ex2`, `tanh`, `rsqrt` is a CORE-MATH call, 16%
    /// of an interp campaign (`perf`, docs/benchmarks.md). A direct-mapped memo of [`MEMO`]
    /// entries keyed by the input's bits; a collision only costs a recomputation, so the
    /// results are `primary`'s whatever the column (`memoized_primaries_are_the_primaries`).
    /// Returns `false` (nothing written) where the memo does not pay: a form of two operands
    /// or two lanes, and `rcp` and `sqrt` (one IEEE operation each); the caller's plain loop
    /// takes those.
    pub fn primaries(&self, col: &[u64], out: &mut [u64]) -> bool {
        if self.arity != 1 || self.lanes != 1 || matches!(self.func, Func::Rcp | Func::Sqrt) {
            return false;
        }
        // An empty slot's key: no lane of 32 bits or fewer has it, and an f64 lane that does
        // (a NaN) is computed rather than looked up.
        const EMPTY: u64 = u64::MAX;
        let mut keys = [EMPTY; MEMO];
        let mut vals = [0u64; MEMO];
        for (o, &x) in out.iter_mut().zip(col) {
            let slot = (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - MEMO.trailing_zeros())) as usize;
            *o = if keys[slot] == x && x != EMPTY {
                vals[slot]
            } else {
                let v = self.primary([x, 0]);
                (keys[slot], vals[slot]) = (x, v);
                v
            };
        }
        true
    }

    /// As `Form::div`'s primary outcome.
    fn div_primary(&self, a: u64, b: u64) -> u64 {
        if F32::is_nan(a) || F32::is_nan(b) {
            return F32::CANONICAL_NAN;
        }
        if self.func == Func::DivApprox && special::div_large_divisor(b) {
            return if F32::is_inf(a) { F32::CANONICAL_NAN } else { F32::zero(F32::sign(a) != F32::sign(b)) };
        }
        let cr = correctly_rounded_div(a, b);
        if !F32::is_nan(cr) {
            return self.flush_in::<F32>(cr);
        }
        // 0/0 and inf/inf: "any NaN" under a documented bound, the host's NaN where none is.
        match bounds::select(self.rows, to_f64::<F32>(b)).map(|r| r.kind) {
            Some(BoundKind::Ulps(_)) => F32::CANONICAL_NAN,
            _ => cr,
        }
    }

    /// As `Form::gross`'s primary outcome.
    fn gross_primary(&self, a: u64) -> u64 {
        let tmp = F64::flush(f64gross::upper(a));
        if let Some(s) = self.special(Class::of::<F64>(tmp)) {
            return s.bits::<F64>(tmp).unwrap_or(f64gross::GROSS_NAN);
        }
        match self.func {
            Func::RcpGross => f64gross::rcp_reference(tmp),
            _ if F64::sign(tmp) => f64gross::GROSS_NAN,
            _ => f64gross::rsqrt_reference(tmp),
        }
    }
}

/// `nan_lane`'s primary: the quieted operand for an f64 NaN, else the canonical NaN (what
/// `Expectation::primary_bits` gives for "any NaN").
#[inline]
fn nan_primary<F: Format>(a: u64) -> u64 {
    if F::BITS == 64 && F::is_nan(a) {
        F::quiet(a)
    } else {
        F::CANONICAL_NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::all_forms;

    /// The memo gives `primary`'s bits on columns with repeats, colliding inputs (far more
    /// distinct values than slots), the empty slot's key as an f64 input, and no repeats.
    #[test]
    fn memoized_primaries_are_the_primaries() {
        let mut forms = 0;
        for instr in all_forms() {
            let Some(form) = Form::of(&instr) else { continue };
            let mask = form.scalar.mask();
            let specials = [0, 1, F64::ONE, F64::INF, F64::CANONICAL_NAN, u64::MAX];
            let col: Vec<u64> = (0..3 * MEMO as u64)
                .map(|i| i.wrapping_mul(0x2545_f491_4f6c_dd1d) >> (i % 40))
                .chain(specials)
                .chain((0..4 * MEMO as u64).map(|i| (i * 7919) % 300))
                .map(|x| x & mask)
                .collect();
            let mut out = vec![0; col.len()];
            if !form.primaries(&col, &mut out) {
                assert!(form.arity == 2 || form.lanes == 2 || matches!(form.func, Func::Rcp | Func::Sqrt), "{instr}");
                continue;
            }
            for (&x, &got) in col.iter().zip(&out) {
                assert_eq!(got, form.primary([x, 0]), "{instr} 0x{x:x}");
            }
            forms += 1;
        }
        assert!(forms >= 18, "{forms} forms (every one-operand, one-lane form but rcp and sqrt)");
    }

    /// `primary` equals the primary of the full expectation: every input of the 16-bit forms,
    /// a regular sample of about 2^20 f32 and f64 inputs (and divisor/dividend pairs) for the
    /// others, which crosses every binade, zero, infinity and NaN encoding.
    #[test]
    fn primary_is_the_primary_of_the_full_expectation() {
        let mut checked = 0u64;
        for instr in all_forms() {
            let Some(form) = Form::of(&instr) else { continue };
            let w = form.scalar.bits();
            let inputs: Box<dyn Iterator<Item = u64>> = match w {
                16 => Box::new(0..1u64 << 16),
                32 => Box::new((0..1u64 << 32).step_by(4099)),
                _ => Box::new(
                    [0, 1, F64::MIN_NORMAL, F64::ONE, F64::MAX_FINITE, F64::INF, F64::INF | 1, F64::CANONICAL_NAN]
                        .into_iter()
                        .flat_map(|v| [v, v | F64::SIGN_MASK])
                        .chain((0..1u64 << 20).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))),
                ),
            };
            for a in inputs {
                // Division: the dividend walks the inputs against a divisor from the same set.
                let b = a.rotate_left(13) & form.scalar.mask();
                let want = form.eval(&[a, b][..form.arity]).lanes[0].primary;
                let want = crate::expect::Expectation::scalar(form.scalar, crate::expect::LaneExpectation::of(want))
                    .primary_bits();
                assert_eq!(form.primary([a, b]), want, "{instr} 0x{a:x} 0x{b:x}");
                checked += 1;
            }
        }
        assert!(checked > 5_000_000, "only {checked}");
    }
}
