//! Move text: a syntax-only [`PlayText`] resolved against a position, and the three writers
//! (gnubg's pretty form, the plain form, UBGI's written-out form).
//!
//! Points are numbered from the mover's side: 1 is his last point before bearing off, 24 his
//! back point, 25 (`bar`) the bar as a source and 0 (`off`) off as a destination.

use std::fmt;
use std::str::FromStr;

use tavla_core::{CheckerMove, Play, PlayList, Position, Roll};

use crate::error::Problem;

/// The bar as a source point.
const BAR: u8 = 25;
/// Off as a destination point.
const OFF: u8 = 0;

/// One written point of a move: 0 = off, 1..=24, 25 = bar, with a `*` after it or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextPoint {
    /// The point: 0 off, 1..=24, 25 bar.
    pub point: u8,
    /// Whether it was marked as a hit (`*`).
    pub hit: bool,
}

/// One written move: a checker path `from/../to` of two or more points, made by `count`
/// checkers (`(n)`, 1 when not written).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TextMove {
    /// The points of the path, at least two, strictly decreasing; only the last may be off and
    /// only the first may be the bar.
    pub path: Vec<TextPoint>,
    /// How many checkers make this move.
    pub count: u8,
}

impl TextMove {
    /// One checker's step `from/to` (`*` after `to` when `hit`), made once.
    #[must_use]
    pub fn step(from: u8, to: u8, hit: bool) -> TextMove {
        TextMove {
            path: vec![
                TextPoint {
                    point: from,
                    hit: false,
                },
                TextPoint { point: to, hit },
            ],
            count: 1,
        }
    }
}

/// Move text as written, checked for syntax only: `8/5 6/5`, `bar/22*`, `6/off(2)`,
/// `24/18*/14`, `24/14`, `13/7(2) 8/2(2)`, `42: 8/4 6/4`, `pass`.
///
/// Accepted spellings (as gnubg's `ParseMove` and the UBGI drafts): `/` or `-` between points;
/// `bar`/`b`/`25` for the bar and `off`/`o`/`0` for off, in any case; `*` after a point; `,`
/// and whitespace between moves; `(n)` after a move for n checkers; chains
/// `24/23/22`; UBGI's bare pairs `24 18 13 10`; an optional roll prefix `42:` or `4-2:`; and
/// for no move the empty text or `pass`, `no play`, `no move`, `fans`, `cannot move`.
///
/// Check it against a position with [`PlayText::resolve`]. `Display` writes the text back in a
/// normal form (`bar`/`off` words, `/`, `*`, `(n)`), or `pass`.
///
/// ```
/// use tavla_notation::{format_pretty, PlayText};
/// use tavla_core::{Position, Roll};
///
/// let text: PlayText = "6/5 8/5".parse()?;
/// let play = text.resolve(&Position::START, Roll::from_values(3, 1))?;
/// assert_eq!(format_pretty(&Position::START, &play), "8/5 6/5");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct PlayText {
    /// The roll written before the moves, if any.
    pub roll: Option<Roll>,
    /// The moves, in written order; empty for no move.
    pub moves: Vec<TextMove>,
}

/// Text that is not move notation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid move text at offset {offset}: {problem}")]
pub struct ParsePlayTextError {
    /// Byte offset in the text where the problem was found.
    pub offset: usize,
    /// What is wrong.
    pub problem: Problem,
}

/// Move text that does not describe a legal play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolvePlayError {
    /// No legal play for the roll gives the position the text leads to.
    #[error("{text} is not a legal play for {roll}: {reason}")]
    Illegal {
        /// The text, in normal form.
        text: String,
        /// The roll.
        roll: Roll,
        /// Why: the first written move that cannot be made after the ones before it, or the
        /// rule of the dice that the whole breaks.
        reason: String,
    },
    /// The text fits several legal plays (a combined move through two different points, each
    /// with a blot).
    #[error("move {text} is ambiguous for roll {roll}: it can be {}", .candidates.join(" or "))]
    Ambiguous {
        /// The text, in normal form.
        text: String,
        /// The roll.
        roll: Roll,
        /// The legal plays it fits, in gnubg's pretty form.
        candidates: Vec<String>,
    },
    /// The text names a roll other than the one given.
    #[error("move text is for roll {written}, not {given}")]
    RollMismatch {
        /// The roll in the text.
        written: Roll,
        /// The roll given.
        given: Roll,
    },
}

/// The most checker moves the text may describe once chains and `(n)` are written out.
const MAX_PAIRS: usize = 4;

fn perr(offset: usize, problem: Problem) -> ParsePlayTextError {
    ParsePlayTextError { offset, problem }
}

/// Reads a leading roll `dd:` or `d-d:`; returns it and the rest of the text with its offset.
fn split_roll(s: &str) -> Result<(Option<Roll>, &str, usize), ParsePlayTextError> {
    let t = s.trim_start();
    let lead = s.len() - t.len();
    let b = t.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let end = if digit(0) && digit(1) && b.get(2) == Some(&b':') {
        Some((3, [0, 1]))
    } else if digit(0) && b.get(1) == Some(&b'-') && digit(2) && b.get(3) == Some(&b':') {
        Some((4, [0, 2]))
    } else {
        None
    };
    let Some((end, [i, j])) = end else {
        return Ok((None, t, lead));
    };
    let mut dice = [tavla_core::Die::new(1); 2];
    for (slot, k) in dice.iter_mut().zip([i, j]) {
        let v = b[k] - b'0';
        *slot = tavla_core::Die::try_from(v).map_err(|_| {
            perr(
                lead + k,
                Problem::OutOfRange {
                    value: i64::from(v),
                    expected: "a die 1..=6",
                },
            )
        })?;
    }
    Ok((Some(Roll::new(dice[0], dice[1])), &t[end..], lead + end))
}

/// Lexical items of move text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lex {
    Point(u8),
    Slash,
    Star,
    Count(u8),
    Space,
}

fn lex(text: &str, base: usize) -> Result<Vec<(usize, Lex)>, ParsePlayTextError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let at = base + i;
        match c {
            b'/' | b'-' => {
                out.push((at, Lex::Slash));
                i += 1;
            }
            b'*' => {
                out.push((at, Lex::Star));
                i += 1;
            }
            b',' | b' ' | b'\t' | b'\n' | b'\r' => {
                out.push((at, Lex::Space));
                i += 1;
            }
            b'0'..=b'9' => {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let value = crate::error::parse_uint(&text[start..i], 25, "a point 0..=25")
                    .map_err(|p| perr(at, p))?;
                out.push((at, Lex::Point(value as u8)));
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                let start = i;
                while i < b.len() && b[i].is_ascii_alphabetic() {
                    i += 1;
                }
                let word = text[start..i].to_ascii_lowercase();
                let point = match word.as_str() {
                    "bar" | "b" => BAR,
                    "off" | "o" => OFF,
                    _ => {
                        return Err(perr(
                            at,
                            Problem::UnexpectedChar {
                                found: char::from(c),
                                expected: "a point, bar or off",
                            },
                        ))
                    }
                };
                out.push((at, Lex::Point(point)));
            }
            b'(' => {
                let close = text[i..].find(')').map(|k| i + k);
                let Some(close) = close else {
                    return Err(perr(at, Problem::Missing { expected: "')'" }));
                };
                let n = crate::error::parse_uint(&text[i + 1..close], 4, "a count 1..=4")
                    .map_err(|p| perr(at + 1, p))?;
                if n == 0 {
                    return Err(perr(
                        at + 1,
                        Problem::OutOfRange {
                            value: 0,
                            expected: "a count 1..=4",
                        },
                    ));
                }
                out.push((at, Lex::Count(n as u8)));
                i = close + 1;
            }
            _ => {
                let found = text[i..].chars().next().unwrap_or('\0');
                return Err(perr(
                    at,
                    Problem::UnexpectedChar {
                        found,
                        expected: "a point, '/', '*', '(n)' or a space",
                    },
                ));
            }
        }
    }
    Ok(out)
}

/// A move being read: its path, and the offset of its first point.
struct Pending {
    path: Vec<TextPoint>,
    count: u8,
    at: usize,
    /// A lone point with nothing after it: UBGI's `24 18` pairs.
    bare: bool,
}

impl FromStr for PlayText {
    type Err = ParsePlayTextError;

    fn from_str(s: &str) -> Result<PlayText, ParsePlayTextError> {
        let (roll, rest, base) = split_roll(s)?;
        let words = rest.trim().to_ascii_lowercase();
        let words: Vec<&str> = words.split_whitespace().collect();
        if matches!(
            words.as_slice(),
            [] | ["pass"] | ["no", "play"] | ["no", "move"] | ["fans"] | ["cannot", "move"]
        ) {
            return Ok(PlayText {
                roll,
                moves: Vec::new(),
            });
        }
        // Step 1. Group the lexical items into paths.
        let items = lex(rest, base)?;
        let mut paths: Vec<Pending> = Vec::new();
        let mut cur: Option<Pending> = None;
        let mut after_slash = false;
        let end = base + rest.len();
        for &(at, item) in &items {
            match item {
                Lex::Point(point) => {
                    let tp = TextPoint { point, hit: false };
                    match cur.as_mut() {
                        Some(p) if after_slash => p.path.push(tp),
                        Some(_) => {
                            return Err(perr(
                                at,
                                Problem::UnexpectedChar {
                                    found: rest[at - base..].chars().next().unwrap_or('\0'),
                                    expected: "'/' between points",
                                },
                            ))
                        }
                        None => {
                            cur = Some(Pending {
                                path: vec![tp],
                                count: 1,
                                at,
                                bare: true,
                            })
                        }
                    }
                    after_slash = false;
                }
                Lex::Slash => {
                    match cur.as_mut() {
                        Some(p) if !after_slash && p.count == 1 => p.bare = false,
                        _ => {
                            return Err(perr(
                                at,
                                Problem::UnexpectedChar {
                                    found: '/',
                                    expected: "a point before '/'",
                                },
                            ))
                        }
                    }
                    after_slash = true;
                }
                Lex::Star => match cur.as_mut() {
                    Some(p) if !after_slash => {
                        if let Some(last) = p.path.last_mut() {
                            last.hit = true;
                        }
                        p.bare = false;
                    }
                    _ => {
                        return Err(perr(
                            at,
                            Problem::UnexpectedChar {
                                found: '*',
                                expected: "'*' after a point",
                            },
                        ))
                    }
                },
                Lex::Count(n) => match cur.as_mut() {
                    Some(p) if !after_slash && p.path.len() >= 2 && p.count == 1 => {
                        p.count = n;
                        p.bare = false;
                    }
                    _ => {
                        return Err(perr(
                            at,
                            Problem::UnexpectedChar {
                                found: '(',
                                expected: "'(n)' after a move",
                            },
                        ))
                    }
                },
                Lex::Space => {
                    if after_slash {
                        // `24/ 18` is tolerated: the path goes on.
                        continue;
                    }
                    if let Some(p) = cur.take() {
                        paths.push(p);
                    }
                }
            }
        }
        if after_slash {
            return Err(perr(
                end,
                Problem::Missing {
                    expected: "a point after '/'",
                },
            ));
        }
        if let Some(p) = cur.take() {
            paths.push(p);
        }
        // Step 2. Pair UBGI's bare points: `24 18` is `24/18`.
        let mut merged: Vec<Pending> = Vec::new();
        let mut iter = paths.into_iter().peekable();
        while let Some(mut p) = iter.next() {
            if p.path.len() == 1 {
                match iter.next() {
                    Some(q) if p.bare && q.path.len() == 1 => {
                        p.path.extend(q.path);
                    }
                    _ => {
                        return Err(perr(
                            p.at,
                            Problem::Missing {
                                expected: "a destination for this point",
                            },
                        ))
                    }
                }
            }
            merged.push(p);
        }
        // Step 3. Check each path: sources and destinations, downhill, at most four pairs.
        let mut pairs = 0usize;
        let mut moves = Vec::with_capacity(merged.len());
        for p in merged {
            let path = &p.path;
            if path[0].point == OFF {
                return Err(perr(
                    p.at,
                    Problem::Inconsistent {
                        reason: "a move cannot start from off (0)",
                    },
                ));
            }
            for w in path.windows(2) {
                if w[1].point == BAR {
                    return Err(perr(
                        p.at,
                        Problem::Inconsistent {
                            reason: "a move cannot end on the bar (25)",
                        },
                    ));
                }
                if w[1].point >= w[0].point {
                    return Err(perr(
                        p.at,
                        Problem::Inconsistent {
                            reason: "each step must go from a higher point to a lower one",
                        },
                    ));
                }
            }
            pairs += (path.len() - 1) * usize::from(p.count);
            if pairs > MAX_PAIRS {
                return Err(perr(
                    p.at,
                    Problem::Inconsistent {
                        reason: "more than four checker moves",
                    },
                ));
            }
            moves.push(TextMove {
                path: p.path,
                count: p.count,
            });
        }
        Ok(PlayText { roll, moves })
    }
}

fn write_point(f: &mut impl fmt::Write, p: u8) -> fmt::Result {
    match p {
        OFF => f.write_str("off"),
        BAR => f.write_str("bar"),
        _ => write!(f, "{p}"),
    }
}

impl fmt::Display for PlayText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = self.roll {
            write!(f, "{r}:")?;
            if self.moves.is_empty() {
                return Ok(());
            }
            f.write_str(" ")?;
        } else if self.moves.is_empty() {
            return f.write_str("pass");
        }
        for (i, m) in self.moves.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            for (k, p) in m.path.iter().enumerate() {
                if k > 0 {
                    f.write_str("/")?;
                }
                write_point(f, p.point)?;
                if p.hit {
                    f.write_str("*")?;
                }
            }
            if m.count > 1 {
                write!(f, "({})", m.count)?;
            }
        }
        Ok(())
    }
}

impl PlayText {
    /// The text of `play` (a legal play for `roll` in `pos`) in gnubg's plain form, as `.mat`
    /// files write it and [`format_plain`] spells it: the roll, then every sub-move on its own,
    /// highest source first, `*` on the first sub-move that lands on a blot.
    ///
    /// ```
    /// use tavla_notation::PlayText;
    /// use tavla_core::{PlayList, Position, Roll};
    ///
    /// let roll = Roll::from_values(6, 6);
    /// let play = "24/18(2) 13/7(2)".parse::<PlayText>()?.resolve(&Position::START, roll)?;
    /// let text = PlayText::plain(&Position::START, roll, &play);
    /// assert_eq!(text.to_mat_string(), "66: 24/18 24/18 13/7 13/7");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn plain(pos: &Position, roll: Roll, play: &Play) -> PlayText {
        let pairs = sorted(play);
        let moves = pairs
            .iter()
            .enumerate()
            .map(|(k, &(from, to))| {
                let hit = hit_point(pos, to) && !pairs[..k].iter().any(|&(_, t)| t == to);
                TextMove::step(from, to, hit)
            })
            .collect();
        PlayText {
            roll: Some(roll),
            moves,
        }
    }

    /// The text as a `.mat` file writes it: the roll as `dd:`, then every written step on its
    /// own as `from/to` with numbers (bar 25, off 0), a chain `24/18*/14` split into
    /// `24/18* 18/14` and `(n)` written out n times, `*` where the text has it. A roll with no
    /// move is `dd:` alone; a text without a roll has no prefix.
    #[must_use]
    pub fn to_mat_string(&self) -> String {
        let mut out = String::new();
        if let Some(r) = self.roll {
            out.push_str(&format!("{r}:"));
        }
        for m in &self.moves {
            for _ in 0..m.count {
                for w in m.path.windows(2) {
                    if !out.is_empty() {
                        out.push(' ');
                    }
                    out.push_str(&format!("{}/{}", w[0].point, w[1].point));
                    if w[1].hit {
                        out.push('*');
                    }
                }
            }
        }
        out
    }

    /// The same moves with `*` after each point where one hits (the first of them to land on
    /// an opponent's blot of `pos`, in written order) and nowhere else: what a record written
    /// without hits, SGF, reads as in `.mat`. `pos` is the position the moves are made in, from
    /// the mover's side.
    #[must_use]
    pub fn with_hits(&self, pos: &Position) -> PlayText {
        let mut landed: Vec<u8> = Vec::new();
        let mut out = self.clone();
        for m in &mut out.moves {
            for p in m.path.iter_mut().skip(1) {
                p.hit = hit_point(pos, p.point) && !landed.contains(&p.point);
                landed.push(p.point);
            }
        }
        out
    }

    /// Whether the text is a pass (no move).
    #[must_use]
    pub fn is_pass(&self) -> bool {
        self.moves.is_empty()
    }

    /// The written pairs `(from, to)`, with chains split at every written point and `(n)`
    /// repeated, in written order (what gnubg's `ParseMove` returns). A combined move such as
    /// `24/14` stays one pair.
    #[must_use]
    pub fn pairs(&self) -> Vec<(u8, u8)> {
        let mut out = Vec::new();
        for m in &self.moves {
            for _ in 0..m.count {
                for w in m.path.windows(2) {
                    out.push((w[0].point, w[1].point));
                }
            }
        }
        out
    }

    /// The legal play for `roll` in `pos` that this text describes.
    ///
    /// The text is matched by resulting position: each written pair is split into die-sized
    /// steps in every way the roll allows, the steps are applied, and the result is looked up
    /// among the legal plays. `*` marks are not checked (as in gnubg). A combined move whose
    /// elided intermediate point could be either of two points prefers the path that hits
    /// nothing there (a writer keeps a hit intermediate point: `24/18*/14`); if that still
    /// leaves two plays the text is ambiguous. The play returned is the one from the legal
    /// play list, with its own sub-moves.
    ///
    /// # Errors
    /// [`ResolvePlayError::Illegal`] when no legal play fits, [`ResolvePlayError::Ambiguous`]
    /// when several do, [`ResolvePlayError::RollMismatch`] when the text names another roll.
    pub fn resolve(&self, pos: &Position, roll: Roll) -> Result<Play, ResolvePlayError> {
        if let Some(written) = self.roll {
            if written != roll {
                return Err(ResolvePlayError::RollMismatch {
                    written,
                    given: roll,
                });
            }
        }
        let mut list = PlayList::new();
        pos.legal_plays(roll, &mut list);
        let illegal = || ResolvePlayError::Illegal {
            text: self.to_string(),
            roll,
            reason: crate::illegal::why_illegal(self, pos, roll, &list),
        };
        if self.is_pass() {
            return if list.is_pass() {
                Ok(Play::PASS)
            } else {
                Err(illegal())
            };
        }
        let segments = self.pairs();
        let dice: Vec<u8> = if roll.is_double() {
            vec![roll.high().value(); 4]
        } else {
            vec![roll.high().value(), roll.low().value()]
        };
        // (index into the legal list, hits at elided points) for every way that fits.
        let mut found: Vec<(usize, usize)> = Vec::new();
        let mut search = Search {
            pos,
            list: &list,
            segments: &segments,
            dice: &dice,
            used: vec![false; dice.len()],
            steps: Vec::with_capacity(4),
            elided_hits: 0,
            found: &mut found,
        };
        search.segment(0);
        let Some(best) = found.iter().map(|&(_, h)| h).min() else {
            return Err(illegal());
        };
        let mut indices: Vec<usize> = found
            .iter()
            .filter(|&&(_, h)| h == best)
            .map(|&(i, _)| i)
            .collect();
        indices.sort_unstable();
        indices.dedup();
        match indices.as_slice() {
            [i] => Ok(list.play(*i)),
            _ => Err(ResolvePlayError::Ambiguous {
                text: self.to_string(),
                roll,
                candidates: indices
                    .iter()
                    .map(|&i| format_pretty(pos, &list.play(i)))
                    .collect(),
            }),
        }
    }
}

/// The search over the ways to split written pairs into die-sized steps.
struct Search<'a> {
    pos: &'a Position,
    list: &'a PlayList,
    segments: &'a [(u8, u8)],
    dice: &'a [u8],
    used: Vec<bool>,
    steps: Vec<CheckerMove>,
    elided_hits: usize,
    found: &'a mut Vec<(usize, usize)>,
}

impl Search<'_> {
    /// Whether the opponent has a blot on `point` (1..=24) before the play.
    fn blot(&self, point: u8) -> bool {
        (1..=24).contains(&point) && self.pos.at(point) == -1
    }

    /// Splits segment `k` and the ones after it.
    fn segment(&mut self, k: usize) {
        let Some(&(from, to)) = self.segments.get(k) else {
            self.finish();
            return;
        };
        self.step(k, from, to);
    }

    /// Continues segment `k` from `at` towards `to` with one more die.
    fn step(&mut self, k: usize, at: u8, to: u8) {
        if self.steps.len() == 4 {
            return;
        }
        for i in 0..self.dice.len() {
            if self.used[i] {
                continue;
            }
            // Equal dice give the same steps: try each value once per level.
            if self.dice[..i]
                .iter()
                .zip(&self.used)
                .any(|(&d, &u)| !u && d == self.dice[i])
            {
                continue;
            }
            let d = self.dice[i];
            let landing = at.saturating_sub(d);
            if landing < to || (to > 0 && landing == 0) {
                continue;
            }
            let arrived = landing == to || (to == 0 && landing == 0);
            let dest = if arrived { to } else { landing };
            self.used[i] = true;
            self.steps.push(CheckerMove::new(at, dest, false));
            let elided = !arrived && self.blot(dest);
            self.elided_hits += usize::from(elided);
            if arrived {
                self.segment(k + 1);
            } else {
                self.step(k, dest, to);
            }
            self.elided_hits -= usize::from(elided);
            self.steps.pop();
            self.used[i] = false;
        }
    }

    /// All segments are split: look the result up among the legal plays.
    fn finish(&mut self) {
        let play = Play::new(&self.steps);
        let Some(after) = self.pos.apply_moves(&play) else {
            return;
        };
        if let Some(i) = self.list.positions().iter().position(|p| *p == after) {
            // A play that uses fewer dice than the legal ones cannot reach the same position,
            // except that bearing off may use a larger die than needed: the legal list decides.
            self.found.push((i, self.elided_hits));
        }
    }
}

/// Whether the opponent has a checker on `point` (1..=24) in `pos`: a legal play landing there
/// hits.
fn hit_point(pos: &Position, point: u8) -> bool {
    (1..=24).contains(&point) && pos.at(point) < 0
}

/// The checker moves sorted gnubg's way: source descending, then destination descending.
fn sorted(play: &Play) -> Vec<(u8, u8)> {
    let mut v: Vec<(u8, u8)> = play.moves().iter().map(|m| (m.from(), m.to())).collect();
    v.sort_by(|a, b| b.cmp(a));
    v
}

/// gnubg's "pretty" form of `play` from `pos` (the position before the play), byte for byte as
/// its `FormatMove` writes it: sub-moves sorted by source then destination, highest first; the
/// moves of one checker chained, keeping an intermediate point only where it hit; identical
/// chains merged as `(n)`; `*` after each point where a blot was hit, once per point; `bar` and
/// `off`. The pass is the empty string.
///
/// ```
/// use tavla_notation::{format_pretty, PlayText};
/// use tavla_core::{Position, Roll};
///
/// let play = "24/18 24/18 13/7 13/7".parse::<PlayText>()?
///     .resolve(&Position::START, Roll::from_values(6, 6))?;
/// assert_eq!(format_pretty(&Position::START, &play), "24/18(2) 13/7(2)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn format_pretty(pos: &Position, play: &Play) -> String {
    // Step 1. Rows sorted as gnubg's `CompareMovesGeneral` sorts them.
    let mut rows: Vec<Vec<u8>> = sorted(play).into_iter().map(|(a, b)| vec![a, b]).collect();
    let n = rows.len();
    let mut alive = vec![true; n];
    // Step 2. Chain the moves of one checker: a row whose destination is a later row's source
    // absorbs it. The destination of row `j` is still its original one here: rows are only
    // extended as the outer row.
    for i in 0..n {
        for j in i..n {
            if !(alive[i] && alive[j]) {
                continue;
            }
            let dest = rows[i][rows[i].len() - 1];
            if dest != rows[j][0] {
                continue;
            }
            let next = rows[j][1];
            if hit_point(pos, dest) {
                rows[i].push(next);
            } else {
                let last = rows[i].len() - 1;
                rows[i][last] = next;
            }
            alive[j] = false;
        }
    }
    let mut chains: Vec<(Vec<u8>, u8)> = rows
        .into_iter()
        .zip(alive)
        .filter(|(_, a)| *a)
        .map(|(r, _)| (r, 1))
        .collect();
    // Step 3. Merge identical chains into `(n)`.
    let mut i = 0;
    while i < chains.len() {
        let mut j = i + 1;
        while j < chains.len() {
            if chains[j].0 == chains[i].0 {
                chains[i].1 += 1;
                chains.remove(j);
            } else {
                j += 1;
            }
        }
        i += 1;
    }
    // Step 4. Write, marking each hit point once.
    let mut out = String::new();
    let mut starred = 0u32;
    for (k, (chain, count)) in chains.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        let _ = write_point(&mut out, chain[0]);
        for &p in &chain[1..] {
            out.push('/');
            let _ = write_point(&mut out, p);
            if hit_point(pos, p) && starred & (1 << p) == 0 {
                out.push('*');
                starred |= 1 << p;
            }
        }
        if *count > 1 {
            out.push_str(&format!("({count})"));
        }
    }
    out
}

/// The plain form of `play` from `pos`, as gnubg's `FormatMovePlain` spells sub-moves (`.mat`
/// files, the external-player reply): every sub-move on its own as numbers, bar `25`, off `0`,
/// `*` on the first sub-move landing on a blot. Sub-moves are sorted highest source first
/// (gnubg keeps its generator's order, and its external player adds a trailing space). The
/// pass is the empty string.
#[must_use]
pub fn format_plain(pos: &Position, play: &Play) -> String {
    let moves = sorted(play);
    let mut out = String::new();
    for (k, &(from, to)) in moves.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(&format!("{from}/{to}"));
        if hit_point(pos, to) && !moves[..k].iter().any(|&(_, t)| t == to) {
            out.push('*');
        }
    }
    out
}

/// UBGI's written-out form (bgci v0.2 `bestmove`): every sub-move on its own as `from/to`,
/// highest source first, `bar` and `off` words, no `*`, no `(n)`; `pass` for no move.
#[must_use]
pub fn format_ubgi(play: &Play) -> String {
    if play.is_empty() {
        return "pass".to_string();
    }
    let mut out = String::new();
    for (k, (from, to)) in sorted(play).into_iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        let _ = write_point(&mut out, from);
        out.push('/');
        let _ = write_point(&mut out, to);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use tavla_core::Board;

    /// A position from the side on roll's checkers and the opponent's, each `(point, count)`
    /// in its owner's numbering (25 the bar).
    pub(crate) fn pos(on_roll: &[(usize, u8)], opponent: &[(usize, u8)]) -> Position {
        let mut b = Board::default();
        for &(p, n) in on_roll {
            b.on_roll[p - 1] = n;
        }
        for &(p, n) in opponent {
            b.opponent[p - 1] = n;
        }
        Position::try_from(b).unwrap()
    }

    fn resolve(p: &Position, text: &str, roll: (u8, u8)) -> Result<Play, ResolvePlayError> {
        text.parse::<PlayText>()
            .unwrap()
            .resolve(p, Roll::from_values(roll.0, roll.1))
    }

    #[test]
    fn parses_the_usual_spellings() {
        let t: PlayText = "Bar/22* 24-23".parse().unwrap();
        assert_eq!(t.pairs(), vec![(25, 22), (24, 23)]);
        assert!(t.moves[0].path[1].hit);
        let t: PlayText = "42: 8/4(2)".parse().unwrap();
        assert_eq!(t.roll, Some(Roll::from_values(4, 2)));
        assert_eq!(t.pairs(), vec![(8, 4), (8, 4)]);
        assert_eq!(t.to_string(), "42: 8/4(2)");
        let t: PlayText = "24/23/22/21/20".parse().unwrap();
        assert_eq!(t.pairs().len(), 4);
        let t: PlayText = "24 18 13 12".parse().unwrap();
        assert_eq!(t.pairs(), vec![(24, 18), (13, 12)]);
        let t: PlayText = "6/o, 5/OFF".parse().unwrap();
        assert_eq!(t.pairs(), vec![(6, 0), (5, 0)]);
        for pass in ["", "  ", "pass", "No Play", "fans", "61:"] {
            assert!(pass.parse::<PlayText>().unwrap().is_pass(), "{pass:?}");
        }
        assert_eq!("61:".parse::<PlayText>().unwrap().to_string(), "61:");
    }

    #[test]
    fn refuses_bad_text_with_the_offset() {
        let e = "13/7 7/9".parse::<PlayText>().unwrap_err();
        assert_eq!(e.offset, 5);
        let e = "13/26".parse::<PlayText>().unwrap_err();
        assert_eq!(e.offset, 3);
        let e = "13/".parse::<PlayText>().unwrap_err();
        assert_eq!(e.offset, 3);
        let e = "13/7(5)".parse::<PlayText>().unwrap_err();
        assert_eq!(e.offset, 5);
        let e = "13/7(2) 8/2(2) 6/5".parse::<PlayText>().unwrap_err();
        assert_eq!(e.offset, 15);
        assert!("off/5".parse::<PlayText>().is_err());
        assert!("5/bar".parse::<PlayText>().is_err());
        assert!("13 / 7 x".parse::<PlayText>().is_err());
        assert!("13".parse::<PlayText>().is_err());
        assert!("72: 13/7".parse::<PlayText>().is_err());
        assert!("13/7(".parse::<PlayText>().is_err());
        assert!("/13".parse::<PlayText>().is_err());
        assert!("13*/7".parse::<PlayText>().is_ok());
    }

    #[test]
    fn combined_moves_resolve_through_any_split() {
        let start = Position::START;
        let play = resolve(&start, "24/14", (6, 4)).unwrap();
        assert_eq!(format_pretty(&start, &play), "24/14");
        let play = resolve(&start, "13/10", (2, 1)).unwrap();
        assert_eq!(format_pretty(&start, &play), "13/10");
        // 66: one checker 24/12 and another 24/12.
        let p = pos(&[(24, 2), (13, 13)], &[(6, 15)]);
        let play = resolve(&p, "24/12(2)", (6, 6)).unwrap();
        assert_eq!(format_pretty(&p, &play), "24/12(2)");
        let play = resolve(&p, "24/18/12 24/18 13/7", (6, 6)).unwrap();
        assert_eq!(format_pretty(&p, &play), "24/12 24/18 13/7");
        assert!(matches!(
            resolve(&start, "24/12(2)", (6, 6)),
            Err(ResolvePlayError::Illegal { .. })
        ));
        assert!(matches!(
            resolve(&start, "24/13", (6, 4)),
            Err(ResolvePlayError::Illegal { .. })
        ));
        assert!(matches!(
            resolve(&start, "8/5", (3, 1)),
            Err(ResolvePlayError::Illegal { .. })
        ));
        assert!(matches!(
            resolve(&start, "31: 8/5 6/5", (4, 2)),
            Err(ResolvePlayError::RollMismatch { .. })
        ));
    }

    #[test]
    fn combined_move_prefers_the_path_without_a_hidden_hit() {
        // Opponent blots on our 18 and 20: 24/14 with 64 can go 24/18*/14 or 24/20*/14.
        let p = pos(&[(24, 2), (13, 13)], &[(7, 1), (5, 1), (6, 13)]);
        let r = resolve(&p, "24/14", (6, 4));
        assert!(
            matches!(&r, Err(ResolvePlayError::Ambiguous { candidates, .. }) if candidates.len() == 2),
            "{r:?}"
        );
        let play = resolve(&p, "24/18*/14", (6, 4)).unwrap();
        assert_eq!(format_pretty(&p, &play), "24/18*/14");
        // Only a blot on 18: 24/14 means the quiet path through 20.
        let p = pos(&[(24, 2), (13, 13)], &[(7, 1), (6, 14)]);
        let play = resolve(&p, "24/14", (6, 4)).unwrap();
        assert_eq!(format_pretty(&p, &play), "24/14");
        let play = resolve(&p, "24/18/14", (6, 4)).unwrap();
        assert_eq!(format_pretty(&p, &play), "24/18*/14");
    }

    #[test]
    fn pass_resolves_only_when_nothing_moves() {
        let closed = pos(
            &[(25, 1), (13, 14)],
            &[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2)],
        );
        let play = resolve(&closed, "", (6, 6)).unwrap();
        assert!(play.is_empty());
        assert_eq!(format_pretty(&closed, &play), "");
        assert_eq!(format_ubgi(&play), "pass");
        assert!(resolve(&Position::START, "pass", (6, 6)).is_err());
    }

    #[test]
    fn plain_and_ubgi_forms() {
        let p = pos(&[(25, 1), (24, 1), (13, 13)], &[(3, 1), (6, 14)]);
        let play = resolve(&p, "bar/22* 24/23", (3, 1)).unwrap();
        assert_eq!(format_plain(&p, &play), "25/22* 24/23");
        assert_eq!(format_ubgi(&play), "bar/22 24/23");
        assert_eq!(format_pretty(&p, &play), "bar/22* 24/23");
    }
}
