//! `plot(data, [labels], [title], [chartType])`: DolphinDB's chart function for a terminal
//! tool. It writes a self-contained SVG file (hand-written markup, no scripts or external
//! references) and prints its path. Vectors are one series, matrices one per column,
//! tables one per numeric column (a first temporal or text column becomes the x labels),
//! tuples one per element. Chart types: LINE, BAR/COLUMN, AREA, SCATTER, HISTOGRAM, PIE
//! (the first series, one slice per element, labelled by `labels`).
//! `plotHist(data, [binNum=10], [range], [title])`: a histogram of a numeric vector in
//! `binNum` bins over `range` (a pair or vector low, high; default the data's min..max);
//! values outside the range are left out. (The manual pages funcs/p/plot.md and
//! funcs/p/plotHist.md were not in the mirror; parameters follow DolphinDB's signatures.)

use beluga_runtime::CallCtx;
use crate::util::{describe, f64s};
use beluga_runtime::fmt::format_elem;
use beluga_runtime::registry::{Kind, fp};
use beluga_runtime::{Builtin, Column, DataType, Error, Result, Value};
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

const W: f64 = 720.0;
const H: f64 = 420.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 48.0;
const BOTTOM: f64 = 56.0;
const COLORS: [&str; 8] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const HIST_BINS: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chart {
    Line,
    Bar,
    Area,
    Scatter,
    Histogram,
    Pie,
}

pub struct Series {
    pub name: String,
    pub values: Vec<f64>,
}

fn plottable(t: DataType) -> bool {
    t.is_numeric() && !t.is_temporal() && t != DataType::Bool
}

fn texts(c: &Column) -> Vec<String> {
    (0..c.len()).map(|i| format_elem(c, i)).collect()
}

/// Series and default x labels of the data argument.
fn series_of(v: &Value) -> Result<(Vec<Series>, Option<Vec<String>>)> {
    let numeric = |name: String, c: &Column| -> Result<Series> {
        if !plottable(c.ty) {
            return Err(Error::arg(format!("plot: series {name} is {}, not numeric", c.ty.name())));
        }
        Ok(Series { name, values: f64s(c) })
    };
    match v {
        Value::Vector(c) => Ok((vec![numeric(String::new(), c)?], None)),
        Value::Matrix(m) => {
            let names: Vec<String> = match m.col_labels.as_deref() {
                Some(Value::Vector(l)) => texts(l),
                _ => (0..m.cols).map(|k| format!("#{k}")).collect(),
            };
            let s = (0..m.cols).map(|k| numeric(names.get(k).cloned().unwrap_or_default(), &m.column(k))).collect::<Result<_>>()?;
            let labels = match m.row_labels.as_deref() {
                Some(Value::Vector(l)) => Some(texts(l)),
                _ => None,
            };
            Ok((s, labels))
        }
        Value::Table(t) => {
            let mut labels = None;
            let mut s = Vec::new();
            for (k, (name, c)) in t.names.iter().zip(&t.cols).enumerate() {
                if plottable(c.ty) {
                    s.push(Series { name: name.clone(), values: f64s(c) });
                } else if k == 0 {
                    labels = Some(texts(c));
                }
            }
            if s.is_empty() {
                return Err(Error::arg("plot: the table has no numeric column"));
            }
            Ok((s, labels))
        }
        Value::Tuple(items) => {
            let s = items
                .iter()
                .enumerate()
                .map(|(k, x)| match x {
                    Value::Vector(c) => numeric(format!("#{k}"), c),
                    other => Err(Error::arg(format!("plot: tuple element {k} is {}, not a vector", describe(other)))),
                })
                .collect::<Result<_>>()?;
            Ok((s, None))
        }
        other => Err(Error::arg(format!("plot: data must be a vector, matrix, table or tuple, not {}", describe(other)))),
    }
}

fn chart_of(v: Option<&Value>) -> Result<Chart> {
    match v {
        None | Some(Value::Void) => Ok(Chart::Line),
        Some(Value::Constant(name, _)) => match *name {
            "LINE" => Ok(Chart::Line),
            "BAR" | "COLUMN" => Ok(Chart::Bar),
            "AREA" => Ok(Chart::Area),
            "SCATTER" => Ok(Chart::Scatter),
            "HISTOGRAM" => Ok(Chart::Histogram),
            "PIE" => Ok(Chart::Pie),
            other => Err(Error::arg(format!("plot: chart type {other} is not supported (LINE, BAR, COLUMN, AREA, SCATTER, HISTOGRAM, PIE)"))),
        },
        Some(other) => Err(Error::arg(format!("plot: chartType must be LINE, BAR, AREA, SCATTER, HISTOGRAM or PIE, not {}", describe(other)))),
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A short number for axis ticks.
fn tick_text(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-3..1e6).contains(&a) {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{x:.2e}")
    }
}

/// Turn each series into histogram counts over common bins; the labels are bin ranges.
fn histogram(series: Vec<Series>) -> (Vec<Series>, Vec<String>) {
    histogram_bins(series, HIST_BINS, None)
}

/// Histogram counts in `bins` equal bins over `range` (default: min..max of the data);
/// values outside the range are not counted, the high end belongs to the last bin.
fn histogram_bins(series: Vec<Series>, bins: usize, range: Option<(f64, f64)>) -> (Vec<Series>, Vec<String>) {
    let bins = bins.max(1);
    let (lo, hi) = match range {
        Some(r) => r,
        None => {
            let all: Vec<f64> = series.iter().flat_map(|s| s.values.iter().copied()).filter(|x| x.is_finite()).collect();
            let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if all.is_empty() { (0.0, 1.0) } else { (lo, hi) }
        }
    };
    let (lo, hi) = if lo == hi { (lo - 0.5, hi + 0.5) } else { (lo, hi) };
    let step = (hi - lo) / bins as f64;
    let labels = (0..bins).map(|b| tick_text(lo + step * b as f64)).collect();
    let out = series
        .into_iter()
        .map(|s| {
            let mut counts = vec![0.0; bins];
            for &x in s.values.iter().filter(|x| x.is_finite()) {
                if x < lo || x > hi {
                    continue;
                }
                let b = (((x - lo) / step) as usize).min(bins - 1);
                counts[b] += 1.0;
            }
            Series { name: s.name, values: counts }
        })
        .collect();
    (out, labels)
}

/// A pie chart of the first series: one slice per positive finite value, in order,
/// starting at 12 o'clock and going clockwise; legend entries carry the labels and shares.
fn pie_svg(series: &[Series], labels: Option<Vec<String>>, title: &[String]) -> String {
    let values: &[f64] = series.first().map(|s| s.values.as_slice()).unwrap_or(&[]);
    let total: f64 = values.iter().filter(|x| x.is_finite() && **x > 0.0).sum();
    let mut o = String::new();
    let _ = writeln!(o, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let slices = values.iter().filter(|x| x.is_finite() && **x > 0.0).count();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12" data-chart="Pie" data-series="1" data-points="{slices}">"#
    );
    let _ = writeln!(o, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    if let Some(t) = title.first().filter(|t| !t.is_empty()) {
        let _ = writeln!(o, r#"<text class="title" x="{}" y="28" text-anchor="middle" font-size="16">{}</text>"#, (W - RIGHT) / 2.0, esc(t));
    }
    let (cx, cy) = ((W - RIGHT) / 2.0, TOP + (H - TOP - BOTTOM / 2.0) / 2.0);
    let r = ((H - TOP - BOTTOM / 2.0) / 2.0 - 8.0).max(10.0);
    let mut angle = 0.0f64;
    let mut ly = TOP;
    for (i, &v) in values.iter().enumerate() {
        if !(v.is_finite() && v > 0.0) {
            continue;
        }
        let c = COLORS[i % COLORS.len()];
        let share = v / total;
        let a1 = angle + share * std::f64::consts::TAU;
        let at = |a: f64| (cx + r * a.sin(), cy - r * a.cos());
        let (x0, y0) = at(angle);
        let (x1, y1) = at(a1);
        if share >= 0.999_999 {
            let _ = writeln!(o, r#"<circle class="slice" data-index="{i}" cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}" fill="{c}"/>"#);
        } else {
            let large = u8::from(share > 0.5);
            let _ = writeln!(
                o,
                r#"<path class="slice" data-index="{i}" d="M{cx:.1},{cy:.1} L{x0:.1},{y0:.1} A{r:.1},{r:.1} 0 {large} 1 {x1:.1},{y1:.1} Z" fill="{c}" stroke="white"/>"#
            );
        }
        let name = labels.as_ref().and_then(|l| l.get(i).cloned()).unwrap_or_else(|| format!("#{i}"));
        let _ = writeln!(o, r#"<rect x="{}" y="{ly:.1}" width="12" height="12" fill="{c}"/>"#, W - RIGHT + 16.0);
        let _ = writeln!(o, r#"<text class="legend" x="{}" y="{:.1}">{} ({:.1}%)</text>"#, W - RIGHT + 34.0, ly + 10.0, esc(&name), share * 100.0);
        ly += 18.0;
        angle = a1;
    }
    o.push_str("</svg>\n");
    o
}

/// The SVG document of a chart.
pub fn svg(series: Vec<Series>, labels: Option<Vec<String>>, title: &[String], chart: Chart) -> String {
    if chart == Chart::Pie {
        return pie_svg(&series, labels, title);
    }
    let (series, labels) = if chart == Chart::Histogram {
        let (s, l) = histogram(series);
        (s, Some(l))
    } else {
        (series, labels)
    };
    let n = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
    let finite = || series.iter().flat_map(|s| s.values.iter().copied()).filter(|x| x.is_finite());
    let mut lo = finite().fold(f64::INFINITY, f64::min);
    let mut hi = finite().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if matches!(chart, Chart::Bar | Chart::Histogram | Chart::Area) {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if lo == hi {
        (lo, hi) = (lo - 1.0, hi + 1.0);
    }
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let y_of = |v: f64| TOP + ph * (1.0 - (v - lo) / (hi - lo));
    let bar_like = matches!(chart, Chart::Bar | Chart::Histogram);
    let slot = pw / n.max(1) as f64;
    let x_of = |i: usize| if bar_like || n <= 1 { LEFT + slot * (i as f64 + 0.5) } else { LEFT + pw * i as f64 / (n - 1) as f64 };

    let mut o = String::new();
    let _ = writeln!(o, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12" data-chart="{chart:?}" data-series="{}" data-points="{n}">"#,
        series.len()
    );
    let _ = writeln!(o, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    if let Some(t) = title.first().filter(|t| !t.is_empty()) {
        let _ = writeln!(o, r#"<text class="title" x="{}" y="28" text-anchor="middle" font-size="16">{}</text>"#, LEFT + pw / 2.0, esc(t));
    }
    if let Some(t) = title.get(1).filter(|t| !t.is_empty()) {
        let _ = writeln!(o, r#"<text class="x-title" x="{}" y="{}" text-anchor="middle">{}</text>"#, LEFT + pw / 2.0, H - 10.0, esc(t));
    }
    if let Some(t) = title.get(2).filter(|t| !t.is_empty()) {
        let _ = writeln!(o, r#"<text class="y-title" x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{}</text>"#, TOP + ph / 2.0, TOP + ph / 2.0, esc(t));
    }
    // axes, horizontal grid lines and y ticks
    for k in 0..=4 {
        let v = lo + (hi - lo) * k as f64 / 4.0;
        let y = y_of(v);
        let _ = writeln!(o, r##"<line x1="{LEFT}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#e0e0e0"/>"##, LEFT + pw);
        let _ = writeln!(o, r#"<text class="y-tick" x="{}" y="{:.1}" text-anchor="end">{}</text>"#, LEFT - 6.0, y + 4.0, tick_text(v));
    }
    let _ = writeln!(o, r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{}" stroke="#333"/>"##, TOP + ph);
    let _ = writeln!(o, r##"<line x1="{LEFT}" y1="{}" x2="{}" y2="{}" stroke="#333"/>"##, TOP + ph, LEFT + pw, TOP + ph);
    // x labels: at most 10, evenly spaced
    let labels: Vec<String> = labels.unwrap_or_else(|| (0..n).map(|i| i.to_string()).collect());
    let every = n.div_ceil(10).max(1);
    for i in (0..n.min(labels.len())).step_by(every) {
        let _ = writeln!(o, r#"<text class="x-tick" x="{:.1}" y="{}" text-anchor="middle">{}</text>"#, x_of(i), TOP + ph + 18.0, esc(&labels[i]));
    }
    // series
    let base = y_of(0.0_f64.clamp(lo, hi));
    let bw = slot * 0.8 / series.len().max(1) as f64;
    for (k, s) in series.iter().enumerate() {
        let c = COLORS[k % COLORS.len()];
        let pts: Vec<(f64, f64)> = s.values.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(i, &v)| (x_of(i), y_of(v))).collect();
        let coords = |p: &[(f64, f64)]| p.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ");
        match chart {
            Chart::Line => {
                let _ = writeln!(o, r#"<polyline class="series" data-series="{k}" data-points="{}" fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#, pts.len(), coords(&pts));
            }
            Chart::Area => {
                let mut poly = pts.clone();
                if let (Some(&(x0, _)), Some(&(x1, _))) = (pts.first(), pts.last()) {
                    poly.push((x1, base));
                    poly.push((x0, base));
                }
                let _ = writeln!(o, r#"<polygon class="series" data-series="{k}" data-points="{}" fill="{c}" fill-opacity="0.35" stroke="{c}" points="{}"/>"#, pts.len(), coords(&poly));
            }
            Chart::Scatter => {
                let _ = writeln!(o, r#"<g class="series" data-series="{k}" data-points="{}" fill="{c}">"#, pts.len());
                for (x, y) in &pts {
                    let _ = writeln!(o, r#"<circle class="point" cx="{x:.1}" cy="{y:.1}" r="3"/>"#);
                }
                let _ = writeln!(o, "</g>");
            }
            Chart::Bar | Chart::Histogram | Chart::Pie => {
                let _ = writeln!(o, r#"<g class="series" data-series="{k}" data-points="{}" fill="{c}">"#, pts.len());
                for (i, v) in s.values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                    let x = LEFT + slot * i as f64 + slot * 0.1 + bw * k as f64;
                    let y = y_of(*v);
                    let (top, h) = if y < base { (y, base - y) } else { (base, y - base) };
                    let _ = writeln!(o, r#"<rect class="bar" x="{x:.1}" y="{top:.1}" width="{bw:.1}" height="{h:.1}"/>"#);
                }
                let _ = writeln!(o, "</g>");
            }
        }
        // legend
        let ly = TOP + 18.0 * k as f64;
        let name = if s.name.is_empty() { format!("series {k}") } else { s.name.clone() };
        let _ = writeln!(o, r#"<rect x="{}" y="{:.1}" width="12" height="12" fill="{c}"/>"#, W - RIGHT + 16.0, ly);
        let _ = writeln!(o, r#"<text class="legend" x="{}" y="{:.1}">{}</text>"#, W - RIGHT + 34.0, ly + 10.0, esc(&name));
    }
    o.push_str("</svg>\n");
    o
}

fn str_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Scalar(c)) | Some(Value::Vector(c)) => texts(c),
        _ => Vec::new(),
    }
}

/// Where the next chart goes: `$BELUGA_PLOT_DIR` or the system temp folder.
fn next_path() -> std::path::PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::var_os("BELUGA_PLOT_DIR").map(std::path::PathBuf::from).unwrap_or_else(std::env::temp_dir);
    let k = N.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("beluga-plot-{}-{k}.svg", std::process::id()))
}

fn plot(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (series, default_labels) = series_of(&a[0])?;
    let labels = match a.get(1) {
        None | Some(Value::Void) => default_labels,
        Some(v) => Some(str_list(Some(v))),
    };
    let title = str_list(a.get(2));
    let chart = chart_of(a.get(3))?;
    let doc = svg(series, labels, &title, chart);
    write_chart(i, "plot", doc)
}

fn write_chart(i: &mut CallCtx, name: &str, doc: String) -> Result<Value> {
    let path = next_path();
    std::fs::write(&path, doc).map_err(|e| Error::new(beluga_runtime::ErrorKind::Io, format!("{name}: can't write {}: {e}", path.display())))?;
    let p = path.display().to_string();
    i.emit(&format!("plot written to {p}"));
    Ok(Value::Void)
}

/// `plotHist(data, [binNum=10], [range], [title])`.
fn plot_hist(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (series, _) = series_of(&a[0])?;
    let bins = match a.get(1) {
        None | Some(Value::Void) => HIST_BINS,
        Some(v) => match v.as_i64() {
            Some(b) if (1..=10_000).contains(&b) => b as usize,
            _ => return Err(Error::arg(format!("plotHist: binNum must be an integer from 1 to 10000, not {}", describe(v)))),
        },
    };
    let range = match a.get(2) {
        None | Some(Value::Void) => None,
        Some(Value::Vector(c)) | Some(Value::Pair(c)) if c.len() == 2 && c.ty.is_numeric() => {
            let v = f64s(c);
            if !(v[0].is_finite() && v[1].is_finite() && v[0] < v[1]) {
                return Err(Error::arg("plotHist: range must be two numbers low, high with low < high"));
            }
            Some((v[0], v[1]))
        }
        Some(v) => return Err(Error::arg(format!("plotHist: range must be a pair or vector of two numbers, not {}", describe(v)))),
    };
    let title = str_list(a.get(3));
    let (counts, labels) = histogram_bins(series, bins, range);
    // the counts are drawn as bars; histogram_bins already binned them
    let doc = svg(counts, Some(labels), &title, Chart::Bar);
    write_chart(i, "plotHist", doc)
}

pub const DEFS: &[Builtin] = &[
    fp("plot", Kind::System, 1, 6, plot, &["data", "labels", "title", "chartType", "stacking", "extras"]),
    fp("plotHist", Kind::System, 1, 4, plot_hist, &["data", "binNum", "range", "title"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn count(doc: &str, needle: &str) -> usize {
        doc.matches(needle).count()
    }

    #[test]
    fn line_and_bar_charts() {
        let s = vec![Series { name: "a".into(), values: vec![1.0, 2.0, f64::NAN, 4.0] }, Series { name: "b<c".into(), values: vec![0.0, -1.0, 1.0, 2.0] }];
        let doc = svg(s, None, &["Title & more".into()], Chart::Line);
        assert_eq!(count(&doc, "<polyline class=\"series\""), 2);
        assert!(doc.contains(r#"data-series="0" data-points="3""#), "a null is skipped");
        assert!(doc.contains("Title &amp; more") && doc.contains("b&lt;c"));
        let s = vec![Series { name: "a".into(), values: vec![3.0, 1.0, 2.0] }];
        let doc = svg(s, Some(vec!["x".into(), "y".into(), "z".into()]), &[], Chart::Bar);
        assert_eq!(count(&doc, "<rect class=\"bar\""), 3);
        assert!(doc.contains(">y</text>"));
    }

    #[test]
    fn pie_slices_and_shares() {
        let s = vec![Series { name: "a".into(), values: vec![1.0, 3.0, f64::NAN, 0.0, 4.0] }];
        let doc = svg(s, Some(vec!["x".into(), "y".into(), "n".into(), "z".into(), "w".into()]), &["Share".into()], Chart::Pie);
        // three positive values: three slices, shares 12.5 / 37.5 / 50 %
        assert_eq!(count(&doc, "class=\"slice\""), 3);
        assert!(doc.contains("x (12.5%)") && doc.contains("y (37.5%)") && doc.contains("w (50.0%)"), "{doc}");
        assert!(!doc.contains("z (") && doc.contains(">Share</text>"));
        // one value: a full circle
        let doc = svg(vec![Series { name: "a".into(), values: vec![2.0] }], None, &[], Chart::Pie);
        assert!(doc.contains("<circle class=\"slice\""));
    }

    #[test]
    fn histogram_bins_and_range() {
        // 0..99 in 4 bins over 0..100: 25 each; over 50..100 only 50..99 count
        let s = || vec![Series { name: String::new(), values: (0..100).map(|x| x as f64).collect() }];
        let (h, labels) = histogram_bins(s(), 4, Some((0.0, 100.0)));
        assert_eq!(h[0].values, vec![25.0; 4]);
        assert_eq!(labels, vec!["0", "25", "50", "75"]);
        let (h, _) = histogram_bins(s(), 5, Some((50.0, 100.0)));
        assert_eq!(h[0].values, vec![10.0; 5]);
    }

    #[test]
    fn histogram_counts() {
        let s = vec![Series { name: String::new(), values: (0..100).map(|x| x as f64).collect() }];
        let (h, labels) = histogram(s);
        assert_eq!(labels.len(), HIST_BINS);
        assert_eq!(h[0].values, vec![10.0; HIST_BINS]);
    }
}
