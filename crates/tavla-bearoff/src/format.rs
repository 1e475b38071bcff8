//! The database file format (version 1).
//!
//! A 48-byte header, then the payload; all numbers little-endian.
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0 | 8 | magic `TAVLABO\0` |
//! | 8 | 4 | format version, `1` |
//! | 12 | 1 | kind: 1 = one-sided, 2 = two-sided |
//! | 13 | 1 | points |
//! | 14 | 1 | checkers |
//! | 15 | 1 | flags (two-sided: bit 0 = cubeful equities present; others 0) |
//! | 16 | 8 | positions of one side, `C(points + checkers, checkers)` |
//! | 24 | 8 | payload length in bytes |
//! | 32 | 4 | CRC-32 (IEEE) of header bytes 0..32 followed by the payload |
//! | 36 | 12 | reserved, 0 |
//!
//! The payloads are described at [`OneSidedDb`](crate::OneSidedDb) and
//! [`TwoSidedDb`](crate::TwoSidedDb).

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use crate::error::{DbError, FormatError};
use crate::hash::PerfectHash;

/// The first eight bytes of every database file.
pub const MAGIC: [u8; 8] = *b"TAVLABO\0";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Length of the header in bytes.
pub const HEADER_LEN: usize = 48;

/// What a database file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Roll distributions of one side ([`OneSidedDb`](crate::OneSidedDb)).
    OneSided,
    /// Winning chances of the side on roll ([`TwoSidedDb`](crate::TwoSidedDb)).
    TwoSided,
}

impl Kind {
    fn to_byte(self) -> u8 {
        match self {
            Kind::OneSided => 1,
            Kind::TwoSided => 2,
        }
    }

    fn from_byte(b: u8) -> Result<Kind, FormatError> {
        match b {
            1 => Ok(Kind::OneSided),
            2 => Ok(Kind::TwoSided),
            found => Err(FormatError::UnknownKind { found }),
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::OneSided => "one-sided",
            Kind::TwoSided => "two-sided",
        })
    }
}

/// What a file's header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The kind of database.
    pub kind: Kind,
    /// Points covered.
    pub points: u8,
    /// Checkers per side.
    pub checkers: u8,
    /// Flags (two-sided databases: bit 0 = cubeful equities present).
    pub flags: u8,
    /// Positions of one side.
    pub positions: u64,
    /// Payload length in bytes.
    pub payload_len: u64,
}

impl Header {
    /// Reads and checks the header of a database file without reading the payload; this is
    /// how a caller can see what a file holds.
    ///
    /// # Errors
    /// [`DbError`] when the file cannot be read or its header is invalid.
    pub fn read(path: &Path) -> Result<Header, DbError> {
        use std::io::Read;
        let io = |source| DbError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut f = std::fs::File::open(path).map_err(io)?;
        let mut buf = Vec::with_capacity(HEADER_LEN);
        Read::by_ref(&mut f)
            .take(HEADER_LEN as u64)
            .read_to_end(&mut buf)
            .map_err(io)?;
        parse_header(&buf).map_err(|source| DbError::Format {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads a database file whole and checks it as loading it does: the header, the payload's
    /// length and the checksum (not the kind, which it returns).
    ///
    /// # Errors
    /// [`DbError`] when the file cannot be read or is not a whole, undamaged database file.
    pub fn read_verified(path: &Path) -> Result<Header, DbError> {
        let bytes = read_file(path)?;
        parse_header(&bytes)
            .and_then(|h| check_payload(&bytes, h).map(|_| h))
            .map_err(|source| DbError::Format {
                path: path.to_path_buf(),
                source,
            })
    }
}

fn header_bytes(h: &Header) -> [u8; HEADER_LEN] {
    let mut b = [0u8; HEADER_LEN];
    b[0..8].copy_from_slice(&MAGIC);
    b[8..12].copy_from_slice(&VERSION.to_le_bytes());
    b[12] = h.kind.to_byte();
    b[13] = h.points;
    b[14] = h.checkers;
    b[15] = h.flags;
    b[16..24].copy_from_slice(&h.positions.to_le_bytes());
    b[24..32].copy_from_slice(&h.payload_len.to_le_bytes());
    b
}

/// Writes a header (with the checksum of `payload`) and the payload.
pub(crate) fn write(
    w: &mut impl Write,
    kind: Kind,
    flags: u8,
    hash: &PerfectHash,
    payload: &[u8],
) -> io::Result<()> {
    let h = Header {
        kind,
        flags,
        points: hash.points() as u8,
        checkers: hash.checkers() as u8,
        positions: hash.count(),
        payload_len: payload.len() as u64,
    };
    let mut b = header_bytes(&h);
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[..32]);
    crc.update(payload);
    b[32..36].copy_from_slice(&crc.finalize().to_le_bytes());
    w.write_all(&b)?;
    w.write_all(payload)
}

/// Checks everything in the header that can be checked without the payload.
fn parse_header(bytes: &[u8]) -> Result<Header, FormatError> {
    if bytes.len() < HEADER_LEN {
        return Err(FormatError::TooShort {
            len: bytes.len(),
            header: HEADER_LEN,
        });
    }
    let mut magic = [0u8; 8];
    magic.copy_from_slice(&bytes[0..8]);
    if magic != MAGIC {
        return Err(FormatError::Magic { found: magic });
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
    let version = u32_at(8);
    if version != VERSION {
        return Err(FormatError::Version {
            found: version,
            supported: VERSION,
        });
    }
    let kind = Kind::from_byte(bytes[12])?;
    let flags = bytes[15];
    let known = match kind {
        Kind::OneSided => 0,
        Kind::TwoSided => 1,
    };
    if flags & !known != 0 {
        return Err(FormatError::Flags { found: flags });
    }
    let (points, checkers) = (bytes[13], bytes[14]);
    let hash = PerfectHash::new(usize::from(points), usize::from(checkers))?;
    let positions = u64_at(16);
    if positions != hash.count() {
        return Err(FormatError::Positions {
            found: positions,
            expected: hash.count(),
            points,
            checkers,
        });
    }
    Ok(Header {
        kind,
        flags,
        points,
        checkers,
        positions,
        payload_len: u64_at(24),
    })
}

/// Checks the header, its kind and the checksum; returns the header and the payload.
pub(crate) fn parse(bytes: &[u8], expected: Kind) -> Result<(Header, &[u8]), FormatError> {
    let h = parse_header(bytes)?;
    if h.kind != expected {
        return Err(FormatError::WrongKind {
            expected,
            found: h.kind,
        });
    }
    Ok((h, check_payload(bytes, h)?))
}

/// Checks the payload's length and the checksum of a file whose header is `h`; returns the
/// payload.
fn check_payload(bytes: &[u8], h: Header) -> Result<&[u8], FormatError> {
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != h.payload_len {
        return Err(FormatError::PayloadLength {
            found: payload.len() as u64,
            expected: h.payload_len,
        });
    }
    let expected_crc = u32::from_le_bytes(bytes[32..36].try_into().expect("4 bytes"));
    let mut crc = crc32fast::Hasher::new();
    crc.update(&bytes[..32]);
    crc.update(payload);
    let computed = crc.finalize();
    if computed != expected_crc {
        return Err(FormatError::Checksum {
            expected: expected_crc,
            computed,
        });
    }
    Ok(payload)
}

/// Reads a database file: its header, then no more than the payload the header announces
/// (and one byte, so that a longer file is seen to be one), so that a file that is not a
/// database (a device, a huge file) is not read whole.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, DbError> {
    use std::io::Read;
    let io = |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    (&mut f)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    // A header that cannot be read is reported by the parse of these bytes alone.
    if let Ok(h) = parse_header(&bytes) {
        f.take(h.payload_len.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// that a reader (or a second process building the same cache file) never sees half a file.
pub(crate) fn write_file_atomically(path: &Path, bytes: &[u8]) -> Result<(), DbError> {
    let io = |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Little-endian readers over a payload, with the position of a failure.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    /// The next `n` bytes, or a [`FormatError::PayloadLength`] naming how many were needed.
    pub fn take(&mut self, n: usize, total: u64) -> Result<&'a [u8], FormatError> {
        if self.bytes.len() < n {
            return Err(FormatError::PayloadLength {
                found: total,
                expected: (total - self.bytes.len() as u64).saturating_add(n as u64),
            });
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }
}

pub(crate) fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

pub(crate) fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let hash = PerfectHash::new(3, 2).unwrap();
        let mut v = Vec::new();
        write(&mut v, Kind::TwoSided, 0, &hash, &[1, 2, 3, 4]).unwrap();
        v
    }

    #[test]
    fn round_trip() {
        let v = sample();
        let (h, payload) = parse(&v, Kind::TwoSided).unwrap();
        assert_eq!((h.points, h.checkers, h.positions), (3, 2, 10));
        assert_eq!(payload, &[1, 2, 3, 4]);
    }

    #[test]
    fn every_damage_is_named() {
        let v = sample();
        assert!(matches!(
            parse(&v[..10], Kind::TwoSided),
            Err(FormatError::TooShort { len: 10, .. })
        ));
        let mut bad = v.clone();
        bad[0] = b'X';
        assert!(matches!(
            parse(&bad, Kind::TwoSided),
            Err(FormatError::Magic { .. })
        ));
        let mut bad = v.clone();
        bad[8] = 9;
        assert_eq!(
            parse(&bad, Kind::TwoSided).unwrap_err(),
            FormatError::Version {
                found: 9,
                supported: 1
            }
        );
        assert_eq!(
            parse(&v, Kind::OneSided).unwrap_err(),
            FormatError::WrongKind {
                expected: Kind::OneSided,
                found: Kind::TwoSided
            }
        );
        let mut bad = v.clone();
        bad[12] = 7;
        assert_eq!(
            parse(&bad, Kind::TwoSided).unwrap_err(),
            FormatError::UnknownKind { found: 7 }
        );
        let mut bad = v.clone();
        bad[15] = 0x80;
        assert_eq!(
            parse(&bad, Kind::TwoSided).unwrap_err(),
            FormatError::Flags { found: 0x80 }
        );
        let mut bad = v.clone();
        bad[16] = 11;
        assert!(matches!(
            parse(&bad, Kind::TwoSided),
            Err(FormatError::Positions {
                found: 11,
                expected: 10,
                ..
            })
        ));
        let mut bad = v.clone();
        bad[13] = 0;
        assert!(matches!(
            parse(&bad, Kind::TwoSided),
            Err(FormatError::Shape(_))
        ));
        assert!(matches!(
            parse(&v[..v.len() - 1], Kind::TwoSided),
            Err(FormatError::PayloadLength {
                found: 3,
                expected: 4
            })
        ));
        let mut bad = v.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(
            parse(&bad, Kind::TwoSided),
            Err(FormatError::Checksum { .. })
        ));
    }
}
