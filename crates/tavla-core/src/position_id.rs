//! gnubg's Position ID: 14 Base64 characters encoding the checker layout from the side on roll.
//!
//! Bit layout (80 bits, packed least-significant bit first into 10 bytes): for the opponent,
//! then for the side on roll, for each slot 0..=24 (own points 1..=24, then the bar) as many `1`
//! bits as checkers and one `0`; then zeros up to 80 bits. The text is the standard Base64 of the
//! 10 bytes without the two `=` of padding.

use std::fmt;
use std::str::FromStr;

use crate::error::ParsePositionIdError;
use crate::position::{Board, Position};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// A gnubg Position ID: the 10-byte key of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionId([u8; 10]);

impl PositionId {
    /// The 10 key bytes.
    #[must_use]
    pub fn key(&self) -> [u8; 10] {
        self.0
    }

    /// The board encoded, without validation of the checker counts.
    fn decode(&self, input: &str) -> Result<Board, ParsePositionIdError> {
        let structure = |reason| ParsePositionIdError::Structure {
            input: input.to_string(),
            reason,
        };
        let mut board = Board::default();
        let mut slot = 0usize; // 0..50: opponent's 25 slots then the side on roll's
        let mut bit = 0usize;
        while slot < 50 {
            if bit >= 80 {
                return Err(structure("fewer than 50 slot separators"));
            }
            let set = self.0[bit / 8] >> (bit % 8) & 1 == 1;
            bit += 1;
            if set {
                let arr = if slot < 25 {
                    &mut board.opponent
                } else {
                    &mut board.on_roll
                };
                let n = &mut arr[slot % 25];
                if *n >= 15 {
                    return Err(structure("more than 15 checkers in one slot"));
                }
                *n += 1;
            } else {
                slot += 1;
            }
        }
        while bit < 80 {
            if self.0[bit / 8] >> (bit % 8) & 1 == 1 {
                return Err(structure("bits set after the 50th separator"));
            }
            bit += 1;
        }
        Ok(board)
    }

    /// The position this ID encodes.
    ///
    /// # Errors
    /// When the key is not a well-formed, legal board.
    pub fn to_position(&self) -> Result<Position, ParsePositionIdError> {
        let text = self.to_string();
        let board = self.decode(&text)?;
        Position::try_from(board).map_err(|source| ParsePositionIdError::Position {
            input: text,
            source,
        })
    }
}

impl From<Position> for PositionId {
    fn from(pos: Position) -> PositionId {
        let b = pos.to_board();
        let mut key = [0u8; 10];
        let mut bit = 0usize;
        for arr in [&b.opponent, &b.on_roll] {
            for &n in arr {
                for _ in 0..n {
                    key[bit / 8] |= 1 << (bit % 8);
                    bit += 1;
                }
                bit += 1;
            }
        }
        PositionId(key)
    }
}

impl fmt::Display for PositionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = [0u8; 14];
        let mut o = 0;
        for chunk in self.0.chunks(3) {
            let mut buf = [0u8; 3];
            buf[..chunk.len()].copy_from_slice(chunk);
            let v = u32::from(buf[0]) << 16 | u32::from(buf[1]) << 8 | u32::from(buf[2]);
            let chars = chunk.len() + 1;
            for k in 0..chars {
                out[o] = ALPHABET[(v >> (18 - 6 * k) & 63) as usize];
                o += 1;
            }
        }
        f.write_str(std::str::from_utf8(&out).expect("ASCII"))
    }
}

impl FromStr for PositionId {
    type Err = ParsePositionIdError;

    /// Reads the 14 characters (surrounding whitespace is trimmed). Only the encoding is checked
    /// here; [`PositionId::to_position`] checks the board.
    fn from_str(s: &str) -> Result<PositionId, ParsePositionIdError> {
        let t = s.trim();
        let lead = s.len() - s.trim_start().len();
        let n = t.chars().count();
        if n != 14 {
            return Err(ParsePositionIdError::Length {
                input: s.to_string(),
                len: n,
            });
        }
        let mut sextets = [0u8; 14];
        for (i, c) in t.bytes().enumerate() {
            sextets[i] = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => {
                    return Err(ParsePositionIdError::BadChar {
                        input: s.to_string(),
                        offset: lead + i,
                        found: c as char,
                    })
                }
            };
        }
        if sextets[13] & 0x0f != 0 {
            return Err(ParsePositionIdError::LastChar {
                input: s.to_string(),
                found: t.as_bytes()[13] as char,
            });
        }
        let mut key = [0u8; 10];
        let mut acc = 0u32;
        let mut nbits = 0;
        let mut k = 0;
        for &x in &sextets {
            acc = acc << 6 | u32::from(x);
            nbits += 6;
            if nbits >= 8 && k < 10 {
                nbits -= 8;
                key[k] = (acc >> nbits) as u8;
                k += 1;
            }
        }
        let id = PositionId(key);
        id.decode(s)?;
        Ok(id)
    }
}

impl Position {
    /// gnubg's Position ID of this position (from the side on roll).
    #[must_use]
    pub fn position_id(&self) -> PositionId {
        PositionId::from(*self)
    }

    /// The position of a gnubg Position ID, seen from the side on roll.
    ///
    /// # Errors
    /// When the text is not a Position ID of a legal position.
    pub fn from_position_id(s: &str) -> Result<Position, ParsePositionIdError> {
        let id: PositionId = s.parse()?;
        let board = id.decode(s)?;
        Position::try_from(board).map_err(|source| ParsePositionIdError::Position {
            input: s.to_string(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_and_empty_board() {
        assert_eq!(Position::START.position_id().to_string(), "4HPwATDgc/ABMA");
        assert_eq!(
            Position::START.position_id().key(),
            [0xe0, 0x73, 0xf0, 0x01, 0x30, 0xe0, 0x73, 0xf0, 0x01, 0x30]
        );
        assert_eq!(
            Position::from_position_id("4HPwATDgc/ABMA").unwrap(),
            Position::START
        );
        let empty = Position::from_position_id("AAAAAAAAAAAAAA").unwrap();
        assert_eq!(empty.off(), 15);
        assert_eq!(empty.opponent_off(), 15);
    }

    #[test]
    fn bad_ids_say_what_and_where() {
        assert!(matches!(
            Position::from_position_id("4HPwATDgc/ABM"),
            Err(ParsePositionIdError::Length { len: 13, .. })
        ));
        assert!(matches!(
            Position::from_position_id("4HPwATDgc/AB!A"),
            Err(ParsePositionIdError::BadChar {
                offset: 12,
                found: '!',
                ..
            })
        ));
        // Last character must be one of A, Q, g, w.
        assert!(matches!(
            Position::from_position_id("4HPwATDgc/ABMB"),
            Err(ParsePositionIdError::LastChar { found: 'B', .. })
        ));
        assert_eq!(
            Position::from_position_id("//////////////")
                .unwrap_err()
                .to_string(),
            "position ID \"//////////////\" ends in '/': its 80 bits leave the last character \
             A, Q, g or w"
        );
        // All 80 bits set: more than 15 checkers in a slot.
        assert!(Position::from_position_id("/////////////w").is_err());
    }
}
