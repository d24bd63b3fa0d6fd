//! The exec engine's pipe threads: a reader of its reply lines, a writer of its requests and a
//! keeper of its stderr's tail, each on a non-blocking pipe and waiting in `poll`, so that each
//! stops when the engine is killed even while a process outside the engine's group holds the
//! pipe open (docs/exec-protocol.md, "Faults").

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::process::ChildStderr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Mutex;
use std::time::Duration;

/// Bytes of the engine's stderr kept for fault messages.
pub(super) const STDERR_TAIL: usize = 4096;

/// How often a reader waiting on a silent pipe, or the writer on a full one, looks whether its
/// engine was killed ([`wait_ready`]).
pub(super) const PIPE_WAKE: Duration = Duration::from_millis(100);

/// What the reader and writer threads report to the batch loop, in the order it happened.
pub(super) enum Event {
    /// One reply line, without its `\n`.
    Line(String),
    /// A line grew past the limit (bytes) without ending; the reader stopped.
    TooLong(usize),
    /// Reading stdout failed (not UTF-8, say); the reader stopped.
    ReadError(std::io::Error),
    /// The engine closed its stdout.
    Eof,
    /// Writing a request failed (the engine closed its stdin or exited); the writer stopped.
    WriteError(std::io::Error),
}

/// Make reads and writes of `pipe` return `WouldBlock` instead of waiting, so that a thread
/// waits in [`wait_ready`] instead, where it sees `closed`; each thread below does it to its
/// own pipe first. A read that finds bytes (a write
/// that finds room) costs one system call as before; only an idle thread polls. Should it
/// fail, reads and writes block as they did.
fn set_nonblocking(pipe: &impl AsRawFd) {
    let fd = pipe.as_raw_fd();
    // SAFETY: fcntl on a descriptor `pipe` owns; F_GETFL/F_SETFL touch only its flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Wait until `pipe` is ready for `events` (`POLLIN`: bytes or end of file; `POLLOUT`: room,
/// or a reader gone) or has an error for the call to report; false when `closed` is set first.
fn wait_ready(pipe: &impl AsRawFd, events: libc::c_short, closed: &AtomicBool) -> bool {
    let mut p = libc::pollfd { fd: pipe.as_raw_fd(), events, revents: 0 };
    loop {
        if closed.load(Ordering::Relaxed) {
            return false;
        }
        // SAFETY: one pollfd, for a descriptor `pipe` owns for the whole call.
        let n = unsafe { libc::poll(&mut p, 1, PIPE_WAKE.as_millis() as libc::c_int) };
        if n > 0 || (n < 0 && std::io::Error::last_os_error().kind() != ErrorKind::Interrupted) {
            return true;
        }
    }
}

/// The reader thread: send each line of `stdout` as an [`Event::Line`], refusing one longer than
/// `limit` (`BufRead::lines` would buffer an endless line until memory runs out). Ends when
/// `closed` is set ([`Process::closed`]).
pub(super) fn read_replies<R: Read + AsRawFd>(stdout: R, limit: &AtomicUsize, tx: &SyncSender<Event>, closed: &AtomicBool) {
    set_nonblocking(&stdout);
    let mut r = BufReader::with_capacity(1 << 16, stdout);
    let mut line = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == ErrorKind::WouldBlock => match wait_ready(r.get_ref(), libc::POLLIN, closed) {
                true => continue,
                false => return,
            },
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.send(Event::ReadError(e));
                return;
            }
        };
        if buf.is_empty() {
            // A last line without its newline still counts, as with `BufRead::lines`.
            if !line.is_empty() {
                match String::from_utf8(std::mem::take(&mut line)) {
                    Ok(l) => {
                        let _ = tx.send(Event::Line(l));
                    }
                    Err(_) => {
                        let _ = tx.send(Event::ReadError(not_utf8()));
                        return;
                    }
                }
            }
            let _ = tx.send(Event::Eof);
            return;
        }
        let (used, ends) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let max = limit.load(Ordering::Relaxed);
        if line.len() + used - usize::from(ends) > max {
            let _ = tx.send(Event::TooLong(max));
            return;
        }
        line.extend_from_slice(&buf[..used - usize::from(ends)]);
        r.consume(used);
        if ends {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let event = match String::from_utf8(std::mem::take(&mut line)) {
                Ok(l) => Event::Line(l),
                Err(_) => Event::ReadError(not_utf8()),
            };
            let stop = matches!(event, Event::ReadError(_));
            if tx.send(event).is_err() || stop {
                return;
            }
        }
    }
}

fn not_utf8() -> std::io::Error {
    std::io::Error::new(ErrorKind::InvalidData, "stream did not contain valid UTF-8")
}

/// The writer thread: write each request to the engine's stdin. A write blocks while the engine
/// does not read; the batch loop times out meanwhile and kills the engine, which ends the
/// write (broken pipe, or `closed` where a process outside the group holds the pipe) and this
/// thread.
pub(super) fn write_requests<W: Write + AsRawFd>(mut stdin: W, requests: &Receiver<Vec<u8>>, tx: &SyncSender<Event>, closed: &AtomicBool) {
    set_nonblocking(&stdin);
    for request in requests {
        if let Err(e) = write_whole(&mut stdin, &request, closed) {
            let _ = tx.send(Event::WriteError(e));
            return;
        }
    }
}

/// Write all of `bytes` to the non-blocking `pipe` (`write_all` would give up at the first
/// `WouldBlock` without saying how much it wrote), waiting for room in [`wait_ready`].
fn write_whole<W: Write + AsRawFd>(pipe: &mut W, mut bytes: &[u8], closed: &AtomicBool) -> std::io::Result<()> {
    while !bytes.is_empty() {
        match pipe.write(bytes) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if !wait_ready(pipe, libc::POLLOUT, closed) {
                    return Err(std::io::Error::new(ErrorKind::BrokenPipe, "the engine was killed"));
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The stderr thread: keep the last [`STDERR_TAIL`] bytes of `err` in `tail` until its end of
/// file, or until `closed` is set ([`wait_ready`]).
pub(super) fn read_stderr(mut err: ChildStderr, tail: &Mutex<Vec<u8>>, closed: &AtomicBool) {
    set_nonblocking(&err);
    let mut buf = [0u8; 1024];
    loop {
        let n = match err.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::WouldBlock && wait_ready(&err, libc::POLLIN, closed) => continue,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
        t.extend_from_slice(&buf[..n]);
        let excess = t.len().saturating_sub(STDERR_TAIL);
        t.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::sync::mpsc::{self, RecvTimeoutError};
    use std::sync::Arc;

    /// Run `thread` (a pipe thread given `closed`) on its own, and say how it stood 300 ms in
    /// (still running: `Timeout`) and within 5 s of `closed` being set (ended: `Disconnected`).
    fn stops_once_closed(thread: impl FnOnce(&AtomicBool) + Send + 'static) -> (Result<(), RecvTimeoutError>, Result<(), RecvTimeoutError>) {
        let closed = Arc::new(AtomicBool::new(false));
        let (done_tx, done) = mpsc::channel::<()>();
        let flag = Arc::clone(&closed);
        std::thread::spawn(move || {
            let _done = done_tx;
            thread(&flag);
        });
        let waiting = done.recv_timeout(Duration::from_millis(300));
        closed.store(true, Ordering::Relaxed);
        (waiting, done.recv_timeout(Duration::from_secs(5)))
    }

    #[test]
    fn a_reader_held_by_a_process_outside_the_engine_stops_once_the_engine_is_killed() {
        // `sleep` stands for a daemon that kept the engine's stdout: no byte, no end of file.
        let mut holder = Command::new("sleep").arg("30").stdout(Stdio::piped()).spawn().unwrap();
        let stdout = holder.stdout.take().unwrap();
        let (tx, rx) = mpsc::sync_channel(16);
        let (waiting, stopped) = stops_once_closed(move |closed| read_replies(stdout, &AtomicUsize::new(1024), &tx, closed));
        let _ = holder.kill();
        let _ = holder.wait();
        assert_eq!(waiting, Err(RecvTimeoutError::Timeout), "the reader waits while the pipe is silent");
        assert_eq!(stopped, Err(RecvTimeoutError::Disconnected), "and ends once the engine is killed");
        assert!(rx.try_recv().is_err(), "with no event: the batch loop has gone on already");
    }

    #[test]
    fn a_writer_held_by_a_process_outside_the_engine_stops_once_the_engine_is_killed() {
        // `sleep` holds the engine's stdin and never reads it: the pipe fills and stays full.
        let mut holder = Command::new("sleep").arg("30").stdin(Stdio::piped()).spawn().unwrap();
        let stdin = holder.stdin.take().unwrap();
        let (tx, rx) = mpsc::sync_channel(16);
        let (requests, to_write) = mpsc::channel::<Vec<u8>>();
        // Two requests, so a pipe buffer larger than one (Linux: 64 KiB) is still full; the
        // sender is kept, as `Process` keeps it until it is dropped.
        requests.send(vec![b'x'; 1 << 20]).unwrap();
        requests.send(b"{}\n".to_vec()).unwrap();
        let (waiting, stopped) = stops_once_closed(move |closed| write_requests(stdin, &to_write, &tx, closed));
        let _ = holder.kill();
        let _ = holder.wait();
        assert_eq!(waiting, Err(RecvTimeoutError::Timeout), "the writer waits while the pipe is full");
        assert_eq!(stopped, Err(RecvTimeoutError::Disconnected), "and ends once the engine is killed");
        match rx.try_recv() {
            Ok(Event::WriteError(e)) => assert_eq!(e.kind(), ErrorKind::BrokenPipe, "{e}"),
            _ => panic!("the write ends as a broken pipe would"),
        }
        drop(requests);
    }

    #[test]
    fn a_large_request_goes_whole_through_a_pipe_that_fills() {
        // `cat` copies its stdin to its stdout: 4 MiB, 64 times a pipe's buffer, written while
        // read, with WouldBlock and partial writes on the way.
        let mut cat = Command::new("cat").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdin = cat.stdin.take().unwrap();
        let mut stdout = cat.stdout.take().unwrap();
        set_nonblocking(&stdin);
        let reader = std::thread::spawn(move || {
            let mut all = Vec::new();
            stdout.read_to_end(&mut all).map(|_| all)
        });
        let sent: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
        write_whole(&mut stdin, &sent, &AtomicBool::new(false)).unwrap();
        drop(stdin);
        let got = reader.join().unwrap().unwrap();
        let _ = cat.wait();
        assert!(got == sent, "{} bytes back of {}", got.len(), sent.len());
    }
}
