//! PTX text: the parsers never panic on arbitrary text, and whatever parses round-trips.
//! - the input as program text (`Program::parse`) and as program JSON (`Program::from_json`):
//!   a program that parses prints canonically, and that text and JSON parse back to it;
//! - the first word of every line as a mnemonic (`Instr::parse_default`);
//! - the input bytes as an arbitrary instruction (any fields, legal or not): printing and
//!   parsing agree with validation (`ptx_fuzz::check_instr_text`);
//! - the input bytes as a generated program written non-canonically (foreign register names,
//!   free spacing, comments, split output lines; JSON with partial `types`, fields in another
//!   order): both parse back to the program.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use ptx::program::Program;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Program::parse(&text) {
        Ok(p) => ptx_fuzz::check_program_forms(&p),
        Err(e) => {
            let _ = e.to_string();
        }
    }
    match Program::from_json(&text) {
        Ok(p) => ptx_fuzz::check_program_forms(&p),
        Err(e) => {
            let _ = e.to_string();
        }
    }
    for line in text.lines() {
        if let Some(word) = line.split_whitespace().next() {
            ptx_fuzz::check_mnemonic(word);
        }
    }
    if let Ok(i) = ptx_fuzz::any_instr(&mut Unstructured::new(data)) {
        ptx_fuzz::check_instr_text(&i);
    }
    // The bytes as a generated program, written non-canonically: it must parse back to itself.
    let (p, _) = ptx_fuzz::text_generator().from_bytes(data);
    let mut u = Unstructured::new(data);
    if let Ok(text) = ptx_fuzz::any_text(&mut u, &p) {
        match Program::parse(&text) {
            Ok(back) => assert_eq!(back, p, "text parses to another program:\n{text}\nwanted:\n{p}"),
            Err(e) => panic!("text of a valid program does not parse ({e}):\n{text}\nwanted:\n{p}"),
        }
    }
    if let Ok(json) = ptx_fuzz::any_json(&mut u, &p) {
        match Program::from_json(&json) {
            Ok(back) => assert_eq!(back, p, "JSON parses to another program:\n{json}\nwanted:\n{p}"),
            Err(e) => panic!("JSON of a valid program does not parse ({e}):\n{json}\nwanted:\n{p}"),
        }
    }
});
