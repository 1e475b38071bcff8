//! The figures of Benjamin and Ross's paper as PNG files (feature `plot`).
//!
//! * Figure 3: the raw pip count of every position against its index;
//! * Figure 4: the expected pip count (EPC) of every position against its index.
//!
//! Text is drawn with a TrueType font read at run time ([`find_font`]), so that no font is
//! compiled in.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::one_sided::OneSidedDb;

/// The environment variable naming a TrueType font file for the figures.
pub const FONT_ENV: &str = "TAVLA_FONT";

/// Fonts tried when neither an explicit font nor [`FONT_ENV`] is given.
pub const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// A figure that could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// No font was given and none of [`FONT_CANDIDATES`] exists.
    #[error("no TrueType font found: pass one explicitly or set {FONT_ENV}")]
    NoFont,
    /// The font file cannot be read.
    #[error("cannot read font {}", path.display())]
    FontIo {
        /// The font file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The font file is not a font plotters can use.
    #[error("{}: not a TrueType/OpenType font", path.display())]
    BadFont {
        /// The font file.
        path: PathBuf,
    },
    /// The output directory cannot be made.
    #[error("cannot create directory {}", path.display())]
    OutDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Drawing or encoding the PNG failed.
    #[error("drawing {}: {message}", path.display())]
    Draw {
        /// The PNG file.
        path: PathBuf,
        /// What plotters or the encoder reported.
        message: String,
    },
    /// The PNG cannot be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The PNG file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Draws a picture of `size` (width, height) with `draw` in memory and writes it to `path` as
/// a PNG, whatever the file's name ends with; nothing is written when drawing fails.
/// `draw`'s errors are reported as [`PlotError::Draw`] (plotters' errors, as text).
///
/// # Errors
/// [`PlotError::Draw`] when drawing or encoding fails, [`PlotError::Write`] when the file
/// cannot be written.
pub fn save_png<F>(path: &Path, size: (u32, u32), draw: F) -> Result<(), PlotError>
where
    F: FnOnce(&DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>) -> Result<(), String>,
{
    use image::ImageEncoder;
    let failed = |message: String| PlotError::Draw {
        path: path.to_path_buf(),
        message,
    };
    let (width, height) = size;
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
        draw(&root).map_err(failed)?;
        root.present().map_err(|e| failed(e.to_string()))?;
    }
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&pixels, width, height, image::ColorType::Rgb8)
        .map_err(|e| failed(e.to_string()))?;
    std::fs::write(path, png).map_err(|source| PlotError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The font to use: `$TAVLA_FONT` if set, else the first of [`FONT_CANDIDATES`] that exists.
#[must_use]
pub fn find_font() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(FONT_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    FONT_CANDIDATES
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// Makes `font` (or, when `None`, [`find_font`]'s) the `sans-serif` font of the figures drawn
/// after, and returns its path.
///
/// # Errors
/// [`PlotError`] when no font is found or the file is not a usable font.
pub fn register_font(font: Option<&Path>) -> Result<PathBuf, PlotError> {
    let font = match font {
        Some(f) => f.to_path_buf(),
        None => find_font().ok_or(PlotError::NoFont)?,
    };
    let bytes = match std::fs::read(&font) {
        Ok(bytes) => bytes,
        Err(source) => return Err(PlotError::FontIo { path: font, source }),
    };
    // plotters keeps fonts for the life of the process; a figure run registers one font.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_err() {
        return Err(PlotError::BadFont { path: font });
    }
    Ok(font)
}

/// Draws Figure 3 (`fig3-pips.png`) and Figure 4 (`fig4-epc.png`) into `out_dir`, creating it
/// if needed, and returns the two paths.
///
/// # Errors
/// [`PlotError`] when the font, the directory or a PNG file fails.
pub fn draw_figures(
    db: &OneSidedDb,
    out_dir: &Path,
    font: Option<&Path>,
) -> Result<[PathBuf; 2], PlotError> {
    register_font(font)?;
    std::fs::create_dir_all(out_dir).map_err(|source| PlotError::OutDir {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let n = db.len();
    let mut pips = Vec::with_capacity(n as usize);
    let mut epc = Vec::with_capacity(n as usize);
    for i in 0..n {
        let e = db.entry(i).expect("index in range");
        let pos = db.hash().unrank(i).expect("index in range");
        pips.push((i, f64::from(pos.pips())));
        epc.push((i, e.epc()));
    }
    let shape = format!("{} points, {} checkers", db.points(), db.checkers());
    let fig3 = out_dir.join("fig3-pips.png");
    let fig4 = out_dir.join("fig4-epc.png");
    scatter(
        &fig3,
        &format!("Figure 3: raw pip count against index ({shape})"),
        "pip count",
        &pips,
    )?;
    scatter(
        &fig4,
        &format!("Figure 4: expected pip count (EPC) against index ({shape})"),
        "EPC (mean rolls x 49/6)",
        &epc,
    )?;
    Ok([fig3, fig4])
}

fn scatter(path: &Path, title: &str, y_label: &str, data: &[(u64, f64)]) -> Result<(), PlotError> {
    let x_max = data.len().max(1) as u64;
    let y_max = data.iter().map(|&(_, y)| y).fold(1.0, f64::max) * 1.05;
    save_png(path, (1400, 900), |root| {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 28))
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d(0u64..x_max, 0.0..y_max)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("position index")
            .y_desc(y_label)
            .axis_desc_style(("sans-serif", 20))
            .label_style(("sans-serif", 16))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| err(&e))?;
        let colour = RGBColor(31, 84, 160);
        chart
            .draw_series(
                data.iter()
                    .map(|&(x, y)| Circle::new((x, y), 1, colour.mix(0.55).filled())),
            )
            .map_err(|e| err(&e))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_two_pngs() {
        let Some(font) = find_font() else {
            eprintln!("no font on this machine; skipping");
            return;
        };
        let db = OneSidedDb::build(6, 6).unwrap();
        let dir = std::env::temp_dir().join(format!("tavla-plot-{}", std::process::id()));
        let files = draw_figures(&db, &dir, Some(&font)).unwrap();
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_bad_font_is_named() {
        let db = OneSidedDb::build(2, 2).unwrap();
        let bad = std::env::temp_dir().join(format!("tavla-notafont-{}", std::process::id()));
        std::fs::write(&bad, b"not a font").unwrap();
        let e = draw_figures(&db, &std::env::temp_dir(), Some(&bad)).unwrap_err();
        assert!(matches!(e, PlotError::BadFont { .. }), "{e}");
        std::fs::remove_file(&bad).unwrap();
    }
}
