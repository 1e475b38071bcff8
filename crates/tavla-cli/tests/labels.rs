//! The label bank in `data/labels`: every file reads as `tavla train fit` reads it, ends at a
//! chunk boundary (so that `tavla train label` resumes it after decompression), and has a row
//! in the README whose counts are the file's.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use tavla_nn::supervised::{read_samples, Sample};

fn bank() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/labels")
}

/// The README's table rows: file name, labelled positions, games.
fn readme_rows() -> Vec<(String, usize, u64)> {
    let text = std::fs::read_to_string(bank().join("README.md")).expect("data/labels/README.md");
    text.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells.get(1)?.trim_matches('`');
            if !name.ends_with(".txt.gz") {
                return None;
            }
            let number = |s: &str| s.replace(',', "").parse().ok();
            Some((
                name.to_string(),
                number(cells[2])?,
                number(cells[3])? as u64,
            ))
        })
        .collect()
}

#[test]
fn every_label_file_reads_resumes_and_is_listed() {
    let rows = readme_rows();
    let mut files: Vec<PathBuf> = std::fs::read_dir(bank())
        .expect("data/labels")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".txt.gz"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no label files in data/labels");
    assert_eq!(files.len(), rows.len(), "one README row per file: {rows:?}");
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            text.starts_with("# tavla train label: "),
            "{name}: no header"
        );
        let last = text.lines().last().unwrap_or_default();
        let games: u64 = last
            .strip_prefix("# games ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: ends with {last:?}, not a chunk's end"));
        let mut samples: Vec<Sample> = Vec::new();
        read_samples(BufReader::new(text.as_bytes()), &mut samples)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let row = rows
            .iter()
            .find(|r| r.0 == name)
            .unwrap_or_else(|| panic!("{name} has no row in data/labels/README.md"));
        assert_eq!(
            (samples.len(), games),
            (row.1, row.2),
            "{name}: positions and games"
        );
        // Every line is a header, a chunk mark or a position.
        let lines = BufReader::new(text.as_bytes()).lines().count();
        let marks = text.lines().filter(|l| l.starts_with('#')).count();
        assert_eq!(lines, samples.len() + marks, "{name}");
    }
}
