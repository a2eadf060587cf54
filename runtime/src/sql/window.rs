//! SQL window (analytic) functions (progr/sql/analyticFunction.md):
//! `f(args) over (partition by k… order by o [asc|desc]… [rows|range frame])`.
//!
//! The prepass turns `over (spec)` into the infix name `__over` applied to the call and
//! the spec's source text; this module finds those nodes in select items, computes each
//! window as one column over the whole frame and binds it under a hidden name. Rows are
//! sorted once into contiguous partitions (stable, ordered by the order keys); ranking,
//! offsets, frame bounds, running sums (prefix sums) and sliding min/max (monotonic
//! deques) are computed on those sorted runs, then scattered back to the original row
//! order (the manual: the output keeps the table's order). This module owns the clause;
//! the functions' kernels are found on rows (`sql/over.rs`: the SQL-only analytic
//! functions, and the `over` slot of builtin rows such as `sum`). Functions without a
//! kernel are called once per partition when every row's frame is the whole partition,
//! and once per distinct frame otherwise.

use super::frame::{eval_in, to_column, Frame, Scope};
use super::keys::{bucket_perm, group_ids};
use super::order::{sort_rows, SortKey};
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::registry::{OverInput, OverKernel};
use crate::value::Value;
use beluga_lang::ast::{Arg, Expr, ExprKind, Literal};

/// The infix name the prepass gives `over`.
pub(crate) const OVER: &str = "__over";

/// The call and spec text of a window node `call __over "spec"`.
pub(crate) fn as_window(e: &Expr) -> Option<(&Expr, &str)> {
    if let ExprKind::Infix(call, g, spec) = &e.kind {
        if matches!(&g.kind, ExprKind::Ident(n) if n == OVER) {
            if let ExprKind::Lit(Literal::Str(s)) = &spec.kind {
                return Some((call, s));
            }
        }
    }
    None
}

/// Whether an expression contains a window function.
pub(crate) fn has_window(e: &Expr) -> bool {
    let mut found = false;
    super::plan::walk(e, &mut |x| {
        if as_window(x).is_some() {
            found = true
        }
    });
    found
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    UnboundedPreceding,
    Preceding(f64),
    Current,
    Following(f64),
    /// `n unit PRECEDING|FOLLOWING` with a DURATION (RANGE frames on a temporal order
    /// column): the count and the unit; `true` for preceding
    Dur(i64, &'static str, bool),
    UnboundedFollowing,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum FrameKind {
    Rows,
    Range,
}

struct Spec {
    partition: Vec<Expr>,
    order: Vec<(Expr, bool)>,
    frame: Option<(FrameKind, Bound, Bound)>,
}

/// Split at top-level commas (outside brackets and quotes).
fn split_commas(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None::<char>);
    for ch in s.chars() {
        match quote {
            Some(q) => {
                if ch == q {
                    quote = None
                }
            }
            None => match ch {
                '"' | '\'' => quote = Some(ch),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            },
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

/// Byte position of a keyword (case-insensitive, whole word, outside brackets).
fn find_kw(s: &str, kw: &[&str]) -> Option<(usize, usize)> {
    let lower = s.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut depth = 0i32;
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        let word_start = k == 0 || !(bytes[k - 1].is_ascii_alphanumeric() || bytes[k - 1] == b'_');
        if depth == 0 && word_start {
            // the keyword words separated by any whitespace
            let mut p = k;
            let mut ok = true;
            for (wi, w) in kw.iter().enumerate() {
                if wi > 0 {
                    let q = p;
                    while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                        p += 1;
                    }
                    if p == q {
                        ok = false;
                        break;
                    }
                }
                if lower[p..].starts_with(w) {
                    p += w.len();
                } else {
                    ok = false;
                    break;
                }
            }
            let word_end = p >= bytes.len() || !(bytes[p].is_ascii_alphanumeric() || bytes[p] == b'_');
            if ok && word_end {
                return Some((k, p));
            }
        }
        k += 1;
    }
    None
}

fn parse_expr(i: &Interpreter, text: &str) -> Result<Expr> {
    let is_fn = |n: &str| i.is_function_name(n);
    beluga_lang::parse_expr(text.trim(), &is_fn)
        .map_err(|e| Error::arg(format!("over clause: can't parse `{}`: {}", text.trim(), e.message)))
}

/// A DURATION offset `5m`, `1M`, `100ms`, `2H`: count and unit (as temporalAdd spells it).
fn duration(w: &str) -> Option<(i64, &'static str)> {
    let d = w.find(|c: char| !c.is_ascii_digit())?;
    let n: i64 = w[..d].parse().ok()?;
    const UNITS: &[&str] = &["ns", "us", "ms", "s", "m", "H", "d", "w", "M", "y", "B"];
    let u = UNITS.iter().find(|u| **u == &w[d..])?;
    Some((n, u))
}

fn parse_bound(text: &str) -> Result<Bound> {
    // units are case-sensitive (`m` minute, `M` month): keep the offset's spelling
    let words: Vec<String> = text
        .split_whitespace()
        .enumerate()
        .map(|(k, w)| if k == 0 && duration(w).is_some() { w.to_string() } else { w.to_ascii_lowercase() })
        .collect();
    let w: Vec<&str> = words.iter().map(|s| s.as_str()).collect();
    let num = |s: &str| -> Result<f64> {
        s.parse::<f64>().map_err(|_| {
            Error::arg(format!("over clause: the frame offset `{s}` must be a number (DURATION offsets are not supported)"))
        })
    };
    match w.as_slice() {
        ["unbounded", "preceding"] => Ok(Bound::UnboundedPreceding),
        ["unbounded", "following"] => Ok(Bound::UnboundedFollowing),
        ["current", "row"] => Ok(Bound::Current),
        [n, dir @ ("preceding" | "following")] if duration(n).is_some() => {
            let (c, u) = duration(n).unwrap_or((0, "d"));
            Ok(Bound::Dur(c, u, *dir == "preceding"))
        }
        [n, "preceding"] => Ok(Bound::Preceding(num(n)?)),
        [n, "following"] => Ok(Bound::Following(num(n)?)),
        _ => Err(Error::arg(format!("over clause: invalid frame bound `{}`", text.trim()))),
    }
}

fn parse_spec(i: &Interpreter, text: &str) -> Result<Spec> {
    let part = find_kw(text, &["partition", "by"]);
    let order = find_kw(text, &["order", "by"]);
    let rows = find_kw(text, &["rows"]).map(|p| (p, FrameKind::Rows));
    let range = find_kw(text, &["range"]).map(|p| (p, FrameKind::Range));
    let fr = rows.or(range);
    let ends = |start: usize| -> usize {
        [part.map(|p| p.0), order.map(|p| p.0), fr.map(|p| p.0 .0)]
            .into_iter()
            .flatten()
            .filter(|&p| p > start)
            .min()
            .unwrap_or(text.len())
    };
    let first = [part.map(|p| p.0), order.map(|p| p.0), fr.map(|p| p.0 .0)].into_iter().flatten().min();
    if let Some(f) = first {
        if !text[..f].trim().is_empty() {
            return Err(Error::arg(format!("over clause: unexpected `{}`", text[..f].trim())));
        }
    } else if !text.trim().is_empty() {
        return Err(Error::arg(format!("over clause: unexpected `{}`", text.trim())));
    }
    let mut spec = Spec { partition: vec![], order: vec![], frame: None };
    if let Some((_, e)) = part {
        for p in split_commas(&text[e..ends(e)]) {
            spec.partition.push(parse_expr(i, &p)?);
        }
    }
    if let Some((_, e)) = order {
        for p in split_commas(&text[e..ends(e)]) {
            let t = p.trim();
            let lt = t.to_ascii_lowercase();
            let (body, asc) = if lt.ends_with(" desc") {
                (&t[..t.len() - 5], false)
            } else if lt.ends_with(" asc") {
                (&t[..t.len() - 4], true)
            } else {
                (t, true)
            };
            spec.order.push((parse_expr(i, body)?, asc));
        }
    }
    if let Some(((_, e), kind)) = fr {
        let body = text[e..ends(e)].trim();
        let (lo, hi) = if let Some((bs, be)) = find_kw(body, &["between"]) {
            if !body[..bs].trim().is_empty() {
                return Err(Error::arg("over clause: invalid frame"));
            }
            let rest = &body[be..];
            let (as_, ae) = find_kw(rest, &["and"]).ok_or_else(|| Error::arg("over clause: BETWEEN needs AND"))?;
            (parse_bound(&rest[..as_])?, parse_bound(&rest[ae..])?)
        } else {
            // `rows n preceding` = between n preceding and current row
            (parse_bound(body)?, Bound::Current)
        };
        if matches!(lo, Bound::UnboundedFollowing) || matches!(hi, Bound::UnboundedPreceding) {
            return Err(Error::arg("over clause: the lower frame bound must come before the upper one"));
        }
        let offset = |b: Bound| matches!(b, Bound::Preceding(_) | Bound::Following(_) | Bound::Dur(..));
        if kind == FrameKind::Rows && (matches!(lo, Bound::Dur(..)) || matches!(hi, Bound::Dur(..))) {
            return Err(Error::arg("over clause: a ROWS frame offset is a number of rows, not a DURATION"));
        }
        if matches!(lo, Bound::Dur(..)) != matches!(hi, Bound::Dur(..)) && offset(lo) && offset(hi) {
            return Err(Error::arg("over clause: the PRECEDING and FOLLOWING offsets must have the same type"));
        }
        if kind == FrameKind::Range && spec.order.len() != 1 && (offset(lo) || offset(hi)) {
            return Err(Error::arg("over clause: RANGE with an offset needs exactly one ORDER BY expression"));
        }
        spec.frame = Some((kind, lo, hi));
    }
    Ok(spec)
}

/// Replace every window node of `e` by a hidden column bound in `scope`.
pub(crate) fn lift(i: &mut Interpreter, frame: &Frame, scope: &mut Scope, e: &Expr, counter: &mut usize) -> Result<Expr> {
    if let Some((call, spec)) = as_window(e) {
        let col = compute(i, frame, call, spec)?;
        let name = format!("__window_{counter}");
        *counter += 1;
        scope.insert(name.clone(), Value::Vector(col));
        return Ok(Expr::new(ExprKind::Ident(name), e.span));
    }
    if !has_window(e) {
        return Ok(e.clone());
    }
    // windows inside a larger expression: rewrite the nodes holding them
    let mut err = None;
    let out = super::plan::map_expr(e, &mut |x| {
        if as_window(x).is_some() && err.is_none() {
            match lift(i, frame, scope, x, counter) {
                Ok(r) => return Some(r),
                Err(er) => err = Some(er),
            }
        }
        None
    });
    match err {
        Some(er) => Err(er),
        None => Ok(out),
    }
}

fn call_parts(call: &Expr) -> Result<(String, Vec<Expr>)> {
    match &call.kind {
        ExprKind::Call(g, args) => {
            let name = match &g.kind {
                ExprKind::Ident(n) => n.clone(),
                _ => return Err(Error::arg("over clause: the window function must be a named function")),
            };
            let mut v = Vec::new();
            for a in args {
                match a {
                    Arg::Pos(Some(e)) | Arg::Named(_, e) => v.push(e.clone()),
                    Arg::Pos(None) => return Err(Error::arg("over clause: a window function can't take empty arguments")),
                }
            }
            Ok((name, v))
        }
        ExprKind::Ident(n) => Ok((n.clone(), vec![])),
        _ => Err(Error::arg("over clause: OVER must follow a function call such as sum(x) or rank()")),
    }
}

/// Rows sorted into partitions, and the run structure of the order keys.
struct Layout {
    /// permuted position → original row
    perm: Vec<usize>,
    /// partition k spans [seg[k], seg[k+1]) of the permuted rows
    seg: Vec<usize>,
    /// start / end (exclusive) of each permuted row's peer run (equal order keys)
    peer_lo: Vec<usize>,
    peer_hi: Vec<usize>,
    /// permuted row → partition index
    part_of: Vec<usize>,
}

fn layout(i: &mut Interpreter, frame: &Frame, spec: &Spec) -> Result<(Layout, Vec<Column>)> {
    let n = frame.rows;
    let mut pcols = Vec::with_capacity(spec.partition.len());
    for e in &spec.partition {
        pcols.push(to_column(&eval_in(i, frame.scope(), e)?, n, "a partition by expression")?);
    }
    let mut ocols = Vec::with_capacity(spec.order.len());
    for (e, _) in &spec.order {
        ocols.push(to_column(&eval_in(i, frame.scope(), e)?, n, "an order by expression")?);
    }
    let (perm, seg) = if pcols.is_empty() {
        ((0..n).collect::<Vec<_>>(), vec![0, n])
    } else {
        let refs: Vec<&Column> = pcols.iter().collect();
        let g = group_ids(&refs);
        bucket_perm(&g.gid, g.n)
    };
    let mut perm = perm;
    if !ocols.is_empty() {
        let keys: Vec<SortKey> = ocols.iter().zip(&spec.order).map(|(c, (_, asc))| SortKey { col: c, asc: *asc, nulls_first: None }).collect();
        for w in seg.windows(2) {
            sort_rows(&keys, &mut perm[w[0]..w[1]]);
        }
    }
    let sorted_o: Vec<Column> = ocols.iter().map(|c| c.take_usize(&perm)).collect();
    let okey: Option<Vec<u32>> = if sorted_o.is_empty() {
        None
    } else {
        let refs: Vec<&Column> = sorted_o.iter().collect();
        Some(group_ids(&refs).gid)
    };
    let (mut peer_lo, mut peer_hi, mut part_of) = (vec![0; n], vec![0; n], vec![0; n]);
    for (p, w) in seg.windows(2).enumerate() {
        let (s, e) = (w[0], w[1]);
        let mut r = s;
        while r < e {
            let mut q = r + 1;
            if let Some(k) = &okey {
                while q < e && k[q] == k[r] {
                    q += 1;
                }
            } else {
                q = e; // without order by every row of the partition is a peer
            }
            for x in r..q {
                peer_lo[x] = r;
                peer_hi[x] = q;
                part_of[x] = p;
            }
            r = q;
        }
    }
    Ok((Layout { perm, seg, peer_lo, peer_hi, part_of }, sorted_o))
}

/// Frame [lo, hi) of every permuted row.
/// For a RANGE frame bound with a DURATION offset: the order key each permuted row's bound
/// reaches (the order value moved by the duration with temporalAdd, as an ascending key).
fn dur_targets(i: &mut Interpreter, spec: &Spec, sorted_o: &[Column], b: Bound) -> Result<Option<Vec<f64>>> {
    let Bound::Dur(n, unit, preceding) = b else { return Ok(None) };
    let Some(((_, asc), col)) = spec.order.first().zip(sorted_o.first()) else { return Ok(None) };
    if !col.ty.is_temporal() {
        return Err(Error::arg(format!("over clause: a DURATION offset needs a temporal ORDER BY column, not {}", col.ty)));
    }
    let asc = *asc;
    let back = preceding == asc;
    let moved = i.call_builtin_by_name("temporalAdd", vec![Value::Vector(col.clone()), Value::long(if back { -n } else { n }), Value::string(unit)])?;
    let v = moved
        .column()
        .and_then(|c| c.to_f64_vec())
        .ok_or_else(|| Error::arg("over clause: can't move the ORDER BY values by the DURATION offset"))?;
    let (lo_inf, hi_inf) = if asc { (f64::NEG_INFINITY, f64::INFINITY) } else { (f64::INFINITY, f64::NEG_INFINITY) };
    let _ = hi_inf;
    Ok(Some(v.into_iter().map(|x| if x.is_nan() { lo_inf } else if asc { x } else { -x }).collect()))
}

fn bounds(l: &Layout, spec: &Spec, sorted_o: &[Column], dur: (Option<Vec<f64>>, Option<Vec<f64>>)) -> Result<(Vec<usize>, Vec<usize>)> {
    let n = l.perm.len();
    let (kind, lo_b, hi_b) = match spec.frame {
        Some(f) => f,
        None if spec.order.is_empty() => (FrameKind::Rows, Bound::UnboundedPreceding, Bound::UnboundedFollowing),
        None => (FrameKind::Range, Bound::UnboundedPreceding, Bound::Current),
    };
    // order values as ascending keys (for RANGE offsets)
    let keys: Option<Vec<f64>> = if kind == FrameKind::Range && sorted_o.len() == 1 {
        let asc = spec.order[0].1;
        let v = sorted_o[0].to_f64_vec().ok_or_else(|| Error::arg("over clause: RANGE needs a numeric or temporal ORDER BY column"))?;
        Some(v.into_iter().map(|x| if x.is_nan() { if asc { f64::NEG_INFINITY } else { f64::INFINITY } } else if asc { x } else { -x }).collect())
    } else {
        None
    };
    let (mut lo, mut hi) = (vec![0usize; n], vec![0usize; n]);
    for k in 0..n {
        let p = l.part_of[k];
        let (s, e) = (l.seg[p], l.seg[p + 1]);
        let pos = |b: Bound, upper: bool| -> usize {
            match (kind, b) {
                (_, Bound::UnboundedPreceding) => s,
                (_, Bound::UnboundedFollowing) => e,
                (FrameKind::Rows, Bound::Current) => if upper { k + 1 } else { k },
                (FrameKind::Range, Bound::Current) => if upper { l.peer_hi[k] } else { l.peer_lo[k] },
                (FrameKind::Rows, Bound::Preceding(x)) => {
                    let x = x.max(0.0) as usize;
                    let t = k.saturating_sub(x).max(s);
                    if upper { (k + 1).saturating_sub(x).max(s) } else { t }
                }
                (FrameKind::Rows, Bound::Following(x)) => {
                    let x = x.max(0.0) as usize;
                    if upper { (k + 1 + x).min(e) } else { (k + x).min(e) }
                }
                (FrameKind::Range, Bound::Dur(..)) => {
                    let (Some(kv), Some(t)) = (&keys, if upper { &dur.1 } else { &dur.0 }) else {
                        return if upper { l.peer_hi[k] } else { l.peer_lo[k] };
                    };
                    let target = t[k];
                    let run = &kv[s..e];
                    if upper {
                        s + run.partition_point(|&v| v <= target)
                    } else {
                        s + run.partition_point(|&v| v < target)
                    }
                }
                (FrameKind::Rows, Bound::Dur(..)) => k,
                (FrameKind::Range, Bound::Preceding(x)) | (FrameKind::Range, Bound::Following(x)) => {
                    let Some(kv) = &keys else { return if upper { l.peer_hi[k] } else { l.peer_lo[k] } };
                    let target = if matches!(b, Bound::Preceding(_)) { kv[k] - x } else { kv[k] + x };
                    let run = &kv[s..e];
                    if upper {
                        s + run.partition_point(|&v| v <= target)
                    } else {
                        s + run.partition_point(|&v| v < target)
                    }
                }
            }
        };
        lo[k] = pos(lo_b, false);
        hi[k] = pos(hi_b, true).max(lo[k]);
    }
    Ok((lo, hi))
}

/// Compute one window column in the original row order.
fn compute(i: &mut Interpreter, frame: &Frame, call: &Expr, spec_text: &str) -> Result<Column> {
    let spec = parse_spec(i, spec_text)?;
    let (fname, args) = call_parts(call)?;
    let n = frame.rows;
    let (l, sorted_o) = layout(i, frame, &spec)?;
    let mut argv: Vec<Value> = Vec::with_capacity(args.len());
    for a in &args {
        argv.push(eval_in(i, frame.scope(), a)?);
    }
    // the kernel is found on a row: a SQL-only analytic function (sql/over.rs) or the
    // `over` slot of the builtin of that name; other functions are called per frame
    let lname = fname.to_ascii_lowercase();
    let kernel = match super::over::over_row(&lname) {
        Some(r) => Some(r.kernel),
        None => super::caps_of(i, &lname).over,
    };
    if matches!(kernel, Some(OverKernel::Ranking(_))) && spec.frame.is_some() {
        return Err(Error::arg(format!("{fname}: this window function does not take a window frame")));
    }
    let inp = OverInput {
        name: &fname,
        args: &argv,
        n,
        perm: &l.perm,
        seg: &l.seg,
        part_of: &l.part_of,
        peer_lo: &l.peer_lo,
        peer_hi: &l.peer_hi,
    };
    let out: Column = match kernel {
        Some(OverKernel::Ranking(k)) => k(&inp)?,
        _ => {
            let dur = match spec.frame {
                Some((FrameKind::Range, lo_b, hi_b)) => (dur_targets(i, &spec, &sorted_o, lo_b)?, dur_targets(i, &spec, &sorted_o, hi_b)?),
                _ => (None, None),
            };
            let (lo, hi) = bounds(&l, &spec, &sorted_o, dur)?;
            match kernel {
                Some(OverKernel::Framed(k)) => k(&inp, &lo, &hi)?,
                _ => generic(i, &fname, &argv, &l, &lo, &hi, n)?,
            }
        }
    };
    // back to the original row order
    let mut inv = vec![0usize; n];
    for (k, &r) in l.perm.iter().enumerate() {
        inv[r] = k;
    }
    Ok(out.take_usize(&inv))
}

/// Any other aggregate: called on each distinct frame (once per partition when the frame
/// is the whole partition).
#[allow(clippy::too_many_arguments)]
fn generic(i: &mut Interpreter, fname: &str, argv: &[Value], l: &Layout, lo: &[usize], hi: &[usize], n: usize) -> Result<Column> {
    let mut cols: Vec<Option<Column>> = Vec::with_capacity(argv.len());
    for v in argv {
        cols.push(match v {
            Value::Vector(c) if c.len() == n => Some(c.take_usize(&l.perm)),
            _ => None,
        });
    }
    let names: Vec<String> = (0..argv.len()).map(|k| format!("__warg{k}")).collect();
    let call = Expr::new(
        ExprKind::Call(
            Box::new(Expr::new(ExprKind::Ident(fname.to_string()), Default::default())),
            names.iter().map(|a| Arg::Pos(Some(Expr::new(ExprKind::Ident(a.clone()), Default::default())))).collect(),
        ),
        Default::default(),
    );
    let mut b = super::frame::ColBuilder::new();
    let mut k = 0;
    while k < n {
        // rows sharing the same frame are evaluated once
        let mut q = k + 1;
        while q < n && lo[q] == lo[k] && hi[q] == hi[k] {
            q += 1;
        }
        i.check_interrupt()?;
        let mut scope = Scope::new();
        for ((nm, c), v) in names.iter().zip(&cols).zip(argv) {
            let val = match c {
                Some(c) => Value::Vector(c.slice(lo[k], hi[k])),
                None => v.clone(),
            };
            scope.insert(nm.clone(), val);
        }
        let r = eval_in(i, scope, &call)?;
        if !matches!(r, Value::Scalar(_) | Value::Void) {
            return Err(Error::arg(format!("{fname}: a window function must return one value per frame")));
        }
        b.push(&r, q - k, "a window function")?;
        k = q;
    }
    b.finish()
}
