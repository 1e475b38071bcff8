//! Jellyfish `.mat` match records, read leniently (SPEC-match-records.md, section 1).
//!
//! [`MatchRecord::parse`] reads the text gnubg's `export match mat` writes (and the session
//! files of `match-vs-external --mat`) into games of [`Turn`]s, each the action of the left or
//! the right player: a roll and its moves ([`PlayText`]), a double, a take, a drop or a win.
//! Lines are read by tokens, not by columns: an action starts at a `dd:` token or at
//! `Doubles`, `Beavers`, `Takes`, `Drops` or `Wins`, and a line's first action belongs to the
//! right player when the left half before it is blank. Of the header tags (`; [Name "value"]`)
//! three are read, as eXtreme Gammon writes them: `Jacoby` and `Beaver` (`"On"` or `"Off"`: the
//! rules of a money session) and `Variation` (`"Backgammon"`; any other, such as gnubg's
//! `"NackGammon"`, is refused, since the games are replayed from the standard starting
//! position). Other tags and unknown lines between games are skipped. A leading byte-order mark
//! is skipped; `Wins n points and the match` (Jellyfish, eXtreme Gammon) is a result.
//!
//! [`GameRecord::replay`] plays a game's moves from the starting position, checking each
//! against the legal plays, and gives every roll with the position it was thrown in.
//!
//! [`MatchRecord::to_mat`] writes a record back as gnubg writes it (columns, `25`/`0`, every
//! sub-move on its own); [`GameRecord::push_play`] builds a game as it is played.
//!
//! A game may also hold set-up turns ([`Action::SetUp`]: a board, the player to move, the
//! dice or the cube set by hand), which SGF records carry and `.mat` cannot: they are read
//! from SGF, replayed, and written back to SGF; `to_mat` refuses a record that has one.
//!
//! Errors name the line (from 1) and what is wrong on it.

use std::fmt;

use tavla_core::{Board, CubeResponse, Play, Position, Roll};

use crate::moves::PlayText;

/// The left (first-named) or the right player of a record.
pub type Column = usize;

/// The players' columns in words, for errors.
const WHO: [&str; 2] = ["left", "right"];

/// One player's action on a turn line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A roll and the moves played with it (none when the player could not move).
    Move(PlayText),
    /// Doubles to this cube value.
    Double(u32),
    /// Beavers to this cube value.
    Beaver(u32),
    /// Takes the cube.
    Take,
    /// Drops the cube.
    Drop,
    /// Wins this many points: the game's result.
    Wins(u32),
    /// A position, turn, dice or cube set by hand (an SGF set-up node; `.mat` has none).
    SetUp(SetUp),
}

impl Action {
    /// The action in words, for errors: `a move`, `a double`, ...
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Action::Move(_) => "a move",
            Action::Double(_) => "a double",
            Action::Beaver(_) => "a beaver",
            Action::Take => "a take",
            Action::Drop => "a drop",
            Action::Wins(_) => "a result",
            Action::SetUp(_) => "a set-up",
        }
    }
}

/// What a set-up turn sets; `None` leaves that part as it was.
///
/// After a set-up the next move may be either player's: gnubg's set-up nodes do not always
/// name the player who moves next (its `set turn` writes no node), so the moves say who moves.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SetUp {
    /// Each player's checkers (0 left, 1 right), in the owner's numbering: index `i` (0..=23)
    /// is its point `i + 1`, index 24 its bar; those not on the board are borne off. Always a
    /// legal position (at most 15 checkers a side, no point held by both).
    pub board: Option<[[u8; 25]; 2]>,
    /// The player on roll (SGF `PL`).
    pub to_move: Option<Column>,
    /// The dice set for the next roll (SGF `DI`).
    pub dice: Option<Roll>,
    /// The cube's value (SGF `CV`).
    pub cube: Option<u32>,
    /// The cube's owner (SGF `CP`): `Some(None)` centred, `Some(Some(player))` owned.
    pub cube_owner: Option<Option<Column>>,
}

impl SetUp {
    /// The board of `board` seen from `player` (0 left, 1 right) on roll.
    #[must_use]
    pub fn position(board: &[[u8; 25]; 2], player: Column) -> Option<Position> {
        Position::try_from(Board {
            on_roll: board[player],
            opponent: board[1 - player],
        })
        .ok()
    }
}

/// An action and who took it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// 0 for the left player, 1 for the right (for a set-up, the player it names on roll, or
    /// 0).
    pub player: Column,
    /// What the player did.
    pub action: Action,
    /// The line it was read from (from 1).
    pub line: usize,
}

/// One game of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// The number written after `Game`.
    pub number: u32,
    /// The scores before the game (left, right).
    pub scores: [u32; 2],
    /// The actions in order.
    pub turns: Vec<Turn>,
    /// The line of its `Game` header (from 1).
    pub line: usize,
    /// The line that gives the scores before it: in `.mat` the score line after the header, in
    /// SGF the game's own line.
    pub score_line: usize,
    /// Whether it is the Crawford game, where the record says (SGF's `RU[Crawford:CrawfordGame]`
    /// against `RU[Crawford]`, or a game played by tavla); `None` where it does not (`.mat`),
    /// and [`MatchRecord::crawford_games`] infers it from the scores.
    pub crawford: Option<bool>,
    /// The cube's value as the game starts: 1, or what gnubg's automatic doubles made it in a
    /// money session (SGF's root `CV`; a power of two up to 32768). `.mat` cannot say it: it
    /// reads as 1, and [`MatchRecord::to_mat`] writes the game's cube values and points as
    /// though the cube had started at 1, as gnubg's export does.
    pub cube: u32,
}

/// A whole `.mat` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchRecord {
    /// The match length; 0 for a money session.
    pub length: u32,
    /// The players' names (left, right), from the first game's score line.
    pub players: [String; 2],
    /// The games in order.
    pub games: Vec<GameRecord>,
    /// Money games played under the Jacoby rule: SGF's `RU[Jacoby]`, `.mat`'s
    /// `; [Jacoby "On"]` (false in a match, whatever the file says).
    pub jacoby: bool,
    /// Money games played with beavers allowed: `.mat`'s `; [Beaver "On"]` (SGF cannot say, and
    /// reads as false; false in a match).
    pub beavers: bool,
    /// Whether the match is played under the Crawford rule: true unless the record says it is
    /// not (an SGF match whose `RU` has no `Crawford`, as gnubg writes a match played without
    /// it). `.mat` cannot say; see [`MatchRecord::crawford_rule`]. Meaningless for money.
    pub crawford: bool,
}

/// A `.mat` text that cannot be read, or a game whose moves cannot be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatError {
    /// The line at fault (from 1).
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for MatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Line 0: a record built, not read (`GameRecord::push`).
        if self.line == 0 {
            write!(f, "{}", self.problem)
        } else {
            write!(f, "line {}: {}", self.line, self.problem)
        }
    }
}

impl std::error::Error for MatError {}

/// A game of a record that cannot be played through, or that does not fit the record
/// ([`MatchRecord::replay`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameError {
    /// The number written after `Game`.
    pub game: u32,
    /// What is wrong, and its line.
    pub error: MatError,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}: {}", self.game, self.error)
    }
}

impl std::error::Error for GameError {}

fn err(line: usize, problem: impl Into<String>) -> MatError {
    MatError {
        line,
        problem: problem.into(),
    }
}

/// Whether a token starts an action.
fn starts_action(token: &str) -> bool {
    is_roll_token(token) || matches!(token, "Doubles" | "Beavers" | "Takes" | "Drops" | "Wins")
}

/// `dd:` with two dice 1 to 6.
fn is_roll_token(token: &str) -> bool {
    let b = token.as_bytes();
    b.len() == 3 && (b'1'..=b'6').contains(&b[0]) && (b'1'..=b'6').contains(&b[1]) && b[2] == b':'
}

/// The whitespace-separated tokens of `text` with their byte offsets (each token is a slice
/// of `text`, so its offset is the distance between the two starts).
fn tokens(text: &str) -> Vec<(usize, &str)> {
    text.split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect()
}

/// Reads one action from its tokens.
fn action(words: &[&str], line: usize) -> Result<Action, MatError> {
    let text = words.join(" ");
    let value = |i: usize, what: &str| -> Result<u32, MatError> {
        words
            .get(i)
            .and_then(|w| w.parse::<u32>().ok())
            .ok_or_else(|| err(line, format!("`{text}`: no {what}")))
    };
    let expect_len = |n: usize, a: Action| -> Result<Action, MatError> {
        if words.len() == n {
            Ok(a)
        } else {
            Err(err(line, format!("`{text}`: unexpected words after it")))
        }
    };
    match words[0] {
        "Doubles" | "Beavers" => {
            if words.get(1) != Some(&"=>") {
                return Err(err(
                    line,
                    format!("`{text}`: `=>` expected after {}", words[0]),
                ));
            }
            let v = value(2, "cube value")?;
            // The cube shows 2 to 2^15 once turned, as gnubg's Match ID holds it.
            if !(2..=1 << 15).contains(&v) || !v.is_power_of_two() {
                return Err(err(
                    line,
                    format!("`{text}`: a cube value is a power of two from 2 to 32768"),
                ));
            }
            let a = if words[0] == "Doubles" {
                Action::Double(v)
            } else {
                Action::Beaver(v)
            };
            expect_len(3, a)
        }
        "Takes" => expect_len(1, Action::Take),
        "Drops" => expect_len(1, Action::Drop),
        "Wins" => {
            let v = value(1, "number of points")?;
            match words.get(2) {
                // Jellyfish and eXtreme Gammon write the last game's result as `Wins 3 points
                // and the match`; gnubg reads it as the result.
                Some(&("point" | "points")) if words[3..] == ["and", "the", "match"] => {
                    Ok(Action::Wins(v))
                }
                Some(&("point" | "points")) => expect_len(3, Action::Wins(v)),
                _ => Err(err(line, format!("`{text}`: `points` expected"))),
            }
        }
        _ => text
            .parse::<PlayText>()
            .map(Action::Move)
            .map_err(|e| err(line, format!("`{text}`: {e}"))),
    }
}

/// Reads the actions of a turn line's text after its `n)` into `out`. The left half's first
/// action starts within a few characters of the `)`, the right half's about 28 characters in,
/// so a first action 15 or more characters in belongs to the right player.
fn line_actions(rest: &str, line: usize, out: &mut Vec<Turn>) -> Result<(), MatError> {
    let toks = tokens(rest);
    // Dice that are not two dice: `77:`, `5:`, `123:`.
    if let Some((_, t)) = toks.iter().find(|(_, t)| {
        t.strip_suffix(':')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            && !is_roll_token(t)
    }) {
        return Err(err(
            line,
            format!("`{t}`: not a roll: two dice of 1 to 6 and a colon, as `31:`"),
        ));
    }
    let mut starts: Vec<usize> = Vec::new();
    for (i, (_, t)) in toks.iter().enumerate() {
        if starts_action(t) {
            starts.push(i);
        }
    }
    let Some(&first) = starts.first() else {
        if toks.is_empty() {
            return Ok(());
        }
        return Err(err(
            line,
            format!(
                "`{}`: not a roll (`dd:`) nor a cube action nor a result",
                rest.trim()
            ),
        ));
    };
    if first != 0 {
        return Err(err(
            line,
            format!("`{}` before the first action", toks[0].1),
        ));
    }
    if starts.len() > 2 {
        return Err(err(line, "more than two actions on one line"));
    }
    // A blank left half: the first action starts in the right half.
    let right_first = toks[0].0 >= 15;
    if right_first && starts.len() == 2 {
        return Err(err(line, "two actions in the right half of a line"));
    }
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(toks.len());
        let words: Vec<&str> = toks[s..end].iter().map(|&(_, w)| w).collect();
        out.push(Turn {
            player: usize::from(right_first || k == 1),
            action: action(&words, line)?,
            line,
        });
    }
    Ok(())
}

/// `raw` with each tab replaced by the spaces up to the next multiple of 8 columns, as a
/// terminal shows it. A record laid out with tabs (an editor's "tabify") keeps its two halves
/// where the eye sees them, and a turn line's halves are told apart by column.
fn expand_tabs(raw: &str) -> std::borrow::Cow<'_, str> {
    if !raw.contains('\t') {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len() + 32);
    let mut column = 0;
    for c in raw.chars() {
        if c == '\t' {
            let next = (column / 8 + 1) * 8;
            out.extend(std::iter::repeat_n(' ', next - column));
            column = next;
        } else {
            out.push(c);
            column += 1;
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Reads ` name : score        name : score`.
fn score_line(text: &str, line: usize) -> Result<([String; 2], [u32; 2]), MatError> {
    let bad = || {
        err(
            line,
            format!("`{}`: not `name : score   name : score`", text.trim()),
        )
    };
    let (name0, rest) = text.split_once(" : ").ok_or_else(bad)?;
    let rest = rest.trim_start();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let score0 = rest[..digits].parse::<u32>().map_err(|_| bad())?;
    let (name1, score1) = rest[digits..].rsplit_once(" : ").ok_or_else(bad)?;
    let score1 = score1.trim().parse::<u32>().map_err(|_| bad())?;
    let (name0, name1) = (name0.trim(), name1.trim());
    if name0.is_empty() || name1.is_empty() {
        return Err(bad());
    }
    Ok(([name0.to_string(), name1.to_string()], [score0, score1]))
}

impl MatchRecord {
    /// Reads a `.mat` text.
    ///
    /// # Errors
    /// [`MatError`] naming the line and what is wrong: no `point match` line, a game without
    /// its score line, a turn line that is not actions, move text that is not move notation.
    pub fn parse(text: &str) -> Result<MatchRecord, MatError> {
        let mut length = None;
        let mut players: Option<[String; 2]> = None;
        let mut games: Vec<GameRecord> = Vec::new();
        let mut need_scores = false;
        let mut rules = Rules::default();
        // A byte-order mark (Windows editors save one) is not part of the first line.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let expanded = expand_tabs(raw);
            let raw: &str = &expanded;
            let trimmed = raw.trim();
            if let Some(comment) = trimmed.strip_prefix(';') {
                if games.is_empty() {
                    rules.read_tag(comment, line)?;
                }
                continue;
            }
            if trimmed.is_empty() {
                continue;
            }
            if need_scores {
                let (names, scores) = score_line(raw, line)?;
                let game = games.last_mut().expect("a game was started");
                game.scores = scores;
                game.score_line = line;
                players.get_or_insert(names);
                need_scores = false;
                continue;
            }
            let words: Vec<&str> = trimmed.split_whitespace().collect();
            if length.is_none() {
                if words.len() == 3 && words[1] == "point" && words[2] == "match" {
                    length = Some(words[0].parse::<u32>().map_err(|_| {
                        err(
                            line,
                            format!("`{}`: the match length is not a number", words[0]),
                        )
                    })?);
                    continue;
                }
                return Err(err(
                    line,
                    format!("`{trimmed}`: a record starts with `N point match`"),
                ));
            }
            if words[0] == "Game" {
                let number = words
                    .get(1)
                    .filter(|_| words.len() == 2)
                    .and_then(|w| w.parse::<u32>().ok())
                    .ok_or_else(|| err(line, format!("`{trimmed}`: not `Game N`")))?;
                // Every writer numbers games in order; a number out of order is a game pasted
                // twice or lost, and would make the game named in every later message doubtful.
                if let Some(before) = games.last() {
                    if Some(number) != before.number.checked_add(1) {
                        return Err(err(
                            line,
                            format!(
                                "`{trimmed}` follows game {} (line {}): games are numbered in order",
                                before.number, before.line
                            ),
                        ));
                    }
                }
                games.push(GameRecord {
                    number,
                    scores: [0, 0],
                    turns: Vec::new(),
                    line,
                    score_line: line,
                    crawford: None,
                    cube: 1,
                });
                need_scores = true;
                continue;
            }
            let Some(game) = games.last_mut() else {
                return Err(err(
                    line,
                    format!("`{trimmed}` before the first `Game` line"),
                ));
            };
            // A numbered turn line, `  n) ...`, or a result line on its own.
            let numbered = words[0]
                .strip_suffix(')')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            let rest = if numbered {
                let paren = raw.find(')').expect("numbered lines have `)`");
                &raw[paren + 1..]
            } else if words[0] == "Wins" {
                // The winner's column by the indentation: the right half starts 34 characters in.
                let indent = raw.len() - raw.trim_start().len();
                game.turns.push(Turn {
                    player: usize::from(indent >= 20),
                    action: action(&words, line)?,
                    line,
                });
                continue;
            } else {
                return Err(err(
                    line,
                    format!("`{trimmed}`: not a turn line (`n) ...`), a result or `Game N`"),
                ));
            };
            line_actions(rest, line, &mut game.turns)?;
        }
        if need_scores {
            return Err(err(
                games.last().map_or(1, |g| g.line),
                "the game has no score line",
            ));
        }
        let Some(length) = length else {
            return Err(err(1, "no `N point match` line"));
        };
        if let (0, Some(e)) = (length, rules.unreadable) {
            return Err(e);
        }
        Ok(MatchRecord {
            length,
            players: players.unwrap_or_default(),
            games,
            jacoby: rules.jacoby && length == 0,
            beavers: rules.beavers && length == 0,
            crawford: true,
        })
    }
}

/// The rules a `.mat` file's header tags state.
#[derive(Default)]
struct Rules {
    jacoby: bool,
    beavers: bool,
    /// A rule's value neither `On` nor `Off`: an error in a money session (where the rules
    /// count), ignored in a match.
    unreadable: Option<MatError>,
}

impl Rules {
    /// Reads a comment line after its `;`: a header tag `[Name "value"]` sets a rule where it
    /// names one; anything else is skipped.
    fn read_tag(&mut self, comment: &str, line: usize) -> Result<(), MatError> {
        let Some((name, value)) = comment
            .trim()
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .and_then(|t| t.trim_end().split_once('"'))
            .and_then(|(name, rest)| Some((name.trim(), rest.strip_suffix('"')?.trim())))
        else {
            return Ok(());
        };
        let mut on_off = |rule: &mut bool| {
            match value.to_ascii_lowercase().as_str() {
                "on" => *rule = true,
                "off" => *rule = false,
                _ => {
                    self.unreadable.get_or_insert(err(
                        line,
                        format!("[{name} \"{value}\"]: the value is \"On\" or \"Off\""),
                    ));
                }
            }
            Ok(())
        };
        match name.to_ascii_lowercase().as_str() {
            "jacoby" => on_off(&mut self.jacoby),
            "beaver" | "beavers" => on_off(&mut self.beavers),
            "variation" if !value.eq_ignore_ascii_case("backgammon") => Err(err(
                line,
                format!(
                    "[{name} \"{value}\"]: only backgammon is supported (games are replayed \
                     from the standard starting position)"
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// The text of an action in a turn line: moves as `.mat` writes them, cube actions and results
/// with gnubg's leading space. In the right half gnubg leaves a space after a move of fewer
/// than four sub-moves and after a result.
///
/// `scale` is the game's starting cube ([`GameRecord::cube`]): cube values and points are
/// written divided by it, as gnubg's export writes a game its automatic doubles started at a
/// higher cube.
fn action_text(action: &Action, right: bool, scale: u32) -> String {
    let scale = scale.max(1);
    match action {
        Action::Move(text) => {
            let mut s = text.to_mat_string();
            if right && text.pairs().len() < 4 {
                s.push(' ');
            }
            s
        }
        Action::Double(v) => format!(" Doubles => {}", v / scale),
        Action::Beaver(v) => format!(" Beavers => {}", v / scale),
        Action::Take => " Takes".to_string(),
        Action::Drop => " Drops".to_string(),
        Action::Wins(p) => {
            let p = (p / scale).max(1);
            let s = format!(" Wins {p} point{}", if p == 1 { "" } else { "s" });
            if right {
                s + " "
            } else {
                s
            }
        }
        // Refused before writing (`MatchRecord::to_mat`).
        Action::SetUp(_) => String::new(),
    }
}

/// A player's name as a `.mat` score line can hold it: control characters as spaces, every `:`
/// as `-` (gnubg's reader ends the name at the first colon, and fails on the rest of the line;
/// tavla's at ` : `), without leading `;` (a line starting with one is a comment), trimmed;
/// `fallback` for a blank name.
fn mat_name(name: &str, fallback: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| match c {
            ':' => '-',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let cleaned = cleaned
        .trim_start_matches(|c: char| c == ';' || c.is_whitespace())
        .trim_end();
    if cleaned.is_empty() {
        fallback.to_string()
    } else {
        cleaned.to_string()
    }
}

impl GameRecord {
    /// An empty game numbered `number` (from 1), the scores before it `scores` (left, right).
    #[must_use]
    pub fn new(number: u32, scores: [u32; 2]) -> GameRecord {
        GameRecord {
            number,
            scores,
            turns: Vec::new(),
            line: 0,
            score_line: 0,
            crawford: None,
            cube: 1,
        }
    }

    /// Adds `player`'s (0 left, 1 right) play of `roll` in `pos` (seen from the player), in
    /// gnubg's plain form ([`PlayText::plain`]); the empty play for a roll that cannot move.
    pub fn push_play(&mut self, player: Column, pos: &Position, roll: Roll, play: &Play) {
        self.push(player, Action::Move(PlayText::plain(pos, roll, play)));
    }

    /// Adds an action by `player` (0 left, 1 right); a built turn's line is 0.
    pub fn push(&mut self, player: Column, action: Action) {
        self.turns.push(Turn {
            player,
            action,
            line: 0,
        });
    }

    /// Writes the game as gnubg's `export match mat` does: ` Game n`, the score line, then
    /// numbered turn lines, the left player's action padded to 27 characters and a space, then
    /// the right player's; a result after the last move, or after the right player's drop, on
    /// a line of its own in the winner's column, one after the left player's drop beside it.
    fn write_mat(&self, players: &[String; 2], out: &mut String) {
        use std::fmt::Write as _;
        let _ = writeln!(out, " Game {}", self.number);
        let left_score = format!("{} : {}", mat_name(&players[0], "Left"), self.scores[0]);
        // gnubg pads the left half to 31 bytes (`%-31s`: a name with letters beyond ASCII gets
        // fewer spaces than its characters suggest); a longer one keeps a space after it.
        let gap = " ".repeat(31usize.saturating_sub(left_score.len()).max(1));
        let _ = writeln!(
            out,
            " {left_score}{gap}{} : {}",
            mat_name(&players[1], "Right"),
            self.scores[1]
        );
        let mut n = 0u32;
        let mut pending: Option<String> = None;
        let flush = |pending: &mut Option<String>, n: &mut u32, out: &mut String| {
            if let Some(left) = pending.take() {
                *n += 1;
                let _ = writeln!(out, "{n:>3}) {left:<27} ");
            }
        };
        for (i, turn) in self.turns.iter().enumerate() {
            let after_drop = i > 0 && self.turns[i - 1].action == Action::Drop;
            match &turn.action {
                // A result on a line of its own, unnumbered: after the last move, or after the
                // right player's drop (the left's result cannot sit beside it).
                Action::Wins(_) if !after_drop || turn.player == 0 => {
                    flush(&mut pending, &mut n, out);
                    let text = action_text(&turn.action, false, self.cube);
                    let indent = if turn.player == 0 { 5 } else { 33 };
                    let _ = writeln!(out, "{:indent$}{text}", "");
                }
                action if turn.player == 0 => {
                    flush(&mut pending, &mut n, out);
                    pending = Some(action_text(action, false, self.cube));
                }
                action => {
                    n += 1;
                    let left = pending.take().unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "{n:>3}) {left:<27} {}",
                        action_text(action, true, self.cube)
                    );
                }
            }
        }
        flush(&mut pending, &mut n, out);
        out.push('\n');
    }
}

impl MatchRecord {
    /// A record with no games yet: `length` 0 for a money session; `players` left and right.
    #[must_use]
    pub fn new(length: u32, players: [String; 2]) -> MatchRecord {
        MatchRecord {
            length,
            players,
            games: Vec::new(),
            jacoby: false,
            beavers: false,
            crawford: true,
        }
    }

    /// Plays every game through ([`GameRecord::replay`]) and checks it against the record: a
    /// written result is worth what the cube and the game's end make it (a pass: the cube
    /// before the double, to the doubler; a game finished on the board: 1, 2 or 3 times the
    /// cube, or 1 for a gammon with the cube never turned in money play, the Jacoby rule,
    /// which not every writer tags; a resignation: 1, 2 or 3 times the cube; in a match,
    /// also any smaller number that still wins the match). In a match, besides, each score
    /// line must follow from the results before it, no game may start once the match is won,
    /// the Crawford game has no double, and no side doubles where the cube is dead for it (its
    /// single win at the cube's value would end the match).
    ///
    /// # Errors
    /// [`GameError`]: the first game that cannot be played through or does not fit, and the
    /// line at fault.
    pub fn replay(&self) -> Result<Vec<Replay>, GameError> {
        let crawford = self.crawford_games();
        let mut replays: Vec<Replay> = Vec::with_capacity(self.games.len());
        for (g, game) in self.games.iter().enumerate() {
            let fail = |error: MatError| GameError {
                game: game.number,
                error,
            };
            let replay = game.replay().map_err(fail)?;
            if self.length > 0 {
                let [a, b] = game.scores;
                if a >= self.length || b >= self.length {
                    return Err(fail(err(
                        game.score_line,
                        format!(
                            "the match is already over: {a}-{b} in a {}-point match",
                            self.length
                        ),
                    )));
                }
                if let (Some(before), Some(prev)) = (g.checked_sub(1), replays.last()) {
                    if let Some((winner, points)) = prev.result {
                        let mut after = self.games[before].scores;
                        after[winner] = after[winner].saturating_add(points);
                        if after != game.scores {
                            return Err(fail(err(
                                game.score_line,
                                format!(
                                    "the score line says {a}-{b}, but game {} left it at {}-{}",
                                    self.games[before].number, after[0], after[1]
                                ),
                            )));
                        }
                    }
                }
                if crawford[g] {
                    if let Some(t) = game
                        .turns
                        .iter()
                        .find(|t| matches!(t.action, Action::Double(_) | Action::Beaver(_)))
                    {
                        return Err(fail(err(t.line, "a double in the Crawford game")));
                    }
                }
                // A double by a side whose single win at the cube already ends the match:
                // the cube is dead for it, and gnubg refuses the double.
                for t in &game.turns {
                    if let Action::Double(to) = t.action {
                        let needs = self.length.saturating_sub(game.scores[t.player]);
                        if needs <= to / 2 {
                            return Err(fail(err(
                                t.line,
                                format!(
                                    "a double to {to} by the {} player, who needs {needs} to win \
                                     the match: the cube at {} is dead for them",
                                    WHO[t.player],
                                    to / 2
                                ),
                            )));
                        }
                    }
                }
            }
            self.check_result(game, &replay).map_err(fail)?;
            replays.push(replay);
        }
        Ok(replays)
    }

    /// Checks that `game`'s written result is worth what its end makes it
    /// ([`MatchRecord::replay`]).
    fn check_result(&self, game: &GameRecord, replay: &Replay) -> Result<(), MatError> {
        let Some((line, winner, points)) = game.turns.iter().find_map(|t| match t.action {
            Action::Wins(p) => Some((t.line, t.player, p)),
            _ => None,
        }) else {
            return Ok(());
        };
        let passed = replay.doubles.last().filter(|d| {
            d.before_roll == replay.rolls.len() && d.answer == Some(CubeResponse::Pass)
        });
        let finished = replay
            .rolls
            .last()
            .and_then(|t| t.after.outcome().map(|o| (t, u32::from(o.points))));
        let (worth, how): (Vec<u32>, String) = if let Some(d) = passed {
            if d.doubler != winner {
                return Err(err(
                    line,
                    format!(
                        "the {} player wins, but the {} player's double was passed",
                        WHO[winner], WHO[d.doubler]
                    ),
                ));
            }
            (vec![d.cube], format!("a pass of a double from {}", d.cube))
        } else if let Some((last, kind)) = finished {
            let mut worth = vec![kind.saturating_mul(last.cube)];
            // The Jacoby rule: a gammon with the cube in the middle (at 1, or where gnubg's
            // automatic doubles put it) is worth the cube.
            if self.length == 0 && last.cube_owner.is_none() && kind > 1 {
                worth.push(last.cube);
            }
            let end = ["a single game", "a gammon", "a backgammon"][kind as usize - 1];
            (worth, format!("{end} with the cube at {}", last.cube))
        } else if let Some(r) = replay.resignation {
            (
                vec![r.cube, r.cube.saturating_mul(2), r.cube.saturating_mul(3)],
                format!("a resignation with the cube at {}", r.cube),
            )
        } else {
            return Ok(());
        };
        let most = worth.iter().copied().max().unwrap_or(0);
        let need = self.length.saturating_sub(game.scores[winner]);
        let wins_match = self.length > 0 && points >= need && points < most;
        if worth.contains(&points) || wins_match {
            return Ok(());
        }
        let list = worth
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(" or ");
        Err(err(
            line,
            format!("wins {points} points, but {how} is worth {list}"),
        ))
    }

    /// Whether each game is the Crawford game: a game of a match of more than one point that
    /// starts with a side one point away, the Crawford game where the game says so
    /// ([`GameRecord::crawford`]), else the first such game, unless a game before it was the
    /// Crawford game or started post-Crawford (a side one point away, said not to be the
    /// Crawford game). Money sessions, 1-point matches and matches played without the
    /// Crawford rule ([`MatchRecord::crawford_rule`]) have none.
    #[must_use]
    pub fn crawford_games(&self) -> Vec<bool> {
        if self.crawford_rule() {
            self.crawford_games_by_rule()
        } else {
            vec![false; self.games.len()]
        }
    }

    /// Whether the match is played under the Crawford rule: as the record says
    /// ([`MatchRecord::crawford`]), unless the game the scores make the Crawford game, where no
    /// game says which is, holds a double: a `.mat` record cannot say that the rule was off,
    /// and such a double says it (gnubg's `set automatic crawford off`).
    #[must_use]
    pub fn crawford_rule(&self) -> bool {
        self.crawford
            && !self
                .games
                .iter()
                .zip(self.crawford_games_by_rule())
                .any(|(g, inferred)| {
                    inferred
                        && g.crawford.is_none()
                        && g.turns
                            .iter()
                            .any(|t| matches!(t.action, Action::Double(_) | Action::Beaver(_)))
                })
    }

    /// [`MatchRecord::crawford_games`] under the Crawford rule.
    fn crawford_games_by_rule(&self) -> Vec<bool> {
        let mut played = false;
        self.games
            .iter()
            .map(|g| {
                let one_away =
                    self.length > 1 && g.scores.iter().any(|&s| s.saturating_add(1) >= self.length);
                let crawford = one_away && g.crawford.unwrap_or(!played);
                played |= crawford || one_away;
                crawford
            })
            .collect()
    }

    /// The record as `.mat` text, laid out as gnubg's `export match mat` writes it
    /// (SPEC-match-records.md, section 1): ` N point match`, then each game. A money session
    /// under the Jacoby rule or with beavers starts with the header tags eXtreme Gammon writes
    /// for them (`; [Jacoby "On"]`, `; [Beaver "On"]`) and a blank line. A record read from a
    /// file gnubg wrote comes back byte for byte, but for the other header tags (not kept). A name
    /// is written with control characters as spaces, ` : ` as ` - ` and a leading `;` or `:`
    /// or a trailing ` :` left out or as `-` (a score line could not hold them), trimmed, and
    /// `Left` or `Right` when blank.
    ///
    /// ```
    /// use tavla_core::{PlayList, Position, Roll};
    /// use tavla_notation::mat::{Action, GameRecord, MatchRecord};
    ///
    /// let mut record = MatchRecord::new(0, ["you".into(), "tavla".into()]);
    /// let mut game = GameRecord::new(1, [0, 0]);
    /// let roll = Roll::from_values(3, 1);
    /// let mut plays = PlayList::new();
    /// Position::START.legal_plays(roll, &mut plays);
    /// game.push_play(0, &Position::START, roll, &plays.play(0));
    /// record.games.push(game);
    /// let text = record.to_mat()?;
    /// assert!(text.starts_with(" 0 point match\n\n Game 1\n you : 0"));
    /// assert_eq!(MatchRecord::parse(&text)?.games[0].turns.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`MatError`] at the line of the first set-up turn ([`Action::SetUp`]; the line it was
    /// read from, 0 for a built one), which `.mat` cannot hold.
    pub fn to_mat(&self) -> Result<String, MatError> {
        for game in &self.games {
            if let Some(t) = game
                .turns
                .iter()
                .find(|t| matches!(t.action, Action::SetUp(_)))
            {
                return Err(err(
                    t.line,
                    format!(
                        "game {} sets up a position, which a .mat record cannot hold (write SGF)",
                        game.number
                    ),
                ));
            }
        }
        let mut out = String::new();
        if self.length == 0 && (self.jacoby || self.beavers) {
            for (rule, name) in [(self.jacoby, "Jacoby"), (self.beavers, "Beaver")] {
                if rule {
                    out.push_str(&format!("; [{name} \"On\"]\n"));
                }
            }
            out.push('\n');
        }
        out.push_str(&format!(" {} point match\n\n", self.length));
        for game in &self.games {
            game.write_mat(&self.players, &mut out);
        }
        Ok(out)
    }
}

/// One roll of a replayed game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolledTurn {
    /// Who rolled: 0 left, 1 right.
    pub player: Column,
    /// The position the roll was thrown in, seen from the roller.
    pub position: Position,
    /// The roll.
    pub roll: Roll,
    /// The position the play left, seen from the roller.
    pub after: Position,
    /// Whether it was the opening roll (the game's first, never a double): not after a set-up
    /// that placed the checkers or set doubles.
    pub opening: bool,
    /// The cube's value when the roll was thrown (1 before any double; a set-up's value).
    pub cube: u32,
    /// Who owned the cube then: `None` in the middle.
    pub cube_owner: Option<Column>,
    /// The line of the roll (from 1).
    pub line: usize,
}

/// A game played through: its rolls and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// Every roll in order.
    pub rolls: Vec<RolledTurn>,
    /// The winner (0 left, 1 right) and the points written on its `Wins` line, or when there
    /// is none those of the finished position (1, 2 or 3); `None` for a game not finished.
    pub result: Option<(Column, u32)>,
    /// Whether a cube action (double, beaver, take, drop) was recorded.
    pub cube: bool,
    /// Every double, in order, with its answer.
    pub doubles: Vec<DoubleTurn>,
    /// How the game stopped when it ended by a resignation: a result written for a game that
    /// was neither finished on the board nor ended by a pass (SGF writes `R` after such a
    /// result). `None` otherwise, and when no one had rolled or a set-up board was waiting for
    /// its mover (the position the resignation was made in is then not known).
    pub resignation: Option<Resignation>,
}

/// The end of a game by resignation: the position it stopped in and what the resignation
/// gave away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resignation {
    /// Who resigned (the loser): 0 left, 1 right.
    pub resigner: Column,
    /// The points written on the winner's `Wins` line.
    pub points: u32,
    /// The position, seen from the side to move next.
    pub position: Position,
    /// The side to move next: 0 left, 1 right.
    pub to_move: Column,
    /// The cube's value then (a double taken after the last roll included).
    pub cube: u32,
    /// Its owner then: `None` in the middle.
    pub cube_owner: Option<Column>,
    /// The line of the `Wins` (from 1).
    pub line: usize,
}

/// A double in a game played through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DoubleTurn {
    /// Who doubled: 0 left, 1 right.
    pub doubler: Column,
    /// The position the double was made in, seen from the doubler (before its roll).
    pub position: Position,
    /// The cube's value before the double.
    pub cube: u32,
    /// Who owned the cube before the double: `None` in the middle.
    pub cube_owner: Option<Column>,
    /// The index in [`Replay::rolls`] of the roll that followed the double (the doubler's);
    /// `rolls.len()` when none did.
    pub before_roll: usize,
    /// The answer; `None` when the record stops before it.
    pub answer: Option<CubeResponse>,
    /// The line of the double (from 1).
    pub line: usize,
    /// The line of its answer (from 1); 0 while it has none.
    pub answer_line: usize,
}

impl GameRecord {
    /// Plays the game's moves from the starting position (standard rules), the first roller
    /// starting, or from the board of a set-up turn. Each move must be legal for its roll;
    /// rolls must alternate between the players, but for the first move after a set-up, which
    /// may be either player's (and is not an opening roll if a set-up placed the checkers or
    /// set doubles). A set-up board with one side's checkers all borne off is a finished game.
    ///
    /// # Errors
    /// [`MatError`] at the line of a move that is illegal, ambiguous or by the wrong player,
    /// of a move after the game is over (borne off), of any action after a drop or the
    /// result, of a take or drop with no double to answer, of a double beyond 32768, of a move on a set-up board that is not a position
    /// (only a built record can hold one), or of a `Wins` that contradicts a finished position.
    pub fn replay(&self) -> Result<Replay, MatError> {
        let mut position = Position::START;
        // The board in each player's numbering while a set-up's board waits for its mover.
        let mut board: Option<[[u8; 25]; 2]> = None;
        let mut set_up = false;
        // Whose view `position` is in; `None` for the (symmetric) starting position.
        let mut view: Option<Column> = None;
        let mut to_move: Option<Column> = None;
        let mut rolls: Vec<RolledTurn> = Vec::new();
        let mut finished: Option<(Column, u32)> = None;
        let mut written: Option<(Column, u32)> = None;
        let mut cube = self.cube > 1;
        // What ended the game and its line: a drop, or the result.
        let mut ended: Option<(&str, usize)> = None;
        // The cube's value and owner, and a double's (or beaver's) value and the owner it
        // makes once taken: the taker of a double, the beaver's maker (who keeps the cube).
        let mut value = self.cube.max(1);
        let mut owner: Option<Column> = None;
        let mut offered: Option<(u32, Column)> = None;
        // The line of a beaver not yet followed by anything: the doubler's take may follow
        // it (tavla writes one) or not (gnubg's export writes none: a beaver is taken).
        let mut beavered: Option<usize> = None;
        let mut doubles: Vec<DoubleTurn> = Vec::new();
        let mut resignation = None;
        for turn in &self.turns {
            let after_beaver = beavered.take();
            if let Some((what, line)) = ended.filter(|_| !matches!(turn.action, Action::Wins(_))) {
                return Err(err(
                    turn.line,
                    format!(
                        "{} after the game ended ({what} on line {line})",
                        turn.action.name()
                    ),
                ));
            }
            match &turn.action {
                Action::SetUp(s) => {
                    if let Some(b) = s.board {
                        board = Some(b);
                        set_up = true;
                        // A board with one side's checkers all off is a finished game.
                        finished = (0..2)
                            .find(|&p| b[p].iter().all(|&n| n == 0))
                            .and_then(|p| {
                                SetUp::position(&b, p)
                                    .and_then(|pos| pos.outcome())
                                    .map(|o| (p, u32::from(o.points)))
                            });
                    }
                    // Doubles set by hand start no opening roll.
                    if s.dice.is_some_and(Roll::is_double) {
                        set_up = true;
                    }
                    to_move = None;
                    if s.cube.is_some_and(|v| v > 1) || matches!(s.cube_owner, Some(Some(_))) {
                        cube = true;
                    }
                    if let Some(v) = s.cube {
                        value = v.max(1);
                    }
                    if let Some(o) = s.cube_owner {
                        owner = o;
                    }
                }
                Action::Move(text) => {
                    if let Some(b) = board.take() {
                        position = SetUp::position(&b, turn.player)
                            .ok_or_else(|| err(turn.line, "the set-up board is not a position"))?;
                    } else if view.is_some_and(|v| v != turn.player) {
                        // After a set-up, the other player moves on the same board.
                        position = position.flip();
                    }
                    if finished.is_some() {
                        return Err(err(turn.line, "a move after the game is over"));
                    }
                    if offered.is_some() {
                        let on = doubles
                            .last()
                            .map_or(String::new(), |d| format!(" on line {}", d.line));
                        return Err(err(
                            turn.line,
                            format!(
                                "a move while the double{on} waits for its answer (a take or \
                                 a drop)"
                            ),
                        ));
                    }
                    if let Some(p) = to_move {
                        if p != turn.player {
                            return Err(err(
                                turn.line,
                                format!("the {} player moves twice in a row", WHO[turn.player]),
                            ));
                        }
                    }
                    let roll = text
                        .roll
                        .ok_or_else(|| err(turn.line, format!("`{text}`: no roll")))?;
                    let opening = rolls.is_empty() && !set_up;
                    if opening && roll.is_double() {
                        return Err(err(turn.line, "the opening roll cannot be a double"));
                    }
                    let play = text
                        .resolve(&position, roll)
                        .map_err(|e| err(turn.line, format!("`{text}`: {e}")))?;
                    let after = position
                        .play(roll, &play)
                        .map_err(|e| err(turn.line, format!("`{text}`: {e}")))?;
                    rolls.push(RolledTurn {
                        player: turn.player,
                        position,
                        roll,
                        after,
                        opening,
                        cube: value,
                        cube_owner: owner,
                        line: turn.line,
                    });
                    if let Some(o) = after.outcome() {
                        finished = Some((turn.player, u32::from(o.points)));
                    }
                    position = after.flip();
                    to_move = Some(1 - turn.player);
                    view = to_move;
                }
                Action::Double(v) => {
                    if offered.is_some() {
                        return Err(err(
                            turn.line,
                            "a double while a double waits for its answer",
                        ));
                    }
                    if let Some(p) = to_move.filter(|&p| p != turn.player) {
                        return Err(err(
                            turn.line,
                            format!(
                                "the {} player doubles on the {} player's turn",
                                WHO[turn.player], WHO[p]
                            ),
                        ));
                    }
                    if owner == Some(1 - turn.player) {
                        return Err(err(
                            turn.line,
                            format!(
                                "the {} player doubles, but the {} player holds the cube",
                                WHO[turn.player],
                                WHO[1 - turn.player]
                            ),
                        ));
                    }
                    // The cube shows at most 2^15 (a `.mat` record cannot say more).
                    if *v > 1 << 15 {
                        return Err(err(
                            turn.line,
                            format!("a double to {v}, beyond the cube's largest value, 32768"),
                        ));
                    }
                    if value.checked_mul(2) != Some(*v) {
                        return Err(err(
                            turn.line,
                            format!(
                                "a double to {v}, but the cube is at {value}: it goes to {}",
                                u64::from(value) * 2
                            ),
                        ));
                    }
                    cube = true;
                    offered = Some((*v, 1 - turn.player));
                    // The doubler's view of the board; a set-up board not yet a position
                    // is an error at the move that uses it.
                    let seen = match &board {
                        Some(b) => SetUp::position(b, turn.player),
                        None if view.is_some_and(|v| v != turn.player) => Some(position.flip()),
                        None => Some(position),
                    };
                    if let Some(seen) = seen.filter(|_| finished.is_none()) {
                        doubles.push(DoubleTurn {
                            doubler: turn.player,
                            position: seen,
                            cube: value,
                            cube_owner: owner,
                            before_roll: rolls.len(),
                            answer: None,
                            line: turn.line,
                            answer_line: 0,
                        });
                    }
                }
                Action::Beaver(v) => {
                    match offered {
                        Some((d, taker))
                            if taker == turn.player && d.checked_mul(2) == Some(*v) => {}
                        // A beaver of the beaver just made (gnubg allows a few in a row; a
                        // raccoon): its maker takes the cube at twice the value.
                        None if after_beaver.is_some() && owner != Some(turn.player) => {
                            if value.checked_mul(2) != Some(*v) || *v > 1 << 15 {
                                return Err(err(
                                    turn.line,
                                    format!(
                                        "a beaver to {v}, but the cube is at {value}: it goes \
                                         to {}",
                                        u64::from(value) * 2
                                    ),
                                ));
                            }
                            value = *v;
                            owner = Some(turn.player);
                            beavered = Some(turn.line);
                            continue;
                        }
                        Some((d, taker)) if taker == turn.player => {
                            return Err(err(
                                turn.line,
                                format!(
                                    "a beaver to {v}, but the double is to {d}: it goes to {}",
                                    u64::from(d) * 2
                                ),
                            ))
                        }
                        _ => return Err(err(turn.line, "a beaver with no double to answer")),
                    }
                    cube = true;
                    // Taken at once: the beaver's maker keeps the cube at twice the double.
                    offered = None;
                    value = *v;
                    owner = Some(turn.player);
                    beavered = Some(turn.line);
                    answer(&mut doubles, rolls.len(), turn.line, CubeResponse::Beaver);
                }
                Action::Take => {
                    cube = true;
                    let Some((v, taker)) = offered.take() else {
                        // The doubler's take of the beaver just made changes nothing.
                        if after_beaver.is_some() {
                            continue;
                        }
                        return Err(err(turn.line, "a take with no double to answer"));
                    };
                    value = v;
                    owner = Some(taker);
                    answer(&mut doubles, rolls.len(), turn.line, CubeResponse::Take);
                }
                Action::Drop => {
                    cube = true;
                    if let Some(line) = after_beaver {
                        return Err(err(
                            turn.line,
                            format!(
                                "a drop of the beaver on line {line}: a beaver cannot be \
                                 refused (it is taken, or beavered back)"
                            ),
                        ));
                    }
                    if offered.take().is_none() {
                        return Err(err(turn.line, "a drop with no double to answer"));
                    }
                    ended = Some(("the drop", turn.line));
                    answer(&mut doubles, rolls.len(), turn.line, CubeResponse::Pass);
                }
                Action::Wins(points) => {
                    if written.is_some() {
                        return Err(err(turn.line, "a second result"));
                    }
                    if let Some((winner, _)) = finished {
                        if winner != turn.player {
                            return Err(err(
                                turn.line,
                                format!(
                                    "the {} player wins, but the {} bore off",
                                    WHO[turn.player], WHO[winner]
                                ),
                            ));
                        }
                    }
                    written = Some((turn.player, *points));
                    ended = Some(("the result", turn.line));
                    let passed = doubles.last().is_some_and(|d| {
                        d.before_roll == rolls.len() && d.answer == Some(CubeResponse::Pass)
                    });
                    resignation = match (finished, to_move, &board) {
                        (None, Some(to_move), None) if !passed => Some(Resignation {
                            resigner: 1 - turn.player,
                            points: *points,
                            position,
                            to_move,
                            cube: value,
                            cube_owner: owner,
                            line: turn.line,
                        }),
                        _ => None,
                    };
                }
            }
        }
        Ok(Replay {
            rolls,
            result: written.or(finished),
            cube,
            doubles,
            resignation,
        })
    }
}

/// Records `a` as the answer to the last double when it is still unanswered and no roll came
/// between (the take after a beaver is the doubler's, and changes nothing).
fn answer(doubles: &mut [DoubleTurn], rolls: usize, line: usize, a: CubeResponse) {
    if let Some(d) = doubles.last_mut() {
        if d.answer.is_none() && d.before_roll == rolls {
            d.answer = Some(a);
            d.answer_line = line;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = " 0 point match

 Game 1
 tavla : 0                      gnubg : 0
  1)                             31: 8/5 6/5
  2) 62: 24/18 13/11             55: 13/8 13/8 8/3 8/3
";

    #[test]
    fn reads_turns_by_column() {
        let r = MatchRecord::parse(SESSION).unwrap();
        assert_eq!(r.length, 0);
        assert_eq!(r.players, ["tavla".to_string(), "gnubg".to_string()]);
        let g = &r.games[0];
        assert_eq!(g.number, 1);
        let who: Vec<Column> = g.turns.iter().map(|t| t.player).collect();
        assert_eq!(who, [1, 0, 1]);
        let replay = g.replay().unwrap();
        assert_eq!(replay.rolls.len(), 3);
        assert!(replay.rolls[0].opening && !replay.rolls[1].opening);
        assert_eq!(replay.result, None);
        assert_eq!(replay.rolls[1].line, 6);
    }

    #[test]
    fn a_cube_value_is_a_power_of_two_the_cube_can_show() {
        // 2^16 would have let 32 doubles in a row wrap the cube round to 0.
        for (value, ok) in [
            (2, true),
            (32768, true),
            (3, false),
            (65536, false),
            (1, false),
        ] {
            let text = format!(
                " 0 point match\n\n Game 1\n a : 0                      b : 0\n  1)  Doubles => {value}\n"
            );
            let parsed = MatchRecord::parse(&text);
            assert_eq!(parsed.is_ok(), ok, "{value}: {parsed:?}");
            if !ok {
                let e = parsed.unwrap_err().to_string();
                assert!(e.contains("a power of two from 2 to 32768"), "{e}");
            }
        }
    }

    #[test]
    fn a_beaver_may_be_beavered_back_as_gnubg_writes_it() {
        // gnubg's export: a double to 2, beavered to 4, 8 and 16 in turn, no Takes after.
        let text = " 0 point match

 Game 1
 a : 0                          b : 0
  1)                             31: 8/5 6/5
  2) 62: 24/18 13/11              Doubles => 2
  3)  Beavers => 4                Beavers => 8
  4)  Beavers => 16              55: 13/8 13/8 8/3 8/3
";
        let replay = MatchRecord::parse(text).unwrap().games[0].replay().unwrap();
        let last = replay.rolls.last().unwrap();
        // The doubler (right) rolls with the cube at 16 held by the left, the last to beaver.
        assert_eq!((last.player, last.cube, last.cube_owner), (1, 16, Some(0)));
        let d = replay.doubles[0];
        assert_eq!(
            (d.answer, d.line, d.answer_line),
            (Some(CubeResponse::Beaver), 6, 7)
        );
        // A beaver of a beaver must double the cube again, and its maker is the other side.
        let wrong = text.replace("Beavers => 8", "Beavers => 16");
        let e = MatchRecord::parse(&wrong).unwrap().games[0]
            .replay()
            .unwrap_err();
        assert!(e.to_string().contains("line 7"), "{e}");
    }

    #[test]
    fn dice_that_are_not_two_dice_are_named() {
        for dice in ["77:", "5:", "123:"] {
            let text = format!(
                " 0 point match\n\n Game 1\n a : 0      b : 0\n  1) 31: 8/5 6/5      {dice} 8/5\n"
            );
            let e = MatchRecord::parse(&text).unwrap_err().to_string();
            assert!(
                e.contains(&format!("`{dice}`: not a roll")) && e.contains("line 5"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_wrong_score_is_told_at_its_score_line() {
        let text = " 3 point match

 Game 1
 a : 0                          b : 0
  1)                             31: 8/5 6/5
      Wins 1 point

 Game 2
 a : 0                          b : 2
  1) 31: 8/5 6/5
";
        let e = MatchRecord::parse(text)
            .unwrap()
            .replay()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 9") && e.contains("the score line says"),
            "{e}"
        );
    }

    #[test]
    fn each_roll_knows_the_cube_it_was_thrown_at() {
        let text = " 0 point match

 Game 1
 tavla : 0                      gnubg : 0
  1)                             31: 8/5 6/5
  2)  Doubles => 2                Takes
  3) 62: 24/18 13/11              Doubles => 4
  4)  Beavers => 8                Takes
  5)                             55: 13/8 13/8 8/3 8/3
  6)  Doubles => 16               Drops
      Wins 8 points
";
        let replay = MatchRecord::parse(text).unwrap().games[0].replay().unwrap();
        let cubes: Vec<(u32, Option<Column>)> = replay
            .rolls
            .iter()
            .map(|r| (r.cube, r.cube_owner))
            .collect();
        // tavla doubles to 2, gnubg takes; gnubg redoubles to 4 and tavla beavers, keeping
        // the cube; tavla's redouble to 16 is passed.
        assert_eq!(cubes, [(1, None), (2, Some(1)), (8, Some(0))]);
        assert_eq!(replay.result, Some((0, 8)));
        assert!(replay.cube);
        // Each double with the cube before it, the roll after it and its answer.
        type Seen = (Column, u32, Option<Column>, usize, Option<CubeResponse>);
        let doubles: Vec<Seen> = replay
            .doubles
            .iter()
            .map(|d| (d.doubler, d.cube, d.cube_owner, d.before_roll, d.answer))
            .collect();
        assert_eq!(
            doubles,
            [
                (0, 1, None, 1, Some(CubeResponse::Take)),
                (1, 2, Some(1), 2, Some(CubeResponse::Beaver)),
                (0, 8, Some(0), 3, Some(CubeResponse::Pass)),
            ]
        );
        // The positions are the doubler's view: tavla's first double is before its 62.
        assert_eq!(replay.doubles[0].position, replay.rolls[1].position);
        assert_eq!(replay.doubles[0].line, 6);
    }

    #[test]
    fn a_result_neither_borne_off_nor_passed_is_a_resignation() {
        let game = |end: &str| {
            let text = format!(
                " 0 point match

 Game 1
 tavla : 0                      gnubg : 0
  1)                             31: 8/5 6/5
  2) 62: 24/18 13/11             Doubles => 2
  3) Takes
{end}"
            );
            MatchRecord::parse(&text).unwrap().games[0]
                .replay()
                .unwrap()
        };
        // gnubg doubled before its roll and tavla took; then tavla resigned a gammon (4 points
        // at the 2-cube), with gnubg to roll.
        let r = game("                                 Wins 4 points\n");
        assert_eq!(r.result, Some((1, 4)));
        let resigned = r.resignation.expect("a resignation");
        assert_eq!(
            (resigned.resigner, resigned.points, resigned.to_move),
            (0, 4, 1)
        );
        assert_eq!((resigned.cube, resigned.cube_owner), (2, Some(0)));
        assert_eq!(resigned.position, r.rolls[1].after.flip());
        assert_eq!(resigned.line, 8);
        // A pass ends the game without a resignation, and so does an unfinished record.
        // (gnubg rolls, then tavla, holding the cube, redoubles and gnubg passes.)
        let passed = game(
            "  4)                             52: 13/8 13/11\n  5) Doubles => 4                 Drops\n      Wins 2 points\n",
        );
        assert_eq!(passed.result, Some((0, 2)));
        assert_eq!(passed.resignation, None);
        assert_eq!(game("").resignation, None);
    }

    /// Names a score line cannot hold are written so that the record reads back (a left
    /// name starting with `;` once made the score line a comment: found by the `sgf` fuzz
    /// target).
    #[test]
    fn names_are_written_as_a_score_line_holds_them() {
        for (names, read) in [
            ([";    z", "b"], ["z", "b"]),
            (["a : b", " \tc\n"], ["a - b", "c"]),
            ([";", ""], ["Left", "Right"]),
            ([": x", "x :"], ["- x", "x -"]),
            (["x :", ":"], ["x -", "-"]),
            ([":", ": : :"], ["-", "- - -"]),
            // gnubg's reader stops at the first colon.
            (
                ["neural:ply=0,cube-ply=1", "a:b"],
                ["neural-ply=0,cube-ply=1", "a-b"],
            ),
        ] {
            let mut record = MatchRecord::new(0, names.map(String::from));
            record.games.push(GameRecord::new(1, [0, 0]));
            let text = record.to_mat().unwrap();
            let back =
                MatchRecord::parse(&text).unwrap_or_else(|e| panic!("{names:?}: {e}\n{text}"));
            assert_eq!(back.players, read.map(String::from), "{text}");
        }
    }

    #[test]
    fn the_crawford_game_is_as_a_game_says_else_inferred_from_the_scores() {
        let record = |scores: &[([u32; 2], Option<bool>)]| {
            let mut r = MatchRecord::new(5, ["a".into(), "b".into()]);
            for (k, &(s, c)) in (1..).zip(scores) {
                let mut g = GameRecord::new(k, s);
                g.crawford = c;
                r.games.push(g);
            }
            r
        };
        // Inferred: the first game with a side one point away.
        let r = record(&[([0, 0], None), ([4, 2], None), ([4, 3], None)]);
        assert_eq!(r.crawford_games(), [false, true, false]);
        // A match taken up after the Crawford game: said so, and no later game is one.
        let r = record(&[([2, 4], Some(false)), ([3, 4], None)]);
        assert_eq!(r.crawford_games(), [false, false]);
        // SGF says which game is the Crawford game, as gnubg does, and reads it back.
        let r = record(&[([3, 4], Some(true)), ([3, 5], None)]);
        let sgf = r.to_sgf();
        assert!(sgf.contains("RU[Crawford:CrawfordGame]"), "{sgf}");
        let back = MatchRecord::parse_sgf(&sgf).unwrap();
        assert_eq!(
            back.games.iter().map(|g| g.crawford).collect::<Vec<_>>(),
            [Some(true), Some(false)]
        );
        let r = record(&[([2, 4], Some(false))]);
        let back = MatchRecord::parse_sgf(&r.to_sgf()).unwrap();
        assert_eq!(back.crawford_games(), [false]);
        // Money sessions and 1-point matches have none, and a game where no side is one point
        // away is not one, whatever it says.
        let mut r = record(&[([0, 0], None)]);
        r.length = 0;
        assert_eq!(r.crawford_games(), [false]);
        r.length = 1;
        assert_eq!(r.crawford_games(), [false]);
        let r = record(&[([0, 0], Some(true)), ([4, 0], None)]);
        assert_eq!(r.crawford_games(), [false, true]);
        // tavla 0.1.0 wrote `RU[Crawford]` on every game: its files are left to the scores.
        let r = record(&[([0, 0], None), ([4, 3], None), ([4, 4], None)]);
        let old = r.to_sgf().replace(
            &format!("AP[tavla:{}]", env!("CARGO_PKG_VERSION")),
            "AP[tavla:0.1.0]",
        );
        let old = old.replace("RU[Crawford:CrawfordGame]", "RU[Crawford]");
        let back = MatchRecord::parse_sgf(&old).unwrap();
        assert_eq!(back.crawford_games(), [false, true, false]);
    }

    #[test]
    fn header_tags_state_the_rules_of_a_money_session() {
        // eXtreme Gammon's header, its lines not indented.
        let xg = "; [Site \"XG Mobile\"]\n; [Player 1 \"Ken\"]\n; [Variation \"Backgammon\"]\n\
                  ; [Jacoby \"On\"]\n; [Beaver \"Off\"]\n; [CubeLimit \"1024\"]\n\n\
                  0 point match\n\nGame 1\nKen : 0                              XG : 0\n \
                  1)                                  15: 24/23 23/18\n";
        let record = MatchRecord::parse(xg).unwrap();
        assert!(record.jacoby && !record.beavers);
        assert_eq!(record.games[0].turns.len(), 1);
        let both = xg.replace("Beaver \"Off", "Beaver \"on");
        let record = MatchRecord::parse(&both).unwrap();
        assert!(record.jacoby && record.beavers);
        // Written back with the tags, and read again the same.
        let text = record.to_mat().unwrap();
        assert!(
            text.starts_with("; [Jacoby \"On\"]\n; [Beaver \"On\"]\n\n 0 point match\n"),
            "{text}"
        );
        let again = MatchRecord::parse(&text).unwrap();
        assert!(again.jacoby && again.beavers);
        assert_eq!(again.to_mat().unwrap(), text);
        // No tags without the rules: a plain session is written as before.
        let plain = MatchRecord::new(0, ["a".into(), "b".into()]);
        assert_eq!(plain.to_mat().unwrap(), " 0 point match\n\n");
        // A match has neither rule, whatever its header says.
        let in_match = both.replace("0 point match", "5 point match");
        let record = MatchRecord::parse(&in_match).unwrap();
        assert!(!record.jacoby && !record.beavers);
        // Tags after the first game are comments.
        let late = "0 point match\n Game 1\n a : 0  b : 0\n; [Jacoby \"On\"]\n";
        assert!(!MatchRecord::parse(late).unwrap().jacoby);
        // Spaces inside the brackets and the quotes do not matter.
        let spaced = "; [ Jacoby \" On \" ]\n0 point match\n";
        assert!(MatchRecord::parse(spaced).unwrap().jacoby);
        // In a match the rules do not count, nor does a value that cannot be read.
        assert!(MatchRecord::parse("; [Jacoby \"maybe\"]\n5 point match\n").is_ok());
        // In a money session a rule's value is On or Off; another variation is refused.
        for (text, line, needle) in [
            (
                "; [Jacoby \"maybe\"]\n0 point match\n",
                1,
                "\"On\" or \"Off\"",
            ),
            (
                "; [EventDate \"2026.11.28\"]\n; [Variation \"NackGammon\"]\n 5 point match\n",
                2,
                "only backgammon",
            ),
        ] {
            let e = MatchRecord::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{e}");
            assert!(e.problem.contains(needle), "{e}");
        }
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("Game 1\n", 1, "point match"),
            (
                " 0 point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 6/5\n Game 1\n",
                5,
                "follows game 1 (line 2): games are numbered in order",
            ),
            (" 0 point match\n\n Game 1\n", 3, "no score line"),
            (" 0 point match\n Game x\n", 2, "Game N"),
            (
                " 0 point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 6/5 foo 62: 6/4\n",
                4,
                "foo",
            ),
            (
                " 0 point match\n Game 1\n a : 0  b : 0\n  1) hello\n",
                4,
                "hello",
            ),
            (
                " 0 point match\n Game 1\n a : 0  b : 0\n  1)  Doubles 2\n",
                4,
                "=>",
            ),
        ];
        for (text, line, what) in cases {
            let e = MatchRecord::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.to_string().contains(what), "{text:?}: {e}");
        }
        let replay_errors = [
            ("  1) 31: 8/4 6/5\n", 4, "8/4"),
            ("  1) 33: 8/5 6/5\n", 4, "double"),
            ("  1) 31: 8/5 6/5\n  2) 62: 24/18 13/11\n", 5, "twice"),
        ];
        for (turns, line, what) in replay_errors {
            let text = format!(" 0 point match\n Game 1\n a : 0  b : 0\n{turns}");
            let r = MatchRecord::parse(&text).unwrap();
            let e = r.games[0].replay().unwrap_err();
            assert_eq!(e.line, line, "{turns:?}: {e}");
            assert!(e.to_string().contains(what), "{turns:?}: {e}");
        }
    }
}
