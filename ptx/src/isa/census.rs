//! Tests against the ptxas 13.5 census (testdata/ptxas-13.5-census.txt): the table must agree
//! with ptxas on which forms exist and from which target, except where docs/isa-table.md says why.
//! (The census is a snapshot; these tests do not need ptxas.)

use super::{all_forms, Instr, IsaError, PtxVersion};

const CENSUS: &str = include_str!("testdata/ptxas-13.5-census.txt");

struct Entry {
    text: &'static str,
    inputs: usize,
    sm: u32,
    ptx: PtxVersion,
}

fn census() -> Vec<Entry> {
    CENSUS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (major, minor) = f[3].split_once('.').unwrap();
            Entry {
                text: f[0],
                inputs: f[1].parse().unwrap(),
                sm: f[2].parse().unwrap(),
                ptx: PtxVersion::new(major.parse().unwrap(), minor.parse().unwrap()),
            }
        })
        .collect()
}

/// Forms ptxas accepts that the table leaves out, because the spec does not define them.
const NOT_IN_TABLE: &[&str] = &[
    // 9.7.3.1 syntax is `testp.op.type`; ptxas takes a missing op and emits no test at all.
    "testp.f32",
    "testp.f64",
    // Table 29: .ftz is n/a for rcp.rnd.f64; ptxas takes it and emits the same SASS as without.
    "rcp.rn.ftz.f64",
    "rcp.rz.ftz.f64",
    "rcp.rm.ftz.f64",
    "rcp.rp.ftz.f64",
];

/// Where the requirement is stricter than ptxas: the PTX ISA text wins for these pre-sm_53 cases.
/// (form, reason)
const STRICTER_THAN_PTXAS: &[(&str, &str)] = &[
    // ptxas lets every target use f64 (demoted to f32); the text says sm_13.
    ("add.f64", "sm_13"),
    ("sub.f64", "sm_13"),
    ("mul.f64", "sm_13"),
    ("add.rn.f64", "sm_13"),
    ("add.rz.f64", "sm_13"),
    ("sub.rn.f64", "sm_13"),
    ("sub.rz.f64", "sm_13"),
    ("mul.rn.f64", "sm_13"),
    ("mul.rz.f64", "sm_13"),
    ("fma.rn.f64", "sm_13"),
    ("fma.rz.f64", "sm_13"),
    ("mad.rn.f64", "sm_13"),
    ("mad.rz.f64", "sm_13"),
    ("abs.f64", "sm_13"),
    ("neg.f64", "sm_13"),
    ("min.f64", "sm_13"),
    ("max.f64", "sm_13"),
    ("rsqrt.approx.f64", "sm_13"),
    ("rcp.rn.f64", "sm_13"),
    // ptxas takes PTX 1.0; 9.7.3.8 introduces explicit rounding in PTX 1.4.
    ("div.rn.f64", "sm_13, PTX 1.4"),
    ("div.rz.f64", "PTX 1.4"),
    ("div.rm.f64", "PTX 1.4"),
    ("div.rp.f64", "PTX 1.4"),
    // ptxas takes PTX 1.0; 9.7.3.15 has sqrt.rn.f64 from 1.4, general rounding from 2.0.
    ("sqrt.rn.f64", "sm_13, PTX 1.4"),
    ("sqrt.rz.f64", "PTX 2.0"),
    ("sqrt.rm.f64", "PTX 2.0"),
    ("sqrt.rp.f64", "PTX 2.0"),
    // ptxas takes PTX 1.4; 9.7.3.13 / 9.7.3.15 add general rounding modifiers in PTX 2.0.
    ("rcp.rz.f64", "PTX 2.0"),
    ("rcp.rm.f64", "PTX 2.0"),
    ("rcp.rp.f64", "PTX 2.0"),
    ("rcp.rn.f32", "PTX 2.0"),
    ("rcp.rz.f32", "PTX 2.0"),
    ("rcp.rm.f32", "PTX 2.0"),
    ("rcp.rp.f32", "PTX 2.0"),
    ("rcp.rn.ftz.f32", "PTX 2.0"),
    ("rcp.rz.ftz.f32", "PTX 2.0"),
    ("rcp.rm.ftz.f32", "PTX 2.0"),
    ("rcp.rp.ftz.f32", "PTX 2.0"),
    ("sqrt.rn.f32", "PTX 2.0"),
    ("sqrt.rz.f32", "PTX 2.0"),
    ("sqrt.rm.f32", "PTX 2.0"),
    ("sqrt.rp.f32", "PTX 2.0"),
    ("sqrt.rn.ftz.f32", "PTX 2.0"),
    ("sqrt.rz.ftz.f32", "PTX 2.0"),
    ("sqrt.rm.ftz.f32", "PTX 2.0"),
    ("sqrt.rp.ftz.f32", "PTX 2.0"),
];

#[test]
fn census_forms_are_legal_unless_listed() {
    for e in census() {
        let parsed = Instr::parse(e.text, e.inputs);
        if NOT_IN_TABLE.contains(&e.text) {
            assert!(matches!(parsed, Err(IsaError::Illegal { .. })), "{}: {parsed:?}", e.text);
        } else {
            assert!(parsed.is_ok(), "{} ({} inputs): {}", e.text, e.inputs, parsed.unwrap_err());
        }
    }
}

#[test]
fn every_table_form_is_accepted_by_ptxas() {
    let census: Vec<(String, usize)> = census().iter().map(|e| (e.text.to_string(), e.inputs)).collect();
    for f in all_forms() {
        assert!(
            census.contains(&(f.to_string(), usize::from(f.inputs))),
            "{f} ({} inputs) not in the census",
            f.inputs
        );
    }
}

#[test]
fn requirements_match_ptxas_except_where_the_spec_is_stricter() {
    let mut stricter = Vec::new();
    for e in census() {
        let Ok(i) = Instr::parse(e.text, e.inputs) else { continue };
        let r = i.requirement();
        assert!(
            r.sm >= e.sm && r.ptx >= e.ptx,
            "{}: table sm_{} {} below ptxas sm_{} {}",
            e.text,
            r.sm,
            r.ptx,
            e.sm,
            e.ptx
        );
        if (r.sm, r.ptx) != (e.sm, e.ptx) {
            // Only the old targets differ; from sm_53 on (f16 and newer) ptxas decides.
            assert!(e.sm < 53, "{}: table sm_{} {} vs ptxas sm_{} {}", e.text, r.sm, r.ptx, e.sm, e.ptx);
            stricter.push(e.text);
        }
    }
    let mut expected: Vec<&str> = STRICTER_THAN_PTXAS.iter().map(|&(f, _)| f).collect();
    stricter.sort_unstable();
    expected.sort_unstable();
    assert_eq!(stricter, expected);
}
