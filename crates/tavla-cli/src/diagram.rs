//! Board diagrams as SVG (`tavla show --svg`, `/v1/diagram`): the position from the side on
//! roll, its home board bottom right, with the dice, the cube, the checkers on the bar and
//! borne off, the pip counts and a caption (who is to play, the score, the XGID).

use std::fmt::Write as _;

use tavla_core::{CubeOwner, Dice, GameState, Side};
use tavla_notation::{format, Notation};

/// Width of a point.
const W: f32 = 50.0;
/// Width of the bar.
const BAR: f32 = 40.0;
/// Margin round the board.
const M: f32 = 10.0;
/// Width of the tray for checkers borne off.
const OFF: f32 = 50.0;
/// Height of the board.
const H: f32 = 460.0;
/// Height of a point.
const PH: f32 = 190.0;
/// Height of the caption under the board.
const CAPTION: f32 = 44.0;
/// Height of the strips above and below the board that hold the point numbers.
const NUMBERS: f32 = 20.0;
/// Checkers drawn on a point before the count is written on the last one.
const SHOWN: u8 = 5;

const LIGHT: &str = "#f4ead2";
const DARK: &str = "#2a2222";

/// x of the bar's left edge.
const BARX: f32 = M + 6.0 * W;

/// x of the strip right of the tray: pip counts and a held cube.
const RIGHT: f32 = M + 12.0 * W + BAR + OFF + 6.0;

/// x of the left edge of point `p` (1..=24) of the side on roll: its home board bottom right.
fn point_x(p: u8) -> f32 {
    let c = if p <= 12 { 12 - p } else { p - 13 };
    M + f32::from(c) * W + if c >= 6 { BAR } else { 0.0 }
}

/// The SVG of `state`, from its side on roll (light checkers, at the bottom).
#[must_use]
pub fn svg(state: &GameState) -> String {
    let pos = &state.position;
    let width = M + 12.0 * W + BAR + OFF + 60.0;
    let height = H + 2.0 * NUMBERS + CAPTION;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" font-family="sans-serif">"#
    );
    let _ = write!(
        s,
        r##"<rect width="{width}" height="{height}" fill="#f7f1e3"/><g transform="translate(0 {NUMBERS})"><rect x="{M}" y="{M}" width="{}" height="{}" fill="#d9c7a0"/><rect x="{BARX}" y="{M}" width="{BAR}" height="{}" fill="#6b4f3a"/><rect x="{}" y="{M}" width="{}" height="{}" fill="#5a4030"/>"##,
        12.0 * W + BAR,
        H - 2.0 * M,
        H - 2.0 * M,
        M + 12.0 * W + BAR + 8.0,
        OFF - 8.0,
        H - 2.0 * M
    );
    for p in 1..=24u8 {
        let x = point_x(p);
        let top = p > 12;
        let (base, tip) = if top {
            (M, M + PH)
        } else {
            (H - M, H - M - PH)
        };
        let fill = if p % 2 == 1 { "#9c3d2e" } else { "#e9dcc0" };
        let _ = write!(
            s,
            r##"<polygon points="{x},{base} {},{base} {},{tip}" fill="{fill}" stroke="#7a6a50" stroke-width="0.5"/>"##,
            x + W,
            x + W / 2.0
        );
        let ly = if top { M - 4.0 } else { H - M + 14.0 };
        let _ = write!(
            s,
            r##"<text x="{}" y="{ly}" text-anchor="middle" font-size="11" fill="#6b5a40">{p}</text>"##,
            x + W / 2.0
        );
        let n = pos.at(p);
        if n != 0 {
            checkers(&mut s, x, top, n.unsigned_abs(), n > 0);
        }
    }
    // The side on roll enters at the top (the opponent's home board), the opponent at the
    // bottom.
    if pos.bar() > 0 {
        checkers(&mut s, BARX - 5.0, true, pos.bar(), true);
    }
    if pos.opponent_bar() > 0 {
        checkers(&mut s, BARX - 5.0, false, pos.opponent_bar(), false);
    }
    let ox = M + 12.0 * W + BAR + 8.0;
    for (n, mine) in [(pos.off(), true), (pos.opponent_off(), false)] {
        for i in 0..n {
            let y = if mine {
                H - M - 11.0 - f32::from(i) * 12.0
            } else {
                M + 2.0 + f32::from(i) * 12.0
            };
            let _ = write!(
                s,
                r#"<rect x="{}" y="{y}" width="{}" height="9" rx="2" fill="{}"/>"#,
                ox + 3.0,
                OFF - 14.0,
                if mine { LIGHT } else { DARK }
            );
        }
    }
    // The dice, in the right half (the side on roll's).
    if let Some(roll) = state.roll() {
        let cx = BARX + BAR + 3.0 * W - 45.0;
        for (i, d) in [roll.high().value(), roll.low().value()]
            .into_iter()
            .enumerate()
        {
            die(&mut s, cx + i as f32 * 50.0, H / 2.0 - 20.0, d);
        }
    }
    // The cube: centred, in the middle of the bar; held, right of the tray on its holder's
    // side (clear of checkers on the bar); offered, in the doubler's half.
    let value = state.cube.value();
    let offered = state.dice == Dice::DoubleOffered;
    let (cube_x, cube_y, shown) = if offered {
        (BARX + BAR + 3.0 * W - 18.0, H / 2.0 - 18.0, value * 2)
    } else {
        match state.cube.owner {
            CubeOwner::Centre => (
                BARX + 2.0,
                H / 2.0 - 18.0,
                if value == 1 { 64 } else { value },
            ),
            CubeOwner::Side(side) if side == state.turn => (RIGHT, H - M - 36.0, value),
            CubeOwner::Side(_) => (RIGHT, M, value),
        }
    };
    let font = match shown {
        0..=999 => 17u8,
        1000..=9999 => 13,
        _ => 11,
    };
    let _ = write!(
        s,
        r##"<rect x="{cube_x}" y="{cube_y}" width="36" height="36" rx="5" fill="#fff" stroke="#333"/><text x="{}" y="{}" text-anchor="middle" font-size="{font}" font-weight="700">{shown}</text>"##,
        cube_x + 18.0,
        cube_y + 18.0 + f32::from(font) * 0.35
    );
    // The pip counts right of the tray: the opponent's above, the side on roll's below.
    let (mine, theirs) = pos.pips();
    let px = RIGHT;
    let (me, opp) = (state.turn, state.turn.other());
    for (y, n, who) in [(H / 2.0 - 24.0, theirs, opp), (H / 2.0 + 16.0, mine, me)] {
        let _ = write!(
            s,
            r##"<text x="{px}" y="{y}" font-size="15" font-weight="700" fill="#3b2f2f">{n}</text><text x="{px}" y="{}" font-size="10" fill="#3b2f2f">{who} pips</text>"##,
            y + 13.0
        );
    }
    let _ = write!(
        s,
        r##"</g><text x="{M}" y="{}" font-size="15" fill="#222">{}</text><text x="{M}" y="{}" font-size="11" fill="#555">{}</text>"##,
        H + 2.0 * NUMBERS + 14.0,
        escape(&caption(state)),
        H + 2.0 * NUMBERS + 32.0,
        escape(&format!(
            "{} light, home board bottom right · {}",
            state.turn,
            format(state, Notation::Xgid)
        ))
    );
    s.push_str("</svg>\n");
    s
}

/// Who is to act, and the score: `X to play 31 · money`.
fn caption(state: &GameState) -> String {
    let side = state.turn;
    let other = side.other();
    let act = match state.dice {
        Dice::Rolled(r) => format!("{side} to play {r}"),
        Dice::NotRolled => format!("{side} on roll"),
        Dice::DoubleOffered => format!(
            "{side} doubles to {}: {other} to take or pass",
            2 * state.cube.value()
        ),
    };
    let score = if state.match_length == 0 {
        let rules = [(state.jacoby, ", Jacoby"), (state.beavers, ", beavers")]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, t)| *t)
            .collect::<String>();
        format!("money{rules}")
    } else {
        let (a, b) = (state.score.get(Side::X), state.score.get(Side::O));
        let crawford = if state.crawford { ", Crawford" } else { "" };
        format!("{}-point match, X {a} O {b}{crawford}", state.match_length)
    };
    format!("{act} · {score}")
}

/// A point's checkers: up to [`SHOWN`], the count written on the last when there are more.
fn checkers(s: &mut String, x: f32, top: bool, n: u8, mine: bool) {
    let cy = |i: u8| {
        if top {
            M + 20.0 + f32::from(i) * 38.0
        } else {
            H - M - 20.0 - f32::from(i) * 38.0
        }
    };
    let (fill, stroke, ink) = if mine {
        (LIGHT, "#8a7a5a", "#222")
    } else {
        (DARK, "#000", "#eee")
    };
    for i in 0..n.min(SHOWN) {
        let _ = write!(
            s,
            r##"<circle cx="{}" cy="{}" r="18" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>"##,
            x + W / 2.0,
            cy(i)
        );
    }
    if n > SHOWN {
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-size="15" font-weight="700" fill="{ink}">{n}</text>"#,
            x + W / 2.0,
            cy(SHOWN - 1) + 5.0
        );
    }
}

/// A die showing `n`, light (the side on roll's).
fn die(s: &mut String, x: f32, y: f32, n: u8) {
    let _ = write!(
        s,
        r##"<rect x="{x}" y="{y}" width="40" height="40" rx="7" fill="{LIGHT}" stroke="#000"/>"##
    );
    let pips: &[(f32, f32)] = match n {
        1 => &[(2.0, 2.0)],
        2 => &[(1.0, 1.0), (3.0, 3.0)],
        3 => &[(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)],
        4 => &[(1.0, 1.0), (1.0, 3.0), (3.0, 1.0), (3.0, 3.0)],
        5 => &[(1.0, 1.0), (1.0, 3.0), (2.0, 2.0), (3.0, 1.0), (3.0, 3.0)],
        _ => &[
            (1.0, 1.0),
            (1.0, 2.0),
            (1.0, 3.0),
            (3.0, 1.0),
            (3.0, 2.0),
            (3.0, 3.0),
        ],
    };
    for (a, b) in pips {
        let _ = write!(
            s,
            r##"<circle cx="{}" cy="{}" r="3.5" fill="#222"/>"##,
            x + a * 10.0,
            y + b * 10.0
        );
    }
}

/// Text for SVG: `&`, `<` and `>` escaped.
fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(s: &str, what: &str) -> usize {
        s.matches(what).count()
    }

    #[test]
    fn the_opening_position_has_thirty_checkers_and_its_caption() {
        let state =
            tavla_notation::parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
                .unwrap();
        let s = svg(&state);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        // 15 checkers a side, every point's stack of 5 or fewer drawn whole; plus the die pips
        // (3 + 1) drawn as circles of radius 3.5.
        assert_eq!(count(&s, r##"r="18" fill="#f4ead2""##), 15);
        assert_eq!(count(&s, r##"r="18" fill="#2a2222""##), 15);
        assert_eq!(count(&s, r#"r="3.5""#), 4);
        assert_eq!(count(&s, "<polygon"), 24);
        assert!(s.contains("X to play 31"), "{s}");
        assert!(s.contains("money"));
        assert!(s.contains("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"));
        // The centred cube shows 64; both pip counts 167.
        assert!(s.contains(">64</text>"));
        assert_eq!(count(&s, ">167</text>"), 2);
    }

    #[test]
    fn a_double_in_a_match_and_a_checker_on_the_bar() {
        // O on roll in a 7-point match at X 2 O 4, O holding the cube at 2 and doubling to
        // 4; O has a checker on the bar.
        let state =
            tavla_notation::parse_position("XGID=aa--BBBB----dE---d-e----B-:1:-1:-1:D:2:4:0:7:10")
                .unwrap();
        let s = svg(&state);
        assert!(s.contains("O doubles to 4: X to take or pass"), "{s}");
        assert!(s.contains("7-point match, X 2 O 4"), "{s}");
        // The offered cube shows 4 and sits in the doubler's half, not on the bar.
        assert!(
            s.contains(r#"font-size="17" font-weight="700">4</text>"#),
            "{s}"
        );
        assert!(
            !s.contains(&format!(r#"<rect x="{}" y"#, BARX + 2.0)),
            "{s}"
        );
        // The checker on the bar is O's, light (the side on roll), at the top of the bar.
        assert!(
            s.contains(&format!(r#"<circle cx="{}" cy="30""#, BARX - 5.0 + W / 2.0)),
            "{s}"
        );
        assert_eq!(
            count(&s, r##"r="18" fill="#f4ead2""##),
            15 - state.position.off() as usize
        );
    }

    #[test]
    fn stacks_of_more_than_five_carry_their_count() {
        // X: 7 on its 5-point, 8 on its 6-point; O the same on its own.
        let state =
            tavla_notation::parse_position("XGID=-----GH------------hg-----:0:0:1:00:0:0:0:0:10")
                .unwrap();
        let s = svg(&state);
        assert!(s.contains(r##"fill="#222">8</text>"##), "{s}");
        assert!(s.contains(r##"fill="#222">7</text>"##), "{s}");
        assert!(s.contains(r##"fill="#eee">8</text>"##), "{s}");
        assert!(s.contains(r##"fill="#eee">7</text>"##), "{s}");
        // Five drawn a stack.
        assert_eq!(count(&s, r#"r="18""#), 20);
        assert!(s.contains("X on roll"), "{s}");
    }

    #[test]
    fn an_owned_cube_sits_beside_the_tray_clear_of_the_bar() {
        // X on roll holds the cube at 2 in a 7-point match, with a checker on the bar.
        let held = "XGID=-b----E-C---eE---c-e----AA:1:1:1:00:3:1:0:7:10";
        let state = tavla_notation::parse_position(held).unwrap();
        let s = svg(&state);
        assert!(
            s.contains(&format!(r#"<rect x="{RIGHT}" y="{}""#, H - M - 36.0)),
            "{s}"
        );
        assert!(
            !s.contains(&format!(r#"<rect x="{}" y"#, BARX + 2.0)),
            "{s}"
        );
        assert!(s.contains("X light, home board bottom right"), "{s}");
        // Held by O, the side not on roll: at the top.
        let other = held.replace(":1:1:1:00:", ":1:-1:1:00:");
        let s = svg(&tavla_notation::parse_position(&other).unwrap());
        assert!(s.contains(&format!(r#"<rect x="{RIGHT}" y="{M}""#)), "{s}");
        // A big cube still fits its box: a smaller font.
        let big = held.replace(":1:1:1:00:", ":12:1:1:00:");
        let s = svg(&tavla_notation::parse_position(&big).unwrap());
        assert!(
            s.contains(r#"font-size="13" font-weight="700">4096</text>"#),
            "{s}"
        );
    }
}
