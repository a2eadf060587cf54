//! Tables and matrices (§3.4, §3.7): a header line, a line of dashes per column, one
//! line per row; cells left-aligned, one space between columns, trailing spaces trimmed.

use super::num::format_elem;
use crate::column::Column;
use crate::table::Table;
use crate::value::{Matrix, Value};

/// Tables (and matrices) longer than this print only their first `TABLE_HEAD_ROWS`
/// rows followed by a line `...` (DolphinDB's exact threshold is unverified).
pub const TABLE_MAX_ROWS: usize = 1024;
pub const TABLE_HEAD_ROWS: usize = 20;

/// One printed column: header text and the cell texts of the printed rows.
struct GridCol {
    header: String,
    cells: Vec<String>,
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad(out: &mut String, s: &str, w: usize) {
    out.push_str(s);
    for _ in width(s)..w {
        out.push(' ');
    }
}

fn push_line(out: &mut String, line: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(line.trim_end_matches(' '));
}

/// Rows to print of an `n`-row object, and whether it was truncated.
fn shown_rows(n: usize) -> (usize, bool) {
    if n > TABLE_MAX_ROWS {
        (TABLE_HEAD_ROWS, true)
    } else {
        (n, false)
    }
}

fn col_cells(col: &Column, rows: usize) -> Vec<String> {
    (0..rows.min(col.len()))
        .map(|i| format_elem(col, i))
        .collect()
}

/// Render a grid. `labels`: optional row labels, printed as a leading column whose
/// cells end with `|` (labelled matrices).
fn render(cols: &[GridCol], labels: Option<&[String]>, rows: usize, truncated: bool) -> String {
    let widths: Vec<usize> = cols
        .iter()
        .map(|c| {
            c.cells
                .iter()
                .map(|s| width(s))
                .max()
                .unwrap_or(0)
                .max(width(&c.header))
        })
        .collect();
    let lw = labels.map(|l| l.iter().map(|s| width(s)).max().unwrap_or(0));
    let mut out = String::new();
    // header
    let mut line = String::new();
    if let Some(lw) = lw {
        line.push_str(&" ".repeat(lw + 1));
    }
    for (k, c) in cols.iter().enumerate() {
        if k > 0 {
            line.push(' ');
        }
        pad(&mut line, &c.header, widths[k]);
    }
    push_line(&mut out, &line);
    // separator
    let mut line = String::new();
    if let Some(lw) = lw {
        line.push_str(&" ".repeat(lw + 1));
    }
    for (k, w) in widths.iter().enumerate() {
        if k > 0 {
            line.push(' ');
        }
        line.push_str(&"-".repeat(*w));
    }
    // the separator line always exists, even when empty
    out.push('\n');
    out.push_str(line.trim_end_matches(' '));
    for r in 0..rows {
        let mut line = String::new();
        if let (Some(lw), Some(l)) = (lw, labels) {
            pad(&mut line, l.get(r).map(|s| s.as_str()).unwrap_or(""), lw);
            line.push('|');
        }
        for (k, c) in cols.iter().enumerate() {
            if k > 0 {
                line.push(' ');
            }
            pad(
                &mut line,
                c.cells.get(r).map(|s| s.as_str()).unwrap_or(""),
                widths[k],
            );
        }
        out.push('\n');
        out.push_str(line.trim_end_matches(' '));
    }
    if truncated {
        out.push_str("\n...");
    }
    out
}

/// Console block of a table.
pub fn table_text(t: &Table) -> String {
    let (rows, truncated) = shown_rows(t.rows());
    let cols: Vec<GridCol> = t
        .names
        .iter()
        .zip(&t.cols)
        .map(|(name, col)| GridCol {
            header: name.clone(),
            cells: col_cells(col, rows),
        })
        .collect();
    render(&cols, None, rows, truncated)
}

/// Texts of a label value (a vector of labels; other forms element by element).
fn label_texts(v: &Value, n: usize) -> Vec<String> {
    match v {
        Value::Vector(c) | Value::Pair(c) => (0..c.len()).map(|i| format_elem(c, i)).collect(),
        Value::Scalar(c) => vec![format_elem(c, 0)],
        Value::Tuple(items) => items
            .iter()
            .map(|x| super::nested_text(x, &|_| String::new()))
            .collect(),
        _ => (0..n).map(|i| i.to_string()).collect(),
    }
}

/// Console block of a matrix: headers `#0 #1 ...` or the column labels; row labels
/// print as a leading column `label|`.
pub fn matrix_text(m: &Matrix) -> String {
    let (rows, truncated) = shown_rows(m.rows);
    let headers: Vec<String> = match &m.col_labels {
        Some(l) => {
            let mut h = label_texts(l, m.cols);
            h.resize(m.cols, String::new());
            h
        }
        None => (0..m.cols).map(|c| format!("#{c}")).collect(),
    };
    let cols: Vec<GridCol> = headers
        .into_iter()
        .enumerate()
        .map(|(c, header)| GridCol {
            header,
            cells: col_cells(&m.column(c), rows),
        })
        .collect();
    let labels = m.row_labels.as_ref().map(|l| label_texts(l, m.rows));
    render(&cols, labels.as_deref(), rows, truncated)
}
