//! Prints the table (`list`) or evaluates one function (`NAME OPERANDS...`), as the CLI will.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("list") => print!("{}", mathlib::format_table()),
        Some(name) => {
            let ops: Vec<&str> = args[1..].iter().map(String::as_str).collect();
            match mathlib::evaluate(name, &ops, &mathlib::Build::default()) {
                Ok(e) => println!("{e}"),
                Err(e) => eprintln!("error: {e}"),
            }
        }
    }
}
