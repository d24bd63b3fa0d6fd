//! The checks the fuzz targets share: program text and JSON round trips, kernel text, and the
//! interpreter's invariants on a run. Each panics with the program and case on a violation,
//! which is what libFuzzer reports as a crash.

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use ptx::gen::{GenConfig, Generator};
use ptx::interp::{self, Expectation};
use ptx::isa::{AbsMode, BoolOp, Clamp, CmpOp, Comparison, Conversion, Finite, Ftz, Instr, IntEnd, IntType, NanMode, Narrow, NarrowEnd, Opcode, Precision, RoundTo, Tf32Rounding, TestpOp, Type};
use ptx::kernel::{self, Mode};
use ptx::program::{Program, Reg, RegClass, ValType};
use ptx::Rounding;

/// The generator config of the `explore` target, also what a replay of its corpus must decode
/// with (`ptx::gen::from_bytes(file, &config)`): `fuzz/explore.json`.
pub const EXPLORE_CONFIG: &str = include_str!("../explore.json");

/// The `explore` generator, built once.
pub fn explore_generator() -> &'static Generator {
    static G: OnceLock<Generator> = OnceLock::new();
    G.get_or_init(|| {
        let cfg: GenConfig = serde_json::from_str(EXPLORE_CONFIG).expect("fuzz/explore.json is a GenConfig");
        Generator::new(cfg).expect("fuzz/explore.json generates programs")
    })
}

/// Any combination of an instruction's fields, legal or not (operand counts 0 to 4).
pub fn any_instr(u: &mut Unstructured) -> Result<Instr> {
    let op = *u.choose(&Opcode::ALL)?;
    let ty = *u.choose(&Type::ALL)?;
    let testp = if u.arbitrary()? { Some(*u.choose(&TestpOp::ALL)?) } else { None };
    let precision = match u.int_in_range(0u8..=6)? {
        0 => Precision::Default,
        1 => Precision::Approx,
        2 => Precision::Full,
        r => Precision::Rounded(Rounding::ALL[r as usize - 3]),
    };
    let ftz = if u.arbitrary()? { Ftz::Flush } else { Ftz::Preserve };
    let clamp = *u.choose(&[Clamp::None, Clamp::Sat, Clamp::Relu])?;
    let nan = if u.arbitrary()? { NanMode::Propagate } else { NanMode::Number };
    let abs = *u.choose(&[AbsMode::None, AbsMode::Abs, AbsMode::XorsignAbs])?;
    let inputs = u.int_in_range(0u8..=4)?;
    // A conversion's own fields, on any opcode: only a `cvt` may carry them.
    let conv = if op == Opcode::Cvt || u.ratio(1u8, 8)? {
        Some(Conversion {
            from: *u.choose(&Type::ALL)?,
            round_to: {
                let tf32 = RoundTo::Tf32(*u.choose(&Tf32Rounding::ALL)?);
                *u.choose(&[RoundTo::Format, RoundTo::Integer, tf32, RoundTo::Stochastic])?
            },
            finite: *u.choose(&[Finite::Keep, Finite::Saturate])?,
            int: match u.int_in_range(0u8..=3)? {
                0 => Some(IntEnd::Dest(*u.choose(&IntType::ALL)?)),
                1 => Some(IntEnd::Source(*u.choose(&IntType::ALL)?)),
                _ => None,
            },
            narrow: match u.int_in_range(0u8..=3)? {
                0 => Some(NarrowEnd::Dest(*u.choose(&Narrow::ALL)?)),
                1 => Some(NarrowEnd::Source(*u.choose(&Narrow::ALL)?)),
                _ => None,
            },
        })
    } else {
        None
    };
    // A comparison's own fields, on any opcode: only a `setp` or `set` may carry them.
    let cmp = if matches!(op, Opcode::Setp | Opcode::Set) || u.ratio(1u8, 8)? {
        let combine = if u.arbitrary()? { Some(*u.choose(&BoolOp::ALL)?) } else { None };
        let int = if u.ratio(1u8, 4)? { Some(*u.choose(&IntType::ALL)?) } else { None };
        Some(Comparison { op: *u.choose(&CmpOp::ALL)?, combine, from: *u.choose(&Type::ALL)?, int })
    } else {
        None
    };
    // An integer `selp`'s type, on any opcode: only a `selp` may carry it.
    let selp_int = if (op == Opcode::Selp && u.arbitrary()?) || u.ratio(1u8, 16)? { Some(*u.choose(&IntType::ALL)?) } else { None };
    // A mixed-precision form's half type, on any opcode: only add, sub or fma may carry it.
    let atype = if (matches!(op, Opcode::Add | Opcode::Sub | Opcode::Fma) && u.ratio(1u8, 4)?) || u.ratio(1u8, 16)? {
        Some(*u.choose(&Type::ALL)?)
    } else {
        None
    };
    Ok(Instr { op, testp, precision, ftz, clamp, nan, abs, ty, inputs, conv, cmp, selp_int, atype })
}

/// Printing and parsing agree with validation: a legal form prints as text that parses back to
/// it; text that parses is a legal form that prints as that text.
pub fn check_instr_text(i: &Instr) {
    let text = i.to_string();
    let parsed = Instr::parse(&text, i.inputs as usize);
    match i.validate() {
        Ok(()) => assert_eq!(parsed.as_ref(), Ok(i), "legal form {i:?} prints as `{text}`, which does not parse back"),
        Err(e) => {
            let _ = e.to_string();
            if let Ok(j) = parsed {
                // Display may merge illegal field combinations; what it parses to must be legal.
                assert_eq!(j.validate(), Ok(()), "`{text}` parses to an illegal form {j:?}");
                assert_eq!(j.to_string(), text, "`{text}` parses to {j:?}, which prints differently");
            }
        }
    }
}

/// A mnemonic from arbitrary text: never panics, and one that parses round-trips.
pub fn check_mnemonic(m: &str) {
    let check = |parsed: std::result::Result<Instr, ptx::isa::IsaError>, inputs: Option<usize>| match parsed {
        Ok(i) => {
            assert_eq!(i.validate(), Ok(()), "`{m}` parsed to an illegal form {i:?}");
            if let Some(n) = inputs {
                assert_eq!(i.inputs as usize, n, "`{m}` parsed for {n} inputs to {i:?}");
            }
            let text = i.to_string();
            assert_eq!(Instr::parse(&text, i.inputs as usize), Ok(i), "`{m}` -> {i:?} prints `{text}`, no round trip");
        }
        Err(e) => {
            let _ = e.to_string();
        }
    };
    check(Instr::parse_default(m), None);
    for n in [0, 1, 2, 3, 4, 300] {
        check(Instr::parse(m, n), Some(n));
    }
}

/// The text form and the JSON form of a valid program both round-trip exactly, and the program
/// re-validates from its parts.
pub fn check_program_forms(p: &Program) {
    let again = Program::new(p.inputs().to_vec(), p.body().to_vec(), p.outputs().to_vec());
    assert_eq!(again.as_ref(), Ok(p), "a program fails validation from its own parts:\n{p}");
    let text = p.to_string();
    let back = Program::parse(&text).unwrap_or_else(|e| panic!("canonical text does not parse ({e}):\n{text}"));
    assert_eq!(&back, p, "canonical text parses to another program:\n{text}");
    assert_eq!(back.to_string(), text, "canonical text is not a fixed point:\n{text}");
    let json = p.to_json();
    let back = Program::from_json(&json).unwrap_or_else(|e| panic!("canonical JSON does not parse ({e}):\n{json}"));
    assert_eq!(&back, p, "canonical JSON parses to another program:\n{json}");
    assert_eq!(back.to_json(), json, "canonical JSON is not a fixed point:\n{json}");
}

/// The generator of `text_roundtrip`'s programs: every form, sm_100 (f32x2) with PTX ISA 8.7.
pub fn text_generator() -> &'static Generator {
    static G: OnceLock<Generator> = OnceLock::new();
    G.get_or_init(|| {
        let cfg = GenConfig { sm: 100, approximate: true, contraction: true, ..GenConfig::default() };
        Generator::new(cfg).expect("the default forms exist on sm_100")
    })
}

/// Register names for `p` chosen by the input: canonical, or foreign identifiers of several
/// shapes (PTX ISA 4.4), none of which is a canonical name, all distinct. A packed setp's
/// predicate pair is named as two (`p|q`, 9.7.7.2): `%x3|%x3q`.
fn any_names(u: &mut Unstructured, p: &Program) -> Result<Vec<String>> {
    (0..p.reg_count())
        .map(|i| {
            let name = p.name(Reg(i as u16));
            let base = match u.int_in_range(0u8..=5)? {
                0 => return Ok(name.to_string()),
                1 => format!("%x{i}"),
                2 => format!("v{i}"),
                3 => format!("$t{i}_"),
                4 => format!("_{i}"),
                _ => format!("{}{i}_", name.class.prefix()),
            };
            Ok(if name.class == RegClass::PredPair { format!("{base}|{base}q") } else { base })
        })
        .collect()
}

/// Some whitespace (possibly none).
fn space(u: &mut Unstructured) -> Result<&'static str> {
    Ok(*u.choose(&["", " ", "  ", "\t", " \t "])?)
}

/// Instruction `j` of `p` with `names`, spelled with the freedom the text form allows: any
/// whitespace around the operands, `;` optional, a trailing comment in the text form (a JSON
/// body entry is one instruction, not a line, so it has none).
fn any_stmt(u: &mut Unstructured, p: &Program, names: &[String], j: usize, comment: bool) -> Result<String> {
    let s = &p.body()[j];
    let mut line = format!("{}{}{}", space(u)?, s.instr, if u.arbitrary()? { "\t" } else { " " });
    let dst = p.dst(j).0 as usize;
    for (k, r) in std::iter::once(dst).chain(s.srcs().iter().map(|r| r.0 as usize)).enumerate() {
        if k > 0 {
            line += space(u)?;
            line.push(',');
            line += space(u)?;
        }
        line += &names[r];
    }
    line += space(u)?;
    if u.arbitrary()? {
        line.push(';');
    }
    if comment && u.arbitrary()? {
        line += " // a comment, with; punctuation";
    }
    Ok(line)
}

/// `p` as text that is not canonical but means `p`: foreign register names, free spacing,
/// blank and comment lines, outputs split over several `// outputs:` lines.
pub fn any_text(u: &mut Unstructured, p: &Program) -> Result<String> {
    let names = any_names(u, p)?;
    let mut t = String::new();
    if u.arbitrary()? {
        t += "// a program\n\n";
    }
    t += if u.arbitrary()? { "//inputs:" } else { "// inputs: " };
    for (i, ty) in p.inputs().iter().enumerate() {
        if i > 0 {
            t.push(',');
            t += space(u)?;
        }
        t += &format!("{}:{}", names[i], ty.name());
    }
    t.push('\n');
    for j in 0..p.body().len() {
        t += &any_stmt(u, p, &names, j, true)?;
        t.push('\n');
        if u.ratio(1u8, 8)? {
            t += if u.arbitrary()? { "\n" } else { "   // between\n" };
        }
    }
    let outs: Vec<&str> = p.outputs().iter().map(|r| names[r.0 as usize].as_str()).collect();
    let split = u.int_in_range(0..=outs.len())?;
    for part in [&outs[..split], &outs[split..]] {
        if !part.is_empty() {
            t += &format!("// outputs: {}\n", part.join(", "));
        }
    }
    Ok(t)
}

/// `p` as JSON that is not canonical but means `p`: foreign names, `types` holding the inputs
/// and some of the results, fields in any order.
pub fn any_json(u: &mut Unstructured, p: &Program) -> Result<String> {
    let names = any_names(u, p)?;
    let k = p.inputs().len();
    let mut types = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if i < k || u.arbitrary()? {
            let ty = p.reg_type(Reg(i as u16)).name();
            types.push(format!("{}:{}", json_str(name), json_str(ty)));
        }
    }
    let list = |v: Vec<String>| format!("[{}]", v.join(", "));
    let inputs = list(names[..k].iter().map(|n| json_str(n)).collect());
    let body = list(
        (0..p.body().len()).map(|j| any_stmt(u, p, &names, j, false).map(|s| json_str(&s))).collect::<Result<_>>()?,
    );
    let outputs = list(p.outputs().iter().map(|r| json_str(&names[r.0 as usize])).collect());
    let mut fields = [
        format!("\"types\": {{{}}}", types.join(",")),
        format!("\"inputs\": {inputs}"),
        format!("\"body\":{body}"),
        format!("\"outputs\" :{outputs}"),
    ];
    if u.arbitrary()? {
        fields.reverse();
    }
    Ok(format!("{{ {} }}", fields.join(",\n")))
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// The kernel for `sm` (which must run `p`): the right `.version`, a `.reg` declaration covering
/// every program register with its PTX type, and instruction lines that parse back, with the
/// program's inputs and outputs, to `p` itself.
pub fn check_kernel(p: &Program, arch: impl Into<ptx::isa::Arch>) {
    let arch = arch.into();
    let m = kernel::module(&[p], arch, Mode::Trace).unwrap_or_else(|e| panic!("no kernel for {arch} ({e}):\n{p}"));
    let floor = kernel::min_ptx_for_arch(arch).expect("sm is a known target");
    let version = floor.max(p.requirement().1);
    assert!(m.starts_with(&format!(".version {version}\n.target {arch}\n")), "kernel header:\n{m}");
    for i in 0..p.reg_count() {
        let class = p.reg_type(Reg(i as u16)).class();
        let decl = format!("\t.reg {} {}<{}>;\n", class.ptx_type(), class.prefix(), p.reg_count());
        assert!(m.contains(&decl), "kernel lacks `{}` for {}:\n{m}", decl.trim(), p.name(Reg(i as u16)));
    }
    // The body sits between the last input load and the first store sequence; kernel plumbing
    // uses only `%k_` registers, which no program register name can be.
    let lines: Vec<&str> = m.lines().map(str::trim).collect();
    // Every program has an input: each instruction reads one, and results are defined once.
    let start = lines.iter().rposition(|l| l.starts_with("ld.global.")).expect("an input load") + 1;
    let body: Vec<&str> = lines[start..].iter().copied().take_while(|l| !l.contains("%k_")).collect();
    let mut text = String::from("// inputs: ");
    let inputs: Vec<String> =
        p.inputs().iter().enumerate().map(|(i, t)| format!("{}:{}", p.name(Reg(i as u16)), t.name())).collect();
    text += &inputs.join(", ");
    text.push('\n');
    for l in &body {
        text += l;
        text.push('\n');
    }
    let outputs: Vec<String> = p.outputs().iter().map(|&r| p.name(r).to_string()).collect();
    text += &format!("// outputs: {}\n", outputs.join(", "));
    let back =
        Program::parse(&text).unwrap_or_else(|e| panic!("kernel body does not parse ({e}):\n{text}\nkernel:\n{m}"));
    assert_eq!(&back, p, "kernel body is another program:\n{text}\nkernel:\n{m}");
}

/// A register value fits the destination's width.
fn fits(e: &Expectation, bits: u64) -> bool {
    e.width() >= 64 || bits >> e.width() == 0
}

/// Run `p` on `case` and check the interpreter's invariants:
/// - the run succeeds (every generated form is modelled) and traced and untraced runs agree;
/// - every expectation accepts its own primary bits, which fit the destination register;
/// - each output is its defining instruction's expectation (inputs read back unchanged);
/// - batch evaluation (`interp::Kernel`) gives every instruction's primary, on the operands
///   the run gave it (the primaries of earlier instructions).
pub fn check_run(p: &Program, case: &[u64]) {
    let show = || format!("program:\n{p}case: {case:#x?}");
    let run = p.trace(case).unwrap_or_else(|e| panic!("run failed: {e}\n{}", show()));
    let outputs = p.run(case).unwrap_or_else(|e| panic!("untraced run failed: {e}\n{}", show()));
    assert_eq!(outputs, run.outputs, "run and trace disagree\n{}", show());
    assert_eq!(run.intermediates.len(), p.body().len());
    for (j, e) in run.intermediates.iter().enumerate() {
        let bits = e.primary_bits();
        assert!(fits(e, bits), "instruction {j}: primary {bits:#x} wider than {} bits\n{}", e.width(), show());
        assert!(e.accepts(bits), "instruction {j}: {e} rejects its own primary {bits:#x}\n{}", show());
        // The destination register's width: 1 for a predicate, an integer's register (a
        // `cvt` to `.s32` writes 32 bits whatever its float type).
        let want = ValType::of_result(&p.body()[j].instr).bits();
        assert_eq!(e.width(), want, "instruction {j}: result width\n{}", show());
    }
    for (o, &r) in run.outputs.iter().zip(p.outputs()) {
        match p.definition(r) {
            Some(j) => {
                assert_eq!(o, &run.intermediates[j], "output {} is not its instruction's result\n{}", p.name(r), show())
            }
            None => assert!(o.is_primary(case[r.0 as usize]), "input output {} not read back\n{}", p.name(r), show()),
        }
    }
    let mut values: Vec<u64> = case.to_vec();
    values.extend(run.intermediates.iter().map(Expectation::primary_bits));
    for (j, s) in p.body().iter().enumerate() {
        let mut ops = [0u64; 3];
        for (o, r) in ops.iter_mut().zip(s.srcs()) {
            *o = values[r.0 as usize];
        }
        let single = interp::eval(&s.instr, &ops[..s.srcs().len()])
            .unwrap_or_else(|e| panic!("instruction {j}: eval failed: {e}\n{}", show()));
        let k = interp::Kernel::new(&s.instr)
            .unwrap_or_else(|e| panic!("instruction {j}: no batch kernel: {e}\n{}", show()));
        let mut out = [0u64];
        k.run(&[ops], &mut out);
        assert_eq!(
            out[0],
            single.primary_bits(),
            "instruction {j} (`{}`): batch primary differs from eval's {single}\n{}",
            s.instr,
            show()
        );
        // Without contraction the run's result is exactly eval's; contraction only adds.
        if !p.has_contractible() {
            assert_eq!(run.intermediates[j], single, "instruction {j}: run differs from eval\n{}", show());
        } else {
            assert_eq!(run.intermediates[j].primary_bits(), single.primary_bits(), "instruction {j}\n{}", show());
        }
    }
}
