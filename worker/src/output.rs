//! Output into a pipe whose reader has gone (`ptxfuzz ... | head`): ptxfuzz ends quietly.
//!
//! Rust ignores SIGPIPE, so a write to such a pipe fails with `BrokenPipe` instead of ending
//! the process: `println!` panics ("failed printing to stdout"), an explicit write returns an
//! error that reached the user as `error: Broken pipe`. A Unix filter whose reader has gone
//! ends silently (killed by SIGPIPE, which a shell reports as status 141); ptxfuzz does the same
//! for its own stdout and stderr, and for nothing else. SIGPIPE itself stays ignored: the exec
//! engine and the ptxas pool write to children's pipes, where a child that died is a fault to
//! report (`docs/exec-protocol.md`), never the silent end of a campaign. Whatever a campaign
//! keeps is on disk as it goes (findings, `stats.jsonl`, the spool), as for a `kill -9`.

use std::io::{self, Write};

/// The exit status when stdout or stderr has no reader left: 128 + SIGPIPE (13), what a shell
/// shows for a filter that SIGPIPE ended, so `set -o pipefail` scripts still see it.
pub const CLOSED: u8 = 141;

/// Make `println!`/`eprintln!` into a closed pipe end the process with [`CLOSED`] instead of
/// panicking; every other panic goes to the default hook as before.
pub fn end_quietly_when_closed() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied());
        if message.is_some_and(is_closed_output_panic) {
            std::process::exit(CLOSED.into());
        }
        default(info)
    }));
}

/// The standard library's message for a print macro that failed on a broken pipe
/// (`std::io::stdio::print_to`: "failed printing to stdout: Broken pipe (os error 32)").
fn is_closed_output_panic(message: &str) -> bool {
    let broken = io::Error::from_raw_os_error(EPIPE).to_string();
    (message.starts_with("failed printing to stdout") || message.starts_with("failed printing to stderr"))
        && message.ends_with(&broken)
}

/// EPIPE on every Unix ptxfuzz builds for (Linux, macOS, the BSDs).
const EPIPE: i32 = 32;

/// Stdout for a command that writes with `write!`: the same ending as a print macro's when the
/// reader has gone (exit with [`CLOSED`]), so the command needs no case of its own for it.
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

pub struct Stdout(io::StdoutLock<'static>);

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        ended_if_closed(self.0.write(buf))
    }
    fn flush(&mut self) -> io::Result<()> {
        ended_if_closed(self.0.flush())
    }
}

fn ended_if_closed<T>(r: io::Result<T>) -> io::Result<T> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(CLOSED.into()),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_print_macro_on_a_broken_pipe_counts_as_closed_output() {
        let broken = io::Error::from(io::ErrorKind::BrokenPipe);
        let epipe = io::Error::from_raw_os_error(EPIPE);
        assert_eq!(epipe.kind(), broken.kind(), "EPIPE is the broken pipe on this platform");
        assert!(is_closed_output_panic(&format!("failed printing to stdout: {epipe}")));
        assert!(is_closed_output_panic(&format!("failed printing to stderr: {epipe}")));
        // A full disk or any other failure stays a panic, with its message.
        let full = io::Error::from_raw_os_error(28);
        assert!(!is_closed_output_panic(&format!("failed printing to stdout: {full}")));
        assert!(!is_closed_output_panic(&format!("writing to the exec engine: {epipe}")));
    }
}
