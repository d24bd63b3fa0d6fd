//! Reading files the user names, with a size cap: `/dev/zero`, a FIFO or a huge file given by
//! mistake must end in an error naming the file and the limit, not in memory exhaustion.

use std::fs::File;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

/// The cap of a repro.json, a program or a fingerprint: the largest ptxfuzz writes are a few
/// hundred KiB (a 20,000-instruction program), so 8 MiB is far past any real one.
pub const JSON_CAP: u64 = 8 << 20;
/// The cap of one corpus file (a reproducer, a program, or fuzz bytes, which are small).
pub const CORPUS_CAP: u64 = 8 << 20;
/// The longest line of a capture or a batch: a capture line is an instruction and up to four
/// hex words, well under 200 bytes.
pub const LINE_CAP: usize = 64 << 10;

/// Why a capped read failed.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {path}: {cause}")]
    Io { path: PathBuf, cause: std::io::Error },
    #[error("{path} does not exist; give the path of {what}")]
    Missing { path: PathBuf, what: &'static str },
    #[error("{path} is not a regular file ({kind}); give the path of a file")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{path} is larger than {limit} MiB, the most ptxfuzz reads as {what}; give the right file")]
    TooLarge { path: PathBuf, limit: u64, what: &'static str },
    #[error("{path} is not UTF-8 text (at byte {at}); give {what} as ptxfuzz writes it")]
    NotText { path: PathBuf, at: usize, what: &'static str },
}

/// Open `path` for reading, refusing anything but a regular file (a device or FIFO would
/// never end, or block). A path that does not exist is said to (a mistyped name is the usual
/// slip), with `what` to give instead, not as the OS's "No such file or directory".
pub fn open_regular(path: &Path, what: &'static str) -> Result<File, InputError> {
    open_checked(path, what, Takes::RegularFiles)
}

/// Open `path` for reading as a stream: as [`open_regular`], but a FIFO or a device is taken,
/// for a reader that bounds what it reads itself (a capture's lines, [`LINE_CAP`]): a capture
/// streamed through `<(zcat cases.txt.gz)` is a FIFO. A folder is still refused by name.
pub fn open_stream(path: &Path, what: &'static str) -> Result<File, InputError> {
    open_checked(path, what, Takes::Streams)
}

/// What an opener takes besides a regular file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    RegularFiles,
    /// FIFOs, devices and sockets too.
    Streams,
}

fn open_checked(path: &Path, what: &'static str, takes: Takes) -> Result<File, InputError> {
    let io = |cause| InputError::Io { path: path.to_path_buf(), cause };
    let meta = std::fs::metadata(path).map_err(|cause| match cause.kind() {
        std::io::ErrorKind::NotFound => InputError::Missing { path: path.to_path_buf(), what },
        _ => io(cause),
    })?;
    // A folder is the usual slip (the folder of a file given for the file): say which.
    if meta.is_dir() {
        return Err(InputError::NotRegular { path: path.to_path_buf(), kind: "a folder" });
    }
    if !meta.is_file() && takes == Takes::RegularFiles {
        return Err(InputError::NotRegular { path: path.to_path_buf(), kind: "a device, FIFO or socket" });
    }
    File::open(path).map_err(io)
}

/// The bytes of the regular file `path`, at most `cap` of them (`what` names the kind of
/// file in the error, e.g. "a reproducer").
pub fn read_bytes(path: &Path, cap: u64, what: &'static str) -> Result<Vec<u8>, InputError> {
    let file = open_regular(path, what)?;
    let mut bytes = Vec::new();
    // One byte past the cap tells a file of exactly `cap` bytes from a larger one (the size
    // in the metadata may change while reading, so the read itself is bounded).
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|cause| InputError::Io { path: path.to_path_buf(), cause })?;
    if bytes.len() as u64 > cap {
        return Err(InputError::TooLarge { path: path.to_path_buf(), limit: cap >> 20, what });
    }
    Ok(bytes)
}

/// As [`read_bytes`], as UTF-8 text without a leading byte-order mark (editors on Windows
/// write one; JSON parsers refuse it as "expected value at line 1 column 1").
pub fn read_text(path: &Path, cap: u64, what: &'static str) -> Result<String, InputError> {
    let bytes = read_bytes(path, cap, what)?;
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    match std::str::from_utf8(body) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => Err(InputError::NotText { path: path.to_path_buf(), at: e.valid_up_to(), what }),
    }
}

/// Read one line of `reader` into `line` (without its `\n` or `\r\n`), at most `cap` bytes:
/// `Ok(false)` at the end. A longer line is an `InvalidData` error, so a file with no newline
/// (`/dev/zero`, a binary) is refused instead of growing one line without end.
pub fn read_line_capped(reader: &mut impl BufRead, line: &mut String, cap: usize) -> std::io::Result<bool> {
    line.clear();
    let mut bytes = Vec::new();
    let n = reader.by_ref().take(cap as u64 + 1).read_until(b'\n', &mut bytes)?;
    if n == 0 {
        return Ok(false);
    }
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
    } else if bytes.len() > cap {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, format!("a line longer than {} KiB", cap >> 10)));
    }
    *line = String::from_utf8(bytes).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_or_folder_is_refused_by_kind_and_a_large_file_names_its_limit() {
        let e = read_text(Path::new("/dev/zero"), JSON_CAP, "a reproducer").unwrap_err().to_string();
        assert!(e.contains("/dev/zero is not a regular file (a device, FIFO or socket)"), "{e}");
        let dir = std::env::temp_dir().join(format!("ptxfuzz-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = read_text(&dir, JSON_CAP, "a reproducer").unwrap_err().to_string();
        assert!(e.contains("is not a regular file (a folder)"), "{e}");
        let big = dir.join("big.json");
        std::fs::write(&big, vec![b' '; (1 << 20) + 1]).unwrap();
        let e = read_text(&big, 1 << 20, "a reproducer").unwrap_err().to_string();
        assert!(e.contains("big.json is larger than 1 MiB, the most ptxfuzz reads as a reproducer"), "{e}");
        // A byte-order mark is dropped; exactly the cap is fine.
        std::fs::write(&big, b"\xef\xbb\xbf{}").unwrap();
        assert_eq!(read_text(&big, 5, "x").unwrap(), "{}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stream_takes_a_device_but_not_a_folder_or_a_missing_path() {
        assert!(open_stream(Path::new("/dev/zero"), "a capture").is_ok());
        let e = open_stream(&std::env::temp_dir(), "a capture").unwrap_err().to_string();
        assert!(e.ends_with("is not a regular file (a folder); give the path of a file"), "{e}");
        let e = open_stream(Path::new("/nonexistent/cases.txt"), "a capture").unwrap_err().to_string();
        assert_eq!(e, "/nonexistent/cases.txt does not exist; give the path of a capture");
    }

    #[test]
    fn a_missing_file_is_named_with_what_to_give() {
        let e = read_text(Path::new("/nonexistent/config.json"), JSON_CAP, "a generator config").unwrap_err().to_string();
        assert_eq!(e, "/nonexistent/config.json does not exist; give the path of a generator config");
    }

    #[test]
    fn lines_are_capped_and_lose_their_ends() {
        let mut r = std::io::Cursor::new(b"ab\r\ncd\nlonglonglong".to_vec());
        let mut line = String::new();
        assert!(read_line_capped(&mut r, &mut line, 8).unwrap());
        assert_eq!(line, "ab");
        assert!(read_line_capped(&mut r, &mut line, 8).unwrap());
        assert_eq!(line, "cd");
        let e = read_line_capped(&mut r, &mut line, 8).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        let mut r = std::io::Cursor::new(b"last".to_vec());
        assert!(read_line_capped(&mut r, &mut line, 8).unwrap() && line == "last");
        assert!(!read_line_capped(&mut r, &mut line, 8).unwrap());
    }
}
