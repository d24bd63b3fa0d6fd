//! Every generated program is legal for its config's target, round-trips through its text and
//! JSON forms, and its kernel holds exactly its instructions (`ptx_fuzz::check_kernel`). The
//! config itself comes from the input: target, opcode and type subsets, lengths, knobs.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use ptx::gen::{GenConfig, Generator};
use ptx::isa::{Arch, Opcode, Type, Variant};
use ptx::kernel::min_ptx_for_arch;

/// The sms the kernel emitter knows (ptx::kernel::min_ptx_for_sm's table).
const SMS: [u32; 12] = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121];

/// The elements of `all` whose bit is set in `mask`; none set means all (so that an exhausted
/// stream gives the default config).
fn subset<T: Copy>(mask: u32, all: &[T]) -> Vec<T> {
    let out: Vec<T> = all.iter().enumerate().filter(|(i, _)| mask >> i & 1 != 0).map(|(_, &x)| x).collect();
    if out.is_empty() {
        all.to_vec()
    } else {
        out
    }
}

fn share(u: &mut Unstructured) -> Result<f64> {
    Ok(u.int_in_range(0u8..=16)? as f64 / 16.0)
}

fn config(u: &mut Unstructured) -> Result<GenConfig> {
    let sm = *u.choose(&SMS)?;
    // Plain mostly; sm_XXa/f (the architecture-specific cvts) where the sm has that suffix
    // (`a`: sm_90 and sm_100 on, `f`: sm_100 on; `kernel::min_ptx_for_arch` refuses the
    // others, as ptxas does), else the plain target.
    let wanted = *u.choose(&[Variant::Plain, Variant::Plain, Variant::A, Variant::F])?;
    let (variant, floor) = match min_ptx_for_arch(Arch { sm, variant: wanted }) {
        Ok(floor) => (wanted, floor),
        Err(_) => (Variant::Plain, min_ptx_for_arch(Arch::from(sm)).expect("known sm")),
    };
    // The target's own PTX ISA floor or something newer (up to 9.1, which the sm_100f forms need).
    let ptx = if u.arbitrary()? { floor } else { ptx::isa::PtxVersion::new(9, 1).max(floor) };
    let max_len = u.int_in_range(1usize..=24)?;
    Ok(GenConfig {
        sm,
        variant,
        ptx,
        opcodes: subset(u.arbitrary()?, &Opcode::ALL),
        types: subset(u.arbitrary::<u8>()?.into(), &Type::ALL),
        min_len: u.int_in_range(1..=max_len)?,
        max_len,
        single_share: share(u)?,
        ftz_share: share(u)?,
        sat_share: share(u)?,
        reuse_share: share(u)?,
        special_share: share(u)?,
        relation_share: share(u)?,
        contraction: u.arbitrary()?,
        approximate: u.arbitrary()?,
        undocumented: u.arbitrary()?,
    })
}

/// `Generator::new` enumerates the legal forms, most of an execution's time; mutations mostly
/// keep the config bytes, so recent generators are kept by config.
fn generator(cfg: &GenConfig) -> Option<Generator> {
    thread_local! {
        static CACHE: RefCell<HashMap<String, Option<Generator>>> = RefCell::default();
    }
    let key = serde_json::to_string(cfg).expect("a config serialises");
    CACHE.with_borrow_mut(|cache| {
        if cache.len() >= 4096 {
            cache.clear();
        }
        cache.entry(key).or_insert_with(|| Generator::new(cfg.clone()).ok()).clone()
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(cfg) = config(&mut u) else { return };
    let target = cfg.target();
    // A subset with no form on this target is a config error, reported as such.
    let Some(g) = generator(&cfg) else { return };
    let forms: Vec<_> = g.forms().collect();
    let p = g.program(&mut u).expect("generation is total");
    assert_eq!(p.check_target(target), Ok(()), "illegal for {} PTX {}:\n{p}", cfg.arch(), cfg.ptx);
    assert!(p.body().len() <= cfg.max_len && (p.body().len() == 1 || p.body().len() >= cfg.min_len), "length:\n{p}");
    for s in p.body() {
        assert!(forms.contains(&s.instr), "form {} is not among the config's forms:\n{p}", s.instr);
    }
    // Outputs: exactly the results nothing reads (the generator's documented rule).
    let k = p.inputs().len();
    let mut read = vec![false; p.body().len()];
    for r in p.body().iter().flat_map(|s| s.srcs()) {
        if let Some(j) = (r.0 as usize).checked_sub(k) {
            read[j] = true;
        }
    }
    let unread: Vec<_> = (0..p.body().len()).filter(|&j| !read[j]).map(|j| p.dst(j)).collect();
    assert_eq!(p.outputs(), unread.as_slice(), "outputs are not the unread results:\n{p}");
    let case = g.case(&mut u, &p).expect("case generation is total");
    assert_eq!(case.len(), k);
    for (v, t) in case.iter().zip(p.inputs()) {
        assert!(t.bits() == 64 || v >> t.bits() == 0, "input {v:#x} wider than {}:\n{p}", t.name());
    }
    ptx_fuzz::check_program_forms(&p);
    ptx_fuzz::check_kernel(&p, cfg.arch());
});
