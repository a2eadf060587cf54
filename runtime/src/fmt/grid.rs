//! Tables and matrices (§3.4, §3.7): a header line, a line of dashes per column, one
//! line per row; cells left-aligned, one space between columns, trailing spaces trimmed.

use super::num::format_elem;
use crate::column::Column;
use crate::table::Table;
use crate::value::{Matrix, Value};

/// Tables (and matrices) longer than this print only their first `TABLE_HEAD_ROWS` and
/// last `TABLE_TAIL_ROWS` rows with a line `...` between (DolphinDB's exact threshold is
/// unverified). The REPL uses smaller limits (see `super::Limits`).
pub const TABLE_MAX_ROWS: usize = 1024;
pub const TABLE_HEAD_ROWS: usize = 20;
pub const TABLE_TAIL_ROWS: usize = 10;

/// One printed column: header text and the cell texts of the printed rows.
struct GridCol {
    header: String,
    cells: Vec<String>,
}

/// Display width in terminal cells: CJK and other wide characters count two.
pub fn display_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

fn width(s: &str) -> usize {
    display_width(s)
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

/// Rows to print of an `n`-row object, and after how many of them the `...` line goes.
fn shown_rows(n: usize) -> (Vec<usize>, Option<usize>) {
    let l = super::limits();
    super::shown_indices(n, l.max_rows, l.head_rows, l.tail_rows)
}

fn col_cells(col: &Column, rows: &[usize]) -> Vec<String> {
    rows.iter().filter(|&&i| i < col.len()).map(|&i| format_elem(col, i)).collect()
}

/// Fit the columns to the terminal width: keep columns from the left while they fit and
/// replace the rest by one `...` column.
fn fit_width(cols: Vec<GridCol>, label_width: usize, rows: usize) -> Vec<GridCol> {
    let Some(limit) = super::limits().width else { return cols };
    let w = |c: &GridCol| c.cells.iter().map(|s| width(s)).max().unwrap_or(0).max(width(&c.header));
    let total: usize = label_width + cols.iter().map(|c| w(c) + 1).sum::<usize>();
    if total <= limit + 1 || cols.len() < 2 {
        return cols;
    }
    let mut used = label_width + 4; // room for the `...` column
    let mut out = Vec::new();
    let n = cols.len();
    for c in cols {
        let cw = w(&c) + 1;
        if used + cw > limit && !out.is_empty() {
            break;
        }
        used += cw;
        out.push(c);
    }
    if out.len() < n {
        out.push(GridCol { header: "...".into(), cells: vec!["...".into(); rows] });
    }
    out
}

/// Render a grid. `labels`: optional row labels, printed as a leading column whose
/// cells end with `|` (labelled matrices).
fn render(cols: &[GridCol], labels: Option<&[String]>, rows: usize, cut: Option<usize>) -> String {
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
        if cut == Some(r) {
            out.push_str("\n...");
        }
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
    out
}

/// Console block of a table.
pub fn table_text(t: &Table) -> String {
    let (rows, cut) = shown_rows(t.rows());
    let cols: Vec<GridCol> = t
        .names
        .iter()
        .zip(&t.cols)
        .map(|(name, col)| GridCol {
            header: name.clone(),
            cells: col_cells(col, &rows),
        })
        .collect();
    let cols = fit_width(cols, 0, rows.len());
    render(&cols, None, rows.len(), cut)
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
    let (rows, cut) = shown_rows(m.rows);
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
            cells: col_cells(&m.column(c), &rows),
        })
        .collect();
    let labels = m.row_labels.as_ref().map(|l| {
        let all = label_texts(l, m.rows);
        rows.iter().map(|&r| all.get(r).cloned().unwrap_or_default()).collect::<Vec<_>>()
    });
    let lw = labels.as_ref().map(|l| l.iter().map(|s| width(s)).max().unwrap_or(0) + 1).unwrap_or(0);
    let cols = fit_width(cols, lw, rows.len());
    render(&cols, labels.as_deref(), rows.len(), cut)
}
