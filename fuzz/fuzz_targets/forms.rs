//! The forms outside programs (`ptx::form`: every `cvt`, `setp`, `set`, `selp` and
//! mixed-precision form) on any operands: a form's spelling parses back to it, `Form::eval`
//! never panics on operands of the right widths and refuses others with an error, the primary
//! word is in the allowed set and fits the result's width, and the batched kernel
//! (`ptx::form_kernel::module`) holds the instruction line with one source per operand, in
//! order (an x4 `cvt.rs` brace-groups the first four: `{%s0, %s1, %s2, %s3}, %s4`).
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use ptx::form::Form;
use ptx::gen::form_case::form_case_into;

fn forms() -> &'static [Form] {
    static ALL: OnceLock<Vec<Form>> = OnceLock::new();
    ALL.get_or_init(Form::all)
}

fn check(u: &mut Unstructured) -> Result<()> {
    let form = *u.choose(forms())?;
    assert_eq!(Form::parse(&form.to_string()).as_ref(), Ok(&form), "{form}");
    let kinds = form.operands();
    // Raw bits half the time, the generator's biased values otherwise.
    let mut ops = Vec::new();
    if u.arbitrary()? {
        for k in &kinds {
            let w: u64 = u.arbitrary()?;
            ops.push(if k.bits() >= 64 { w } else { w & ((1 << k.bits()) - 1) });
        }
    } else {
        form_case_into(u, &kinds, 1 << 15, 1 << 13, &mut ops)?;
    }
    let a = form.eval(&ops).unwrap_or_else(|e| panic!("{form} {ops:x?}: {e}"));
    assert!(a.allows(a.word), "{form} {ops:x?}: the primary 0x{:x} is not allowed", a.word);
    let rb = form.result_bits();
    assert!(rb >= 64 || a.word >> rb == 0, "{form} {ops:x?}: 0x{:x} is wider than {rb} bits", a.word);
    // One operand too wide is an error, not a panic or a result.
    if let Some((j, k)) = kinds.iter().enumerate().find(|(_, k)| k.bits() < 64) {
        let mut wide = ops.clone();
        wide[j] |= 1 << k.bits();
        assert!(form.eval(&wide).is_err(), "{form}: operand {j} wider than {} bits accepted", k.bits());
    }
    let (target, ptx) = form.minimal_target();
    let m = ptx::form_kernel::module(&form, &target, ptx);
    let srcs: Vec<String> = (0..kinds.len()).map(|j| format!("%s{j}")).collect();
    // The last line that starts with the form: the kernel's own bounds check may be one too
    // (`setp.ge.u32 %done, %i, %n;`).
    let line = m.lines().filter(|l| l.starts_with(&format!("\t{form} "))).last().unwrap_or_else(|| panic!("{form}: no instruction line in {m}"));
    assert!(line.replace(['{', '}'], "").ends_with(&format!("{};", srcs.join(", "))), "{form}: {line}");
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = check(&mut Unstructured::new(data));
});
