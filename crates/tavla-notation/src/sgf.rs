//! gnubg's SGF match records (`GM[6]`), read into the `.mat` model (SPEC-match-records.md,
//! section 2).
//!
//! [`MatchRecord::parse_sgf`] reads a sequence of SGF game trees, one per game, into the same
//! [`MatchRecord`] the `.mat` reader gives, so that [`GameRecord::replay`] and everything after
//! it works on either. From each game's root node it takes `MI[length:L][game:G][ws:W][bs:B]`
//! (the match length, the game number from 0 and the scores before the game), the names `PW`
//! (white, the left player) and `PB` (black, the right player), the starting cube `CV`, the
//! rules `RU` and the result `RE[W+n]`/`RE[B+n]` (with `R` after it for a resignation), which
//! becomes the game's last turn, a [`Action::Wins`] of the winner. Each later node holds one
//! move, `W[..]` or `B[..]`: two dice and up to four pairs of point letters (`a` = white's
//! 1-point ... `x` = white's 24-point, `y` the bar, `z` off), converted to the mover's own
//! numbering; the dice alone when the player could not move; or `double`, `take`, `drop`. A
//! `double` answering the opponent's double is a beaver. Unknown properties (gnubg's analysis
//! `A`, `DA`, `MR`, ...) are skipped; of a tree's variations only the main line (the first) is
//! read.
//!
//! Set-up nodes (a position, the turn, the dice or the cube set by hand: `AE[a:y]` with `AW`
//! and `AB` one letter per checker, `PL`, `DI`, `CP`, and `CV` after the root) become
//! [`Action::SetUp`] turns; a game may go on from the board one sets. What the model cannot
//! hold is refused rather than guessed: boards edited in part (`AW`/`AB` without clearing the
//! board with `AE[a:y]`) and games that do not start from the standard position
//! (`RU[Nackgammon]`, `RU[Hypergammon..]`).
//!
//! Errors ([`SgfError`]) name the game (counting game trees from 1), the line (from 1) and the
//! byte offset. The lines of turns are those of their nodes, so replay errors point into the
//! SGF text too.
//!
//! [`parse_record`] picks the format by content: SGF when the text starts (after whitespace)
//! with `(;`, `.mat` otherwise.
//!
//! [`MatchRecord::to_sgf`] writes a record as gnubg saves one (without its analysis and
//! statistics): one game tree per game, the root's `MI`, `PW`, `PB`, `RU[Crawford]` in a match
//! and `RE`, then a node per move or cube action.

use std::fmt;

use tavla_core::{Die, Roll};

use crate::mat::{Action, Column, GameRecord, MatError, MatchRecord, SetUp, Turn};
use crate::moves::{PlayText, TextMove};

/// An SGF text that cannot be read into a [`MatchRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SgfError {
    /// The game tree at fault, counting from 1; `None` outside any.
    pub game: Option<usize>,
    /// The line (from 1).
    pub line: usize,
    /// The byte offset in the text.
    pub offset: usize,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = self.game {
            write!(f, "game {g}, ")?;
        }
        write!(
            f,
            "line {} (byte {}): {}",
            self.line, self.offset, self.problem
        )
    }
}

impl std::error::Error for SgfError {}

/// A match record that cannot be read in either format ([`parse_record`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// An SGF text (it starts with `(;`) with an error.
    Sgf(SgfError),
    /// A `.mat` text (it starts with `N point match`) with an error.
    Mat(MatError),
    /// Neither: the first line that is not blank or a `;` comment.
    Neither {
        /// Its line (from 1); 1 for an empty text.
        line: usize,
        /// Its text (shortened); empty for an empty text.
        found: String,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Sgf(e) => write!(f, "SGF {e}"),
            RecordError::Mat(e) => write!(f, "{e}"),
            RecordError::Neither { line, found } if found.is_empty() => write!(
                f,
                "line {line}: the text is empty, not a match record (SGF `(;...)` or .mat \
                 `N point match`)"
            ),
            RecordError::Neither { line, found } => write!(
                f,
                "line {line}: `{found}`: neither an SGF record (starting with `(;`) nor a .mat \
                 record (starting with `N point match`)"
            ),
        }
    }
}

impl std::error::Error for RecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordError::Sgf(e) => Some(e),
            RecordError::Mat(e) => Some(e),
            RecordError::Neither { .. } => None,
        }
    }
}

/// Whether `text` is an SGF text: after a byte-order mark and whitespace it starts with `(`
/// and then (after whitespace) `;`.
#[must_use]
pub fn is_sgf(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .strip_prefix('(')
        .is_some_and(|rest| rest.trim_start().starts_with(';'))
}

/// The text of a record file's bytes: UTF-8 when they are, else Latin-1 (ISO-8859-1, each byte
/// its code point), as gnubg reads a `.mat` file of an older program (`José` written by a
/// Windows program). A byte-order mark is kept (the readers skip it).
///
/// ```
/// use tavla_notation::sgf::decode_text;
///
/// assert_eq!(decode_text(b"Jos\xc3\xa9".to_vec()), "José");
/// assert_eq!(decode_text(b"Jos\xe9".to_vec()), "José");
/// ```
#[must_use]
pub fn decode_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|e| e.into_bytes().iter().map(|&b| char::from(b)).collect())
}

/// Reads a match record in SGF or `.mat` form, chosen by content: SGF when [`is_sgf`], `.mat`
/// when the first line that is not blank or a `;` comment is `N point match`.
///
/// # Errors
/// [`RecordError::Sgf`] or [`RecordError::Mat`] from the reader of the format the text is in,
/// [`RecordError::Neither`] when it looks like neither.
pub fn parse_record(text: &str) -> Result<MatchRecord, RecordError> {
    if is_sgf(text) {
        return MatchRecord::parse_sgf(text).map_err(RecordError::Sgf);
    }
    let first = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            (
                i + 1,
                l.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}'),
            )
        })
        .find(|(_, l)| !l.is_empty() && !l.starts_with(';'));
    let Some((line, first)) = first else {
        return Err(RecordError::Neither {
            line: 1,
            found: String::new(),
        });
    };
    let words: Vec<&str> = first.split_whitespace().collect();
    if !matches!(words.as_slice(), [_, "point", "match"]) {
        let mut found: String = first.chars().take(40).collect();
        if found.len() < first.len() {
            found.push_str("...");
        }
        return Err(RecordError::Neither { line, found });
    }
    MatchRecord::parse(text).map_err(RecordError::Mat)
}

/// A property value: its text with escapes removed, and the byte offset of its first
/// character.
#[derive(Debug)]
struct Value {
    text: String,
    at: usize,
}

/// A property: its name, the offset of the name, and its values.
#[derive(Debug)]
struct Prop<'a> {
    name: &'a str,
    at: usize,
    values: Vec<Value>,
}

impl Prop<'_> {
    /// The property as written, shortened: `AE[a:y]`.
    fn show(&self) -> String {
        let v = self.values.first().map_or("", |v| v.text.as_str());
        let mut short: String = v.chars().take(24).collect();
        if short.len() < v.len() {
            short.push_str("...");
        }
        format!("{}[{short}]", self.name)
    }
}

/// A node (`;` and its properties).
#[derive(Debug)]
struct Node<'a> {
    props: Vec<Prop<'a>>,
}

/// A game tree's main line, with the offset of its `(`.
#[derive(Debug)]
struct Tree<'a> {
    at: usize,
    nodes: Vec<Node<'a>>,
}

/// Line numbers from byte offsets.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines(starts)
    }

    /// The line (from 1) of byte `offset`.
    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|&s| s <= offset).max(1)
    }
}

/// The syntax reader: game trees, nodes, properties and values.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
    lines: &'a Lines,
    /// The game tree being read (from 1).
    game: Option<usize>,
}

impl<'a> Reader<'a> {
    fn err(&self, offset: usize, problem: impl Into<String>) -> SgfError {
        SgfError {
            game: self.game,
            line: self.lines.line(offset),
            offset,
            problem: problem.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// The character at the current position, for messages.
    fn here(&self) -> char {
        self.text[self.pos..].chars().next().unwrap_or('\0')
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// The game trees of the whole text, each reduced to its main line.
    fn collection(&mut self) -> Result<Vec<Tree<'a>>, SgfError> {
        if self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        let mut trees = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => break,
                Some(b'(') => {
                    self.game = Some(trees.len() + 1);
                    trees.push(self.tree()?);
                    self.game = None;
                }
                Some(_) if trees.is_empty() => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "`{}`: an SGF record starts with a game tree `(;`",
                            self.here()
                        ),
                    ))
                }
                Some(_) => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "`{}` after game {}: only game trees `(;...)` may follow",
                            self.here(),
                            trees.len()
                        ),
                    ))
                }
            }
        }
        if trees.is_empty() {
            return Err(self.err(self.pos, "no game tree `(;...)`"));
        }
        Ok(trees)
    }

    /// A game tree from its `(`: its nodes, following the first variation where it branches
    /// and skipping the others.
    fn tree(&mut self) -> Result<Tree<'a>, SgfError> {
        let at = self.pos;
        self.pos += 1;
        let mut open = 1usize;
        // After the main line's variation closed: only more variations or `)` may come.
        let mut tail = false;
        let mut nodes = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => {
                    return Err(self.err(
                        self.text.len(),
                        "the text ends inside the game tree (`)` missing)",
                    ))
                }
                Some(b';') if !tail => nodes.push(self.node()?),
                Some(b'(') if !tail => {
                    if nodes.is_empty() {
                        return Err(self.err(self.pos, "a variation `(` before the first node"));
                    }
                    open += 1;
                    self.pos += 1;
                }
                Some(b'(') => self.skip_tree()?,
                Some(b')') => {
                    self.pos += 1;
                    open -= 1;
                    if open == 0 {
                        break;
                    }
                    tail = true;
                }
                Some(b';') => {
                    return Err(self.err(self.pos, "a node `;` after the variations of a tree"))
                }
                Some(_) => {
                    return Err(self.err(
                        self.pos,
                        format!(
                            "`{}`: a node `;`, a variation `(` or `)` expected",
                            self.here()
                        ),
                    ))
                }
            }
        }
        if nodes.is_empty() {
            return Err(self.err(at, "an empty game tree `()`"));
        }
        Ok(Tree { at, nodes })
    }

    /// Skips a variation from its `(` to its `)`, values included.
    fn skip_tree(&mut self) -> Result<(), SgfError> {
        let at = self.pos;
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => {
                    return Err(self.err(at, "the text ends inside this variation (`)` missing)"))
                }
                Some(b'(') => {
                    depth += 1;
                    self.pos += 1;
                }
                Some(b')') => {
                    depth -= 1;
                    self.pos += 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some(b'[') => {
                    self.value()?;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// A node from its `;`.
    fn node(&mut self) -> Result<Node<'a>, SgfError> {
        self.pos += 1;
        let mut props = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b) if b.is_ascii_uppercase() => props.push(self.prop()?),
                Some(b) if b.is_ascii_lowercase() => {
                    return Err(self.err(
                        self.pos,
                        format!("`{}`: property names are upper-case letters", self.here()),
                    ))
                }
                _ => break,
            }
        }
        Ok(Node { props })
    }

    /// A property: its name and one or more values.
    fn prop(&mut self) -> Result<Prop<'a>, SgfError> {
        let at = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_uppercase()) {
            self.pos += 1;
        }
        let name = &self.text[at..self.pos];
        self.skip_ws();
        if self.peek() != Some(b'[') {
            return Err(self.err(self.pos, format!("`{name}` has no value `[...]`")));
        }
        let mut values = Vec::new();
        while self.peek() == Some(b'[') {
            values.push(self.value()?);
            self.skip_ws();
        }
        Ok(Prop { name, at, values })
    }

    /// A value from its `[` to the `]` that closes it; `\` escapes the next character and a
    /// `\` before a line break removes both.
    fn value(&mut self) -> Result<Value, SgfError> {
        let open = self.pos;
        let at = open + 1;
        let mut text = String::new();
        let mut chars = self.text[at..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                ']' => {
                    self.pos = at + i + 1;
                    return Ok(Value { text, at });
                }
                '\\' => match chars.next() {
                    Some((_, '\n')) => {}
                    Some((k, '\r')) => {
                        if self.text[at + k + 1..].starts_with('\n') {
                            chars.next();
                        }
                    }
                    Some((_, e)) => text.push(e),
                    None => break,
                },
                _ => text.push(c),
            }
        }
        Err(self.err(open, "the text ends inside this value (`]` missing)"))
    }
}

/// What a game tree says about the match.
struct GameInfo {
    /// `MI[length:..]`.
    length: Option<u32>,
    /// `PW`, `PB`.
    players: [Option<String>; 2],
    /// `RU[..:Jacoby:..]`.
    jacoby: bool,
    /// `RU[..:Crawford:..]` in a match (or `CrawfordGame`); true in money play.
    crawford_rule: bool,
}

/// The side names, white (the left player) and black.
const SIDES: [&str; 2] = ["white", "black"];

/// The set-up properties (`CV` only after the root).
const SETUP: [&str; 6] = ["AE", "AW", "AB", "PL", "DI", "CP"];

/// The largest cube value: 2^15, as gnubg's Match ID holds it and the `.mat` reader allows.
const MAX_CUBE: u32 = 1 << 15;

/// A `CV` value: a power of two from 1 to 32768.
fn cube_value(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|v| v.is_power_of_two() && *v <= MAX_CUBE)
        .ok_or_else(|| format!("a cube value is a power of two from 1 to {MAX_CUBE}"))
}

/// Reads the set-up properties of a node into a [`SetUp`]; `None` when it has none. `cube` is
/// the cube's value so far (a `CV` sets it). Errors give the offset and what is wrong.
fn read_setup(
    props: &[Prop<'_>],
    root: bool,
    cube: &mut u32,
) -> Result<Option<SetUp>, (usize, String)> {
    let mut setup = SetUp::default();
    let mut any = false;
    let mut cleared = None;
    let mut placed: Option<&Prop<'_>> = None;
    let mut board = [[0u8; 25]; 2];
    for prop in props {
        if !(SETUP.contains(&prop.name) || (prop.name == "CV" && !root)) {
            continue;
        }
        any = true;
        let first = &prop.values[0];
        let single = || -> Result<(), (usize, String)> {
            match prop.values.get(1) {
                Some(v) => Err((v.at, format!("{}: one value expected", prop.show()))),
                None => Ok(()),
            }
        };
        match prop.name {
            "AE" => {
                for v in &prop.values {
                    if v.text.trim() != "a:y" {
                        return Err((
                            v.at,
                            format!(
                                "AE[{}]: only the whole board is cleared here (`AE[a:y]`)",
                                v.text
                            ),
                        ));
                    }
                }
                cleared = Some(prop.at);
            }
            "AW" | "AB" => {
                let player = usize::from(prop.name == "AB");
                placed.get_or_insert(prop);
                for v in &prop.values {
                    let point = match v.text.trim().as_bytes() {
                        [c @ b'a'..=b'x'] if player == 0 => usize::from(c - b'a'),
                        [c @ b'a'..=b'x'] => usize::from(b'x' - c),
                        [b'y'] => 24,
                        _ => {
                            return Err((
                                v.at,
                                format!(
                                    "{}: `{}` is not a point letter (a to x, y for the bar)",
                                    prop.show(),
                                    v.text
                                ),
                            ))
                        }
                    };
                    board[player][point] = board[player][point].saturating_add(1);
                }
            }
            "PL" => {
                single()?;
                setup.to_move = Some(match first.text.trim() {
                    "W" => 0,
                    "B" => 1,
                    _ => return Err((first.at, format!("{}: the player is W or B", prop.show()))),
                });
            }
            "DI" => {
                single()?;
                let d = first.text.trim().as_bytes();
                let die = |c: u8| (b'1'..=b'6').contains(&c).then(|| c - b'0');
                setup.dice = match d {
                    [a, b] => die(*a).zip(die(*b)).map(|(a, b)| Roll::from_values(a, b)),
                    _ => None,
                };
                if setup.dice.is_none() {
                    return Err((
                        first.at,
                        format!("{}: the dice are two digits 1 to 6", prop.show()),
                    ));
                }
            }
            "CV" => {
                single()?;
                let v = cube_value(&first.text)
                    .map_err(|p| (first.at, format!("{}: {p}", prop.show())))?;
                *cube = v;
                setup.cube = Some(v);
            }
            _ => {
                single()?;
                setup.cube_owner = Some(match first.text.trim() {
                    "c" => None,
                    "w" => Some(0),
                    "b" => Some(1),
                    _ => {
                        return Err((
                            first.at,
                            format!("{}: the cube is c (centred), w or b", prop.show()),
                        ))
                    }
                });
            }
        }
    }
    match (cleared, placed) {
        (None, Some(prop)) => {
            return Err((
                prop.at,
                format!(
                    "{}: checkers placed without clearing the board first (`AE[a:y]`): boards \
                     edited in part are not supported",
                    prop.show()
                ),
            ))
        }
        (Some(at), placed) => {
            if SetUp::position(&board, 0).is_none() {
                let count = |p: usize| board[p].iter().map(|&n| u32::from(n)).sum::<u32>();
                let why = match (0..24).find(|&i| board[0][i] > 0 && board[1][23 - i] > 0) {
                    Some(i) => format!("white's {}-point is held by both sides", i + 1),
                    None => format!(
                        "{} white and {} black checkers, at most 15 a side",
                        count(0),
                        count(1)
                    ),
                };
                let (at, name) = placed.map_or((at, "AE"), |p| (p.at, p.name));
                return Err((
                    at,
                    format!("{name}: the set-up board is not a position ({why})"),
                ));
            }
            setup.board = Some(board);
        }
        (None, None) => {}
    }
    Ok(any.then_some(setup))
}

/// Reads the game tree `tree`, the `ordinal`-th (from 1).
fn game(
    tree: &Tree<'_>,
    ordinal: usize,
    lines: &Lines,
) -> Result<(GameInfo, GameRecord), SgfError> {
    let err = |offset: usize, problem: String| SgfError {
        game: Some(ordinal),
        line: lines.line(offset),
        offset,
        problem,
    };
    let number_of = |v: &Value, what: &str, text: &str| -> Result<u32, SgfError> {
        text.trim().parse::<u32>().map_err(|_| {
            err(
                v.at,
                format!("`{}`: the {what} `{}` is not a number", v.text, text.trim()),
            )
        })
    };
    let mut info = GameInfo {
        length: None,
        players: [None, None],
        jacoby: false,
        crawford_rule: true,
    };
    let mut number = None;
    let mut scores = [0u32; 2];
    let mut result: Option<(Column, u32, usize)> = None;
    let mut cube = 1u32;
    // `RU` says whether this is the Crawford game (gnubg: `CrawfordGame` among its rules), and
    // whether the rule is on at all (gnubg writes `Crawford` only then).
    let mut crawford = None;
    let mut crawford_rule = false;
    // tavla 0.1.0 wrote `RU[Crawford]` on every game of a match, the Crawford game too.
    let mut old_tavla = false;
    for prop in &tree.nodes[0].props {
        let first = &prop.values[0];
        match prop.name {
            "GM" if first.text.trim() != "6" => {
                return Err(err(
                    prop.at,
                    format!("{}: not a backgammon record (GM[6])", prop.show()),
                ))
            }
            "MI" => {
                for v in &prop.values {
                    let Some((key, value)) = v.text.split_once(':') else {
                        continue;
                    };
                    match key.trim() {
                        "length" => info.length = Some(number_of(v, "match length", value)?),
                        "game" => number = Some(number_of(v, "game number", value)?),
                        "ws" => scores[0] = number_of(v, "score", value)?,
                        "bs" => scores[1] = number_of(v, "score", value)?,
                        _ => {}
                    }
                }
            }
            "AP" => old_tavla = first.text.trim() == "tavla:0.1.0",
            "PW" => info.players[0] = Some(first.text.trim().to_string()),
            "PB" => info.players[1] = Some(first.text.trim().to_string()),
            "RU" => {
                crawford = Some(false);
                for rule in first.text.split(':') {
                    let rule = rule.trim();
                    info.jacoby |= rule == "Jacoby";
                    crawford_rule |= rule == "Crawford" || rule == "CrawfordGame";
                    if rule == "CrawfordGame" {
                        crawford = Some(true);
                    }
                    if rule == "Nackgammon" || rule.starts_with("Hypergammon") {
                        return Err(err(
                            prop.at,
                            format!(
                                "{}: {rule} is not supported (games are replayed from the \
                                 standard starting position)",
                                prop.show()
                            ),
                        ));
                    }
                }
            }
            "RE" => result = Some(read_result(first).map_err(|p| err(first.at, p))?),
            // gnubg's automatic doubles in a money session: the cube the game starts at.
            "CV" => {
                cube = cube_value(&first.text)
                    .map_err(|p| err(first.at, format!("{}: {p}", prop.show())))?;
            }
            _ => {}
        }
    }
    let start_cube = cube;
    let mut turns = Vec::new();
    // The side whose double is waiting for an answer.
    let mut doubled: Option<Column> = None;
    for (k, node) in tree.nodes.iter().enumerate() {
        let mut mover: Option<&Prop<'_>> = None;
        if let Some(setup) =
            read_setup(&node.props, k == 0, &mut cube).map_err(|(at, p)| err(at, p))?
        {
            let at = node
                .props
                .iter()
                .find(|p| SETUP.contains(&p.name) || p.name == "CV")
                .map_or(tree.at, |p| p.at);
            turns.push(Turn {
                player: setup.to_move.unwrap_or(0),
                action: Action::SetUp(setup),
                line: lines.line(at),
            });
            doubled = None;
        }
        for prop in &node.props {
            if prop.name == "W" || prop.name == "B" {
                if let Some(m) = mover {
                    return Err(err(
                        prop.at,
                        format!("a second move {} in the node of {}", prop.show(), m.show()),
                    ));
                }
                mover = Some(prop);
            }
        }
        let Some(prop) = mover else { continue };
        let player = usize::from(prop.name == "B");
        if prop.values.len() > 1 {
            return Err(err(
                prop.values[1].at,
                format!("{}: a move has one value", prop.show()),
            ));
        }
        let value = &prop.values[0];
        let action = match value.text.trim() {
            "double" => {
                cube = cube.saturating_mul(2);
                if doubled == Some(1 - player) {
                    Action::Beaver(cube)
                } else {
                    Action::Double(cube)
                }
            }
            "take" => Action::Take,
            "drop" => Action::Drop,
            _ => Action::Move(
                read_move(player, &value.text)
                    .map_err(|(i, p)| err(value.at + i, format!("{}: {p}", prop.show())))?,
            ),
        };
        doubled = match action {
            Action::Double(_) | Action::Beaver(_) => Some(player),
            _ => None,
        };
        turns.push(Turn {
            player,
            action,
            line: lines.line(prop.at),
        });
    }
    if let Some((winner, points, at)) = result {
        turns.push(Turn {
            player: winner,
            action: Action::Wins(points),
            line: lines.line(at),
        });
    }
    if old_tavla && crawford == Some(false) {
        // Left to the scores, as in a `.mat` record.
        crawford = None;
    }
    // A match played without the Crawford rule: gnubg writes no `Crawford` in `RU`.
    info.crawford_rule = crawford_rule || old_tavla || info.length.unwrap_or(0) == 0;
    if !info.crawford_rule {
        crawford = Some(false);
    }
    let number = number.map_or(u32::try_from(ordinal).unwrap_or(u32::MAX), |g| {
        g.saturating_add(1)
    });
    Ok((
        info,
        GameRecord {
            number,
            scores,
            turns,
            line: lines.line(tree.at),
            score_line: lines.line(tree.at),
            crawford,
            cube: start_cube,
        },
    ))
}

/// `W+n` or `B+n`, with `R` after it for a resignation: the winner, the points and the offset
/// of the value.
fn read_result(v: &Value) -> Result<(Column, u32, usize), String> {
    let bad = || format!("RE[{}]: not a result `W+n` or `B+n`", v.text);
    let t = v.text.trim();
    let (winner, rest) = if let Some(r) = t.strip_prefix("W+") {
        (0, r)
    } else if let Some(r) = t.strip_prefix("B+") {
        (1, r)
    } else {
        return Err(bad());
    };
    let rest = rest.strip_suffix('R').unwrap_or(rest);
    let points = rest.parse::<u32>().map_err(|_| bad())?;
    Ok((winner, points, v.at))
}

/// A move value of `player` (0 white, 1 black): two dice and pairs of point letters. Errors
/// give the offset in the value and what is wrong.
fn read_move(player: Column, value: &str) -> Result<PlayText, (usize, String)> {
    let b = value.as_bytes();
    let die = |i: usize| -> Result<Die, (usize, String)> {
        let c = b.get(i).copied();
        c.filter(u8::is_ascii_digit)
            .and_then(|d| Die::try_from(d - b'0').ok())
            .ok_or_else(|| {
                (
                    i,
                    "not a move (two dice 1 to 6 and point letters), `double`, `take` or `drop`"
                        .to_string(),
                )
            })
    };
    let roll = Roll::new(die(0)?, die(1)?);
    let letters = &b[2..];
    if letters.len() % 2 == 1 {
        return Err((
            b.len() - 1,
            "point letters come in pairs (from, to)".to_string(),
        ));
    }
    if letters.len() > 8 {
        return Err((10, "more than four checker moves".to_string()));
    }
    let point = |i: usize| -> Result<u8, (usize, String)> {
        match letters[i] {
            // White counts from a (1) to x (24), black from x (1) to a (24).
            c @ b'a'..=b'x' if player == 0 => Ok(c - b'a' + 1),
            c @ b'a'..=b'x' => Ok(24 - (c - b'a')),
            b'y' => Ok(25),
            b'z' => Ok(0),
            _ => Err((
                i + 2,
                format!(
                    "`{}` is not a point letter (a to x, y for the bar, z for off)",
                    value[i + 2..].chars().next().unwrap_or('\0')
                ),
            )),
        }
    };
    let name = |p: u8| match p {
        0 => "off".to_string(),
        25 => "bar".to_string(),
        _ => p.to_string(),
    };
    let mut moves = Vec::with_capacity(letters.len() / 2);
    for i in (0..letters.len()).step_by(2) {
        let (from, to) = (point(i)?, point(i + 1)?);
        if from == 0 || to == 25 || from <= to {
            return Err((
                i + 2,
                format!(
                    "`{}`: {} cannot move from {} to {}",
                    &value[i + 2..i + 4],
                    SIDES[player],
                    name(from),
                    name(to)
                ),
            ));
        }
        moves.push(TextMove::step(from, to, false));
    }
    Ok(PlayText {
        roll: Some(roll),
        moves,
    })
}

impl MatchRecord {
    /// Reads an SGF text of gnubg's (`GM[6]`): one game tree per game.
    ///
    /// The match length and the players' names come from the first game (`MI[length:..]`,
    /// `PW`, `PB`; 0 and `White`/`Black` when missing), each game's number and scores from
    /// its own `MI[game:..][ws:..][bs:..]`.
    ///
    /// # Errors
    /// [`SgfError`] naming the game, the line, the byte offset and what is wrong: text that is
    /// not SGF, a game that is not backgammon or not from the standard position, a set-up node
    /// that edits part of the board or sets an impossible one, a set-up value that is not a
    /// player (`PL`), two dice (`DI`), a power of two (`CV`) or a cube position (`CP`), a move
    /// value that is not two dice and point letters, a result that is not `W+n`/`B+n`, games
    /// of different match lengths.
    ///
    /// A node with set-up properties and a move gives two turns, the set-up first (written
    /// back as two nodes).
    pub fn parse_sgf(text: &str) -> Result<MatchRecord, SgfError> {
        let lines = Lines::new(text);
        let trees = Reader {
            text,
            pos: 0,
            lines: &lines,
            game: None,
        }
        .collection()?;
        let mut length = None;
        let mut players = None;
        let mut jacoby = false;
        let mut crawford = true;
        let mut games = Vec::with_capacity(trees.len());
        for (i, tree) in trees.iter().enumerate() {
            let (info, mut record) = game(tree, i + 1, &lines)?;
            mark_hits(&mut record);
            jacoby |= info.jacoby;
            crawford &= info.crawford_rule;
            let l = info.length.unwrap_or(0);
            match length {
                None => length = Some(l),
                Some(first) if first != l => {
                    return Err(SgfError {
                        game: Some(i + 1),
                        line: record.line,
                        offset: tree.at,
                        problem: format!(
                            "a {l}-point match, but game 1 is of a {first}-point match"
                        ),
                    })
                }
                Some(_) => {}
            }
            players.get_or_insert_with(|| {
                let [w, b] = info.players;
                [
                    w.unwrap_or_else(|| "White".to_string()),
                    b.unwrap_or_else(|| "Black".to_string()),
                ]
            });
            games.push(record);
        }
        Ok(MatchRecord {
            length: length.unwrap_or(0),
            players: players.unwrap_or_default(),
            games,
            jacoby,
            beavers: false,
            crawford,
        })
    }
}

/// Marks the hits of each move of a game that replays ([`PlayText::with_hits`]): SGF's moves
/// carry none, and a `.mat` written from them should mark each with `*`, as gnubg's does. A
/// game that does not replay is left as read (its error comes when it is replayed).
fn mark_hits(game: &mut GameRecord) {
    let Ok(replay) = game.replay() else {
        return;
    };
    let mut rolls = replay.rolls.iter();
    for turn in &mut game.turns {
        if let Action::Move(text) = &mut turn.action {
            let Some(r) = rolls.next() else {
                return;
            };
            *text = text.with_hits(&r.position);
        }
    }
}

/// An SGF text value: `]` and `\\` escaped with a backslash.
fn sgf_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == ']' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The point letter of `point` (0 off, 1..=24, 25 bar) in `player`'s numbering (0 white,
/// 1 black): white's 1-point is `a`, black's 1-point `x`, the bar `y`, off `z`.
fn point_letter(player: Column, point: u8) -> char {
    match point {
        0 => 'z',
        25 => 'y',
        p if player == 0 => char::from(b'a' + p - 1),
        p => char::from(b'a' + 24 - p),
    }
}

/// A move value: the dice (larger first) and a pair of letters per written step.
fn move_value(player: Column, text: &PlayText) -> String {
    let mut out = text
        .roll
        .map_or_else(String::new, |r| format!("{}{}", r.high(), r.low()));
    for (from, to) in text.pairs() {
        out.push(point_letter(player, from));
        out.push(point_letter(player, to));
    }
    out
}

/// A set-up node's properties as gnubg writes them: `PL`, `AE[a:y]` and a letter per
/// checker (`AW`, `AB`, each player's points from its 1-point up, then the bar), `DI`, `CV`,
/// `CP`.
fn write_setup(setup: &SetUp, out: &mut String) {
    use std::fmt::Write as _;
    if let Some(p) = setup.to_move {
        let _ = write!(out, "PL[{}]", ["W", "B"][p]);
    }
    if let Some(board) = &setup.board {
        out.push_str("AE[a:y]");
        for (player, name) in ["AW", "AB"].into_iter().enumerate() {
            if board[player].iter().all(|&n| n == 0) {
                continue;
            }
            out.push_str(name);
            for (i, &n) in board[player].iter().enumerate() {
                let letter = point_letter(player, u8::try_from(i + 1).unwrap_or(25));
                for _ in 0..n {
                    let _ = write!(out, "[{letter}]");
                }
            }
        }
    }
    if let Some(d) = setup.dice {
        let _ = write!(out, "DI[{}{}]", d.high(), d.low());
    }
    if let Some(v) = setup.cube {
        let _ = write!(out, "CV[{v}]");
    }
    if let Some(owner) = setup.cube_owner {
        let _ = write!(out, "CP[{}]", owner.map_or("c", |p| ["w", "b"][p]));
    }
}

impl MatchRecord {
    /// The record as an SGF text of gnubg's (`GM[6]`), one game tree per game, as gnubg's
    /// `save match` writes one but without analysis: the root holds `FF[4]GM[6]CA[UTF-8]`,
    /// `AP[tavla:VERSION]`, `MI[length:L][game:G][ws:W][bs:B]` (the game from 0, the scores
    /// before it), `PW` (the left player) and `PB` (the right), `RU[Crawford]` in a match, and
    /// the result `RE[W+n]`/`RE[B+n]`, with `R` after it when the game ended neither on the board
    /// nor by a drop (a resignation). Each move or cube action is a node: `W[..]`/`B[..]` with
    /// the dice and a pair of point letters per checker step, `double` (also for a beaver),
    /// `take`, `drop`; each set-up turn a node of `PL`, `AE[a:y]` with `AW` and `AB`, `DI`, `CV`
    /// and `CP`, as far as it sets them. [`MatchRecord::parse_sgf`] reads it back to the same
    /// games (hit marks aside, which SGF does not hold). Of a record built by hand, what SGF or
    /// the reader cannot hold does not come back: a set-up that sets nothing (an empty node), a
    /// set-up turn's player when it is not the one it names on roll (read as that one, or 0),
    /// and a cube value or board the reader refuses (written as they are).
    ///
    /// ```
    /// use tavla_core::{PlayList, Position, Roll};
    /// use tavla_notation::mat::{GameRecord, MatchRecord};
    ///
    /// let mut record = MatchRecord::new(0, ["you".into(), "tavla".into()]);
    /// let mut game = GameRecord::new(1, [0, 0]);
    /// let roll = Roll::from_values(3, 1);
    /// let play = "8/5 6/5".parse::<tavla_notation::PlayText>()?.resolve(&Position::START, roll)?;
    /// game.push_play(0, &Position::START, roll, &play);
    /// record.games.push(game);
    /// let sgf = record.to_sgf();
    /// assert!(sgf.contains("PW[you]PB[tavla]"));
    /// assert!(sgf.contains("\n;W[31hefe])"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn to_sgf(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let crawford_games = self.crawford_games();
        let crawford_rule = self.crawford_rule();
        for (g, game) in self.games.iter().enumerate() {
            let _ =
                write!(
                out,
                "(;FF[4]GM[6]CA[UTF-8]AP[tavla:{}]MI[length:{}][game:{}][ws:{}][bs:{}]PW[{}]PB[{}]",
                env!("CARGO_PKG_VERSION"),
                self.length,
                game.number.checked_sub(1).unwrap_or(u32::try_from(g).unwrap_or(u32::MAX)),
                game.scores[0],
                game.scores[1],
                sgf_text(&self.players[0]),
                sgf_text(&self.players[1]),
            );
            if crawford_games[g] {
                out.push_str("RU[Crawford:CrawfordGame]");
            } else if self.length > 0 && crawford_rule {
                out.push_str("RU[Crawford]");
            } else if self.length == 0 && self.jacoby {
                out.push_str("RU[Jacoby]");
            }
            // The cube gnubg's automatic doubles started the game at.
            if game.cube > 1 {
                let _ = write!(out, "CV[{}]", game.cube);
            }
            let ended_on_board = game
                .replay()
                .ok()
                .and_then(|r| r.rolls.last().map(|t| t.after.outcome().is_some()))
                .unwrap_or(false);
            for (i, turn) in game.turns.iter().enumerate() {
                if let Action::Wins(points) = turn.action {
                    let dropped = i > 0 && game.turns[i - 1].action == Action::Drop;
                    let resigned = if dropped || ended_on_board { "" } else { "R" };
                    let _ = write!(out, "RE[{}+{points}{resigned}]", ["W", "B"][turn.player]);
                    break;
                }
            }
            for turn in &game.turns {
                let value = match &turn.action {
                    Action::Move(text) => move_value(turn.player, text),
                    Action::Double(_) | Action::Beaver(_) => "double".to_string(),
                    Action::Take => "take".to_string(),
                    Action::Drop => "drop".to_string(),
                    Action::Wins(_) => continue,
                    Action::SetUp(setup) => {
                        out.push_str("\n;");
                        write_setup(setup, &mut out);
                        continue;
                    }
                };
                let _ = write!(out, "\n;{}[{value}]", ["W", "B"][turn.player]);
            }
            out.push_str(")\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value as Json;

    use super::*;
    use tavla_core::Position;

    use crate::mat::RolledTurn;

    fn vectors() -> Json {
        let path = format!(
            "{}/tests/data/vectors-match-records.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// A vector's text: its lines joined, or a string as it is.
    fn text(v: &Json) -> String {
        match v.as_str() {
            Some(s) => s.to_string(),
            None => v
                .as_array()
                .expect("lines")
                .iter()
                .map(|l| l.as_str().expect("a line"))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    fn file(v: &Json, list: &str, id: &str) -> String {
        let f = v[list]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap_or_else(|| panic!("no {id}"));
        text(&f["text"])
    }

    /// A roll without its line, to compare records of the two formats.
    fn roll_key(r: &RolledTurn) -> (Column, Position, Roll, Position, bool) {
        (r.player, r.position, r.roll, r.after, r.opening)
    }

    #[test]
    fn gnubg_sgf_replays_and_adds_up() {
        let v = vectors();
        let record = MatchRecord::parse_sgf(&file(&v, "sgf_files", "SGF1")).unwrap();
        assert_eq!(record.length, 5);
        assert_eq!(record.players, ["gnubg".to_string(), "root".to_string()]);
        assert_eq!(record.games.len(), 4);
        // RE: B+2R, B+1, W+2R, B+2.
        let results = [(1, 2), (1, 1), (0, 2), (1, 2)];
        let mut scores = [0u32; 2];
        for (k, game) in record.games.iter().enumerate() {
            assert_eq!(game.number as usize, k + 1);
            assert_eq!(game.scores, scores, "game {}", game.number);
            let replay = game.replay().unwrap_or_else(|e| panic!("game {k}: {e}"));
            let (winner, points) = replay.result.expect("a result");
            assert_eq!((winner, points), results[k], "game {}", game.number);
            assert!(replay.rolls[0].opening);
            for w in replay.rolls.windows(2) {
                assert_ne!(w[0].player, w[1].player);
                assert_eq!(w[1].position, w[0].after.flip());
            }
            scores[winner] += points;
        }
        assert_eq!(scores, [2, 5]);
        // The first game: 48 rolls, black's double to 2 taken.
        let g = &record.games[0];
        let replay = g.replay().unwrap();
        assert_eq!(replay.rolls.len(), 48);
        assert!(replay.cube);
        assert!(g
            .turns
            .iter()
            .any(|t| t.action == Action::Double(2) && t.player == 1));
        assert_eq!(g.turns.last().unwrap().action, Action::Wins(2));
        // `RE[B+2R]`: white resigned before black bore off the last checkers.
        assert!(replay.rolls.last().unwrap().after.outcome().is_none());
        // The turns' lines are the nodes' lines.
        assert_eq!(g.line, 1);
        assert_eq!(g.turns[0].line, 2);
        assert_eq!(replay.rolls[1].line, 3);
        // The second game ends with a drop: black wins the cube before the double.
        let g = &record.games[1];
        let n = g.turns.len();
        assert_eq!(g.turns[n - 3].action, Action::Double(2));
        assert_eq!(g.turns[n - 2].action, Action::Drop);
        assert_eq!(g.turns[n - 1].action, Action::Wins(1));
        // A pass: dice only.
        let Action::Move(m) = &record.games[0].turns[20].action else {
            panic!()
        };
        assert!(m.is_pass());
        assert_eq!(m.to_string(), "62:");
    }

    #[test]
    fn sgf_and_mat_of_the_same_match_agree() {
        let v = vectors();
        let sgf = MatchRecord::parse_sgf(&file(&v, "sgf_files", "SGF1")).unwrap();
        let mat = MatchRecord::parse(&file(&v, "mat_files", "MAT2")).unwrap();
        assert_eq!(sgf.length, mat.length);
        assert_eq!(sgf.players, mat.players);
        assert_eq!(sgf.games.len(), mat.games.len());
        for (s, m) in sgf.games.iter().zip(&mat.games) {
            assert_eq!(s.number, m.number);
            assert_eq!(s.scores, m.scores);
            // The same actions by the same players; moves compared by what they play.
            let kinds = |g: &GameRecord| -> Vec<(Column, Option<Action>)> {
                g.turns
                    .iter()
                    .map(|t| match t.action {
                        Action::Move(_) => (t.player, None),
                        ref a => (t.player, Some(a.clone())),
                    })
                    .collect()
            };
            assert_eq!(kinds(s), kinds(m), "game {}", s.number);
            let (rs, rm) = (s.replay().unwrap(), m.replay().unwrap());
            assert_eq!(rs.result, rm.result, "game {}", s.number);
            assert_eq!(rs.cube, rm.cube);
            let keys = |r: &crate::mat::Replay| r.rolls.iter().map(roll_key).collect::<Vec<_>>();
            assert_eq!(keys(&rs), keys(&rm), "game {}", s.number);
        }
    }

    #[test]
    fn point_letters_are_absolute() {
        // White 24/21 13/11 is `xumk`; black 8/7 13/7 is `qrlr` (mover's numbering).
        let w = read_move(0, "32xumk").unwrap();
        assert_eq!(w.to_string(), "32: 24/21 13/11");
        let b = read_move(1, "61qrlr").unwrap();
        assert_eq!(b.to_string(), "61: 8/7 13/7");
        assert_eq!(
            read_move(0, "32yvxv").unwrap().to_string(),
            "32: bar/22 24/22"
        );
        assert_eq!(
            read_move(1, "53tzvz").unwrap().to_string(),
            "53: 5/off 3/off"
        );
        assert_eq!(read_move(0, "62").unwrap().to_string(), "62:");
    }

    #[test]
    fn analysis_properties_are_skipped() {
        let v = vectors();
        let mut node = text(&v["sgf_files"][1]["text"]);
        assert!(node.starts_with("W[32xumk]A["));
        // The vector is cut inside a value: close it, with an escaped `]` in another one.
        node.push_str("]MR[a \\] b]");
        let sgf = format!(
            "(;FF[4]GM[6]MI[length:5][game:0][ws:0][bs:0]PW[gnubg]PB[root]RU[Crawford]\n;{node}\n)\n"
        );
        let r = MatchRecord::parse_sgf(&sgf).unwrap();
        let turns = &r.games[0].turns;
        assert_eq!(turns.len(), 1);
        let Action::Move(m) = &turns[0].action else {
            panic!()
        };
        assert_eq!(m.to_string(), "32: 24/21 13/11");
        assert_eq!(r.games[0].replay().unwrap().rolls.len(), 1);
    }

    #[test]
    fn set_up_nodes_are_read() {
        let v = vectors();
        // SGF3: gnubg's set-up nodes alone (board, cube, turn, dice), no move.
        let r = MatchRecord::parse_sgf(&file(&v, "sgf_files", "SGF3")).unwrap();
        let setups: Vec<&SetUp> = r.games[0]
            .turns
            .iter()
            .map(|t| match &t.action {
                Action::SetUp(s) => s,
                a => panic!("not a set-up: {a:?}"),
            })
            .collect();
        assert_eq!(setups.len(), 5);
        assert_eq!(setups[0].to_move, Some(1));
        assert_eq!(setups[0].dice, Some(Roll::from_values(5, 2)));
        let board = setups[1].board.unwrap();
        // White: 2 on its 5-point, 4 on the 6, 2 on the 8, 5 on the 13, 2 on the 24.
        let mut white = [0u8; 25];
        for (p, n) in [(5, 2), (6, 4), (8, 2), (13, 5), (24, 2)] {
            white[p - 1] = n;
        }
        assert_eq!(board[0], white);
        assert_eq!(board[1].iter().sum::<u8>(), 15);
        assert_eq!(
            (board[1][5], board[1][23]),
            (5, 2),
            "black's 6- and 24-points"
        );
        assert_eq!(setups[2].cube, Some(2));
        assert_eq!(setups[3].cube_owner, Some(Some(1)));
        assert_eq!(r.games[0].turns[1].line, 3);
        let replay = r.games[0].replay().unwrap();
        assert!(replay.rolls.is_empty() && replay.cube);
        let e = r.to_mat().unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.to_string().contains("cannot hold"), "{e}");
        let back = MatchRecord::parse_sgf(&r.to_sgf()).unwrap();
        let actions = |r: &MatchRecord| -> Vec<Action> {
            r.games[0].turns.iter().map(|t| t.action.clone()).collect()
        };
        assert_eq!(actions(&back), actions(&r));
        // A move from a set-up board, by either player, is no opening roll.
        let sgf = "(;GM[6];AE[a:y]AW[a][a]AB[x][w];W[11azaz]";
        let r = MatchRecord::parse_sgf(&format!("{sgf})")).unwrap();
        let replay = r.games[0].replay().unwrap();
        assert!(!replay.rolls[0].opening);
        assert_eq!(replay.result, Some((0, 1)));
        let e = MatchRecord::parse_sgf(&format!("{sgf};B[21xzwz])"))
            .unwrap()
            .games[0]
            .replay()
            .unwrap_err();
        assert!(e.to_string().contains("game is over"), "{e}");
    }

    #[test]
    fn set_up_games_go_on_from_their_board() {
        let replay = |sgf: &str| MatchRecord::parse_sgf(sgf).unwrap().games[0].replay();
        // Black on the bar (`y`) and on its 6-point (`s`) moves first after the set-up.
        let sgf = "(;GM[6];AE[a:y]AW[f][f]AB[y][s];B[61yaag])";
        let r = replay(sgf).unwrap();
        assert_eq!((r.rolls[0].player, r.rolls[0].opening), (1, false));
        assert_eq!(r.rolls[0].position.bar(), 1);
        let written = MatchRecord::parse_sgf(sgf).unwrap().to_sgf();
        assert!(
            written.contains("\n;AE[a:y]AW[f][f]AB[s][y]\n;B[61yaag])"),
            "{written}"
        );
        // A set-up after the game ended starts it again; a board with one side all off has ended.
        let r = replay("(;GM[6];AE[a:y]AW[a]AB[x];W[11az];AE[a:y]AW[b]AB[x];B[21xz])").unwrap();
        assert_eq!(r.result, Some((1, 1)));
        assert_eq!(
            replay("(;GM[6];AE[a:y]AB[x])").unwrap().result,
            Some((0, 1))
        );
        let e = replay("(;GM[6];AE[a:y]AB[x];B[21xz])").unwrap_err();
        assert!(e.to_string().contains("game is over"), "{e}");
        // Doubles set by hand are no opening roll; other dice set at the start are.
        let r = replay("(;GM[6];PL[W]DI[33];W[33mjmjxuxu])").unwrap();
        assert!(!r.rolls[0].opening);
        // A node with a set-up and a move holds both, in that order.
        let record = MatchRecord::parse_sgf("(;GM[6];PL[W]DI[31]W[31hefe])").unwrap();
        let turns = &record.games[0].turns;
        assert!(matches!(turns[0].action, Action::SetUp(_)));
        assert!(matches!(turns[1].action, Action::Move(_)));
        assert!(record.games[0].replay().unwrap().rolls[0].opening);
        assert!(record.to_sgf().ends_with("\n;PL[W]DI[31]\n;W[31hefe])\n"));
    }

    #[test]
    fn set_up_errors_name_the_property() {
        let cases = [
            ("AW[e]", "AW[e]: checkers placed without clearing"),
            ("AE[a:b]AW[e]", "AE[a:b]: only the whole board"),
            ("AE[a:y]AW[z]", "`z` is not a point letter"),
            (
                "AE[a:y]AW[a][a][a][a][a][a][a][a][a][a][a][a][a][a][a][b]",
                "AW: the set-up board is not a position (16 white",
            ),
            (
                "AE[a:y]AW[a]AB[a]",
                "AW: the set-up board is not a position (white's 1-point",
            ),
            ("AE[a:y]AE[a:y][a:b]", "AE[a:b]: only the whole board"),
            ("DI[72]", "DI[72]: the dice"),
            ("DI[4]", "DI[4]: the dice"),
            ("PL[X]", "PL[X]: the player"),
            ("CP[x]", "CP[x]: the cube"),
            ("CV[3]", "CV[3]: a cube value"),
            ("PL[W][B]", "one value"),
        ];
        for (props, what) in cases {
            let sgf = format!("(;GM[6]MI[length:0]\n;W[31hefe]\n;{props})");
            let e = MatchRecord::parse_sgf(&sgf).unwrap_err();
            assert_eq!((e.game, e.line), (Some(1), 3), "{props}: {e}");
            assert!(e.to_string().contains(what), "{props}: {e}");
        }
        // At the root, CV is the starting cube; after it, a set-up value the next double doubles.
        let r = MatchRecord::parse_sgf("(;GM[6]CV[2];B[double];W[drop]RE[B+2])").unwrap();
        assert_eq!(r.games[0].turns[0].action, Action::Double(4));
        let r = MatchRecord::parse_sgf("(;GM[6];CV[4];B[double])").unwrap();
        assert_eq!(r.games[0].turns[1].action, Action::Double(8));
    }

    #[test]
    fn beavers_and_variations() {
        let r = MatchRecord::parse_sgf(
            "(;GM[6]MI[length:0];W[31hefe](;B[double];W[double];B[take];B[62agln])(;B[62]))",
        )
        .unwrap();
        let actions: Vec<&Action> = r.games[0].turns.iter().map(|t| &t.action).collect();
        assert_eq!(actions[1], &Action::Double(2));
        assert_eq!(actions[2], &Action::Beaver(4));
        assert_eq!(actions.len(), 5);
        assert_eq!(r.games[0].replay().unwrap().rolls.len(), 2);
    }

    #[test]
    fn errors_name_game_line_and_offset() {
        let head = "(;GM[6]MI[length:5][game:0][ws:0][bs:0]\n;W[31hefe]\n;B[62agln])\n";
        let cases: [(&str, Option<usize>, usize, &str); 12] = [
            ("", None, 1, "no game tree"),
            ("hello", None, 1, "starts with a game tree"),
            ("(;GM[6];W[31hefe]", Some(1), 1, "`)` missing"),
            ("(;GM[6];W[31hefe", Some(1), 1, "`]` missing"),
            ("(;GM[1])", Some(1), 1, "GM[6]"),
            ("(;GM[6]\n;W[71hefe])", Some(1), 2, "two dice"),
            ("(;GM[6]\n;W[31hefez])", Some(1), 2, "pairs"),
            (
                "(;GM[6]\n;W[31he!i])",
                Some(1),
                2,
                "`!` is not a point letter",
            ),
            (
                "(;GM[6]\n;W[31ehmi])",
                Some(1),
                2,
                "white cannot move from 5 to 8",
            ),
            (
                "(;GM[6]\n;B[31zaya])",
                Some(1),
                2,
                "black cannot move from off",
            ),
            ("(;GM[6]RE[X+1])", Some(1), 1, "RE[X+1]"),
            ("(;GM[6]RU[Nackgammon])", Some(1), 1, "Nackgammon"),
        ];
        for (text, game, line, what) in cases {
            let e = MatchRecord::parse_sgf(text).unwrap_err();
            assert_eq!((e.game, e.line), (game, line), "{text:?}: {e}");
            assert!(e.to_string().contains(what), "{text:?}: {e}");
        }
        // The second game's errors say so, with their line and offset.
        let text =
            format!("{head}(;GM[6]MI[length:5][game:1]\n;W[31hefe]\n;B[62agln]\n;W[double]x)");
        let e = MatchRecord::parse_sgf(&text).unwrap_err();
        assert_eq!((e.game, e.line), (Some(2), 7), "{e}");
        assert_eq!(&text[e.offset..=e.offset], "x");
        let e = MatchRecord::parse_sgf(&format!("{head}(;GM[6]MI[length:7])")).unwrap_err();
        assert!(
            e.to_string().contains("game 2") && e.to_string().contains("7-point"),
            "{e}"
        );
        // Replay errors name the node's line.
        let r = MatchRecord::parse_sgf("(;GM[6]\n;W[31hefe]\n;W[31hefe])").unwrap();
        let e = r.games[0].replay().unwrap_err();
        assert_eq!(e.line, 3, "{e}");
    }

    #[test]
    fn records_are_read_by_content() {
        let v = vectors();
        let sgf = file(&v, "sgf_files", "SGF1");
        let mat = file(&v, "mat_files", "MAT2");
        assert!(is_sgf(&format!("\u{feff}\n  ( ;{sgf}")));
        assert!(!is_sgf(&mat));
        assert_eq!(parse_record(&sgf).unwrap().games.len(), 4);
        assert_eq!(parse_record(&mat).unwrap().games.len(), 4);
        let e = parse_record("\n; comment\nhello there\n").unwrap_err();
        assert!(matches!(e, RecordError::Neither { line: 3, .. }), "{e}");
        assert!(e.to_string().contains("hello there"), "{e}");
        assert!(!e.to_string().contains('\n'));
        let e = parse_record("   ").unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        let e = parse_record("(;GM[6];W[77])").unwrap_err();
        assert!(e.to_string().starts_with("SGF game 1, line 1"), "{e}");
        let e = parse_record(" 5 point match\n Game x\n").unwrap_err();
        assert!(
            matches!(e, RecordError::Mat(MatError { line: 2, .. })),
            "{e}"
        );
    }

    /// Every prefix of gnubg's record, and the record with each byte deleted or replaced by
    /// a character that matters to the syntax: an error or a record, never a panic, and the
    /// games of a record replay or fail without panicking.
    #[test]
    fn truncated_and_mangled_records_never_panic() {
        let v = vectors();
        let sgf = file(&v, "sgf_files", "SGF1");
        let check = |s: &str| {
            match MatchRecord::parse_sgf(s) {
                Ok(r) => {
                    for g in &r.games {
                        let _ = g.replay().map_err(|e| e.to_string());
                    }
                }
                Err(e) => {
                    assert!(e.offset <= s.len(), "{e}");
                    let _ = e.to_string();
                }
            }
            let _ = parse_record(s).map_err(|e| e.to_string());
        };
        for cut in 0..=sgf.len() {
            check(&sgf[..cut]);
        }
        let short = &sgf[..sgf.find("\n(;").unwrap()];
        let subs = [
            "", "(", ")", "[", "]", ";", "\\", "z", "y", "9", "é", "W", "\n",
        ];
        for i in 0..short.len() {
            for s in subs {
                let mut t = short.to_string();
                t.replace_range(i..=i, s);
                check(&t);
            }
        }
    }
}
