//! Reading a protocol's lines to a bound: a peer that sends bytes without a line end (a
//! mistake, or a hostile client of a socket) must not make the reader hold them all.

use std::io::{self, BufRead, Read};

/// The longest line read whole; a longer one is skipped to its end and reported as such.
pub const MAX_LINE: usize = 64 * 1024;

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// The end of the input.
    End,
    /// A line, in the buffer (with its `\n` when it had one).
    Line,
    /// A line longer than [`MAX_LINE`], skipped up to and including its `\n`.
    TooLong,
}

/// Reads the next line of `input` into `buf` (cleared first), holding at most [`MAX_LINE`]
/// bytes of it.
pub(crate) fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<LineRead> {
    buf.clear();
    let read = input
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', buf)?;
    if read == 0 {
        return Ok(LineRead::End);
    }
    if buf.len() <= MAX_LINE || buf.ends_with(b"\n") {
        return Ok(LineRead::Line);
    }
    buf.clear();
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(LineRead::TooLong);
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(LineRead::TooLong);
            }
            None => {
                let n = available.len();
                input.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_skipped_and_the_next_one_read() {
        let mut text = vec![b'x'; MAX_LINE * 3];
        text.extend_from_slice(b"\nisready\nlast");
        let mut input = io::BufReader::with_capacity(1000, &text[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut input, &mut buf).unwrap(), LineRead::TooLong);
        assert!(buf.is_empty());
        assert_eq!(read_line(&mut input, &mut buf).unwrap(), LineRead::Line);
        assert_eq!(buf, b"isready\n");
        assert_eq!(read_line(&mut input, &mut buf).unwrap(), LineRead::Line);
        assert_eq!(buf, b"last");
        assert_eq!(read_line(&mut input, &mut buf).unwrap(), LineRead::End);
        // A line of exactly the bound is read whole.
        let mut text = vec![b'y'; MAX_LINE];
        text.push(b'\n');
        let mut input = &text[..];
        assert_eq!(read_line(&mut input, &mut buf).unwrap(), LineRead::Line);
        assert_eq!(buf.len(), MAX_LINE + 1);
    }
}
