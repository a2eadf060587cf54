//! `group by interval(X, duration, fill, [step], [explicitOffset], …)`: equal buckets of X
//! (aligned to 0, or to the `where` lower bound with `explicitOffset=true`), one row per
//! bucket between the first and the last (the `where` bounds when given), missing buckets
//! and null results filled with `prev`, `post`, `linear`, `null`, `none` or a value.

use super::asof::duration_in_unit;
use super::exec::{grouped_keys, order_keys, result_scope, Output, Prepared};
use super::frame::{eval_in, to_column, Frame, Scope};
use super::group::eval_keys;
use super::keys::group_ids;
use super::plan::{auto_name, text};
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::kernels::arith::as_native;
use crate::kernels::cast::cast_column;
use crate::null::Native;
use crate::types::DataType;
use crate::value::Value;
use beluga_lang::ast::{Arg, BinOp, Expr, ExprKind, SelectItem};

const PARAMS: &[&str] = &["X", "duration", "fill", "step", "explicitOffset", "closed", "label", "origin"];

/// Buckets beyond this many rows are refused (a duration far too small for the data).
const MAX_BUCKETS: i64 = 50_000_000;

pub(crate) fn is_interval(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call(g, _) if matches!(&g.kind, ExprKind::Ident(n) if n == "interval"))
}

/// The interval call's arguments by parameter name.
fn args_of(e: &Expr) -> Result<Vec<Option<Expr>>> {
    let ExprKind::Call(_, args) = &e.kind else { return Err(Error::runtime("interval")) };
    let mut out: Vec<Option<Expr>> = vec![None; PARAMS.len()];
    for (k, a) in args.iter().enumerate() {
        match a {
            Arg::Pos(Some(x)) if k < PARAMS.len() => out[k] = Some(x.clone()),
            Arg::Pos(_) => {}
            Arg::Named(n, x) => {
                let p = PARAMS
                    .iter()
                    .position(|q| q == n)
                    .ok_or_else(|| Error::arg(format!("The function [interval] doesn't have a parameter named {n}")))?;
                out[p] = Some(x.clone());
            }
        }
    }
    if out[0].is_none() || out[1].is_none() || out[2].is_none() {
        return Err(Error::arg("interval needs X, duration and fill"));
    }
    Ok(out)
}

/// A constant bound converted to X's unit.
fn bound(i: &mut Interpreter, e: &Expr, ty: DataType) -> Result<Option<i64>> {
    let v = i.eval(e)?;
    let Some(c) = v.column() else { return Ok(None) };
    let c = if c.ty != ty && c.ty.is_temporal() && ty.is_temporal() { crate::kernels::temporal_to(c, ty)? } else { c.clone() };
    Ok(c.i64_at(0))
}

/// Lower and upper bounds of X given by the `where` conditions, if any.
fn where_bounds(i: &mut Interpreter, conds: &[Expr], xtext: &str, ty: DataType) -> Result<(Option<i64>, Option<i64>)> {
    let (mut lo, mut hi) = (None, None);
    let mut parts = Vec::new();
    fn split(e: &Expr, out: &mut Vec<Expr>) {
        match &e.kind {
            ExprKind::Binary(BinOp::And, a, b) => {
                split(a, out);
                split(b, out)
            }
            _ => out.push(e.clone()),
        }
    }
    conds.iter().for_each(|c| split(c, &mut parts));
    for c in &parts {
        match &c.kind {
            ExprKind::Binary(BinOp::Between, a, r) if text(a) == xtext => {
                if let Value::Pair(p) = i.eval(r)? {
                    let v = Value::Scalar(p.slice(0, 1));
                    let w = Value::Scalar(p.slice(1, 2));
                    let conv = |v: &Value| -> Result<Option<i64>> {
                        let c = v.column().cloned().unwrap_or_else(|| Column::nulls(ty, 1));
                        let c = if c.ty != ty && c.ty.is_temporal() && ty.is_temporal() { crate::kernels::temporal_to(&c, ty)? } else { c };
                        Ok(c.i64_at(0))
                    };
                    lo = conv(&v)?;
                    hi = conv(&w)?;
                }
            }
            ExprKind::Binary(op @ (BinOp::Ge | BinOp::Gt | BinOp::Le | BinOp::Lt), a, b) => {
                if text(a) == xtext {
                    match op {
                        BinOp::Ge | BinOp::Gt => lo = bound(i, b, ty)?,
                        _ => hi = bound(i, b, ty)?,
                    }
                } else if text(b) == xtext {
                    match op {
                        BinOp::Le | BinOp::Lt => lo = bound(i, a, ty)?,
                        _ => hi = bound(i, a, ty)?,
                    }
                }
            }
            ExprKind::Compare(v, ops) if v.len() == 3 && text(&v[1]) == xtext && ops.iter().all(|o| matches!(o, BinOp::Le | BinOp::Lt)) => {
                lo = bound(i, &v[0], ty)?;
                hi = bound(i, &v[2], ty)?;
            }
            _ => {}
        }
    }
    Ok((lo, hi))
}

fn floor_bucket(x: i64, origin: i64, d: i64) -> i64 {
    let b = origin as i128 + (x as i128 - origin as i128).div_euclid(d as i128) * d as i128;
    b.clamp(i64::MIN as i128 + 1, i64::MAX as i128) as i64
}

fn bucket_column(v: Vec<i64>, ty: DataType) -> Column {
    let c = Column::from_vec(DataType::Long, v);
    if ty.is_temporal() {
        Column { ty, ..c }.retag_physical()
    } else {
        c.cast_int_like(ty)
    }
}

enum Fill {
    Prev,
    Post,
    Linear,
    Null,
    None,
    Value(Value),
}

fn fill_of(v: &Value) -> Result<Fill> {
    if let Some(s) = v.as_str() {
        return Ok(match s {
            "prev" => Fill::Prev,
            "post" => Fill::Post,
            "linear" => Fill::Linear,
            "null" => Fill::Null,
            "none" => Fill::None,
            other => return Err(Error::arg(format!("Unknown fill method {other} for interval"))),
        });
    }
    match v {
        Value::Scalar(_) => Ok(Fill::Value(v.clone())),
        _ => Err(Error::arg("The fill of interval must be 'prev', 'post', 'linear', 'null', 'none' or a number")),
    }
}

pub(crate) fn grouped_interval(i: &mut Interpreter, p: &Prepared, frame: &Frame, g: &[SelectItem]) -> Result<Output> {
    let k = g.iter().position(|it| is_interval(&it.expr)).unwrap_or(0);
    if g.iter().filter(|it| is_interval(&it.expr)).count() > 1 {
        return Err(Error::arg("Only one interval can be used in a group by clause"));
    }
    let args = args_of(&g[k].expr)?;
    let xexpr = args[0].clone().ok_or_else(|| Error::arg("interval needs X"))?;
    let xv = eval_in(i, frame.scope(), &xexpr)?;
    let x = to_column(&xv, frame.rows, "the X of interval")?;
    let ty = x.ty;
    if !(ty.is_temporal() || ty.is_integral()) {
        return Err(Error::unsupported("interval", ty));
    }
    let dv = i.eval(args[1].as_ref().ok_or_else(|| Error::arg("interval needs a duration"))?)?;
    let d = match &dv {
        Value::Duration(n, u) => duration_in_unit(*n, u, ty)?,
        other => other.as_i64().ok_or_else(|| Error::arg("The duration of interval must be an integer or a DURATION"))?,
    };
    if d <= 0 {
        return Err(Error::arg("The duration of interval must be positive"));
    }
    let fill = fill_of(&i.eval(args[2].as_ref().ok_or_else(|| Error::arg("interval needs fill"))?)?)?;
    let explicit = match &args[4] {
        Some(e) => i.eval(e)?.as_bool().unwrap_or(false),
        None => false,
    };
    // step: windows of length d start every `step` (d by default: disjoint buckets)
    let step = match &args[3] {
        Some(e) => match i.eval(e)? {
            Value::Void => d,
            Value::Duration(n, u) => duration_in_unit(n, &u, ty)?,
            other => other.as_i64().ok_or_else(|| Error::arg("The step of interval must be an integer or a DURATION"))?,
        },
        None => d,
    };
    if step <= 0 || d % step != 0 {
        return Err(Error::arg("The step of interval must be positive and divide the duration"));
    }
    let mut side = |k: usize, what: &str| -> Result<bool> {
        match &args[k] {
            None => Ok(false),
            Some(e) => match i.eval(e)? {
                Value::Void => Ok(false),
                v => match v.as_str() {
                    Some(s) if s.eq_ignore_ascii_case("left") => Ok(false),
                    Some(s) if s.eq_ignore_ascii_case("right") => Ok(true),
                    _ => Err(Error::arg(format!("The {what} of interval must be 'left' or 'right'"))),
                },
            },
        }
    };
    // closed='right': windows (w, w+d]; label='right': a window is named by its end w+d
    let closed_right = side(5, "closed")?;
    let label_right = side(6, "label")?;
    let (wlo, whi) = where_bounds(i, &p.where_, &text(&xexpr), ty)?;
    let raw = as_native::<i64>(&x);
    // the value that decides a row's window: x, or x - 1 when windows are closed on the right
    let key = |v: i64| if closed_right { v.saturating_sub(1) } else { v };
    let (mn, mx) = raw.iter().filter(|v| !v.is_null()).fold((i64::MAX, i64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let origin = match &args[7] {
        Some(e) if !matches!(i.eval(e)?, Value::Void) => {
            if explicit {
                return Err(Error::arg("interval: origin can't be given together with explicitOffset=true"));
            }
            origin_of(&i.eval(e)?, ty, mn, mx)?
        }
        _ if explicit => wlo.unwrap_or(0),
        _ => 0,
    };
    let (lo, hi) = (
        floor_bucket(key(wlo.unwrap_or(mn)), origin, step),
        floor_bucket(key(whi.unwrap_or(mx)), origin, step),
    );
    let per_row = d / step;
    // Each row goes to the per_row windows that cover it, in row order (so first/last and
    // order-sensitive aggregates see a window's rows as they come); one window per row when
    // step = d. Windows are those starting in [lo, hi].
    let (frame_w, buckets): (std::borrow::Cow<Frame>, Vec<i64>) = if per_row == 1 {
        (std::borrow::Cow::Borrowed(frame), raw.iter().map(|&v| if v.is_null() { i64::NULL } else { floor_bucket(key(v), origin, step) }).collect())
    } else {
        let n = crate::guard::need2(frame.rows, per_row as usize, 16)?;
        let (mut rep, mut bk) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (r, &v) in raw.iter().enumerate() {
            if v.is_null() {
                continue;
            }
            let sb = floor_bucket(key(v), origin, step);
            for j in (0..per_row).rev() {
                let w = sb.saturating_sub(j * step);
                if w >= lo && w <= hi {
                    rep.push(r);
                    bk.push(w);
                }
            }
        }
        (std::borrow::Cow::Owned(frame.take(&rep)), bk)
    };
    let frame = frame_w.as_ref();
    // the other keys as usual, the bucket in the interval's place
    let others: Vec<SelectItem> = g.iter().enumerate().filter(|(j, _)| *j != k).map(|(_, it)| it.clone()).collect();
    let (mut kcols, mut knames) = eval_keys(i, frame, &others)?;
    let name = g[k].alias.first().cloned().unwrap_or_else(|| auto_name(&g[k].expr));
    kcols.insert(k, bucket_column(buckets, ty));
    knames.insert(k, (name.clone(), text(&g[k].expr)));
    let out = grouped_keys(i, p, frame, &kcols, &knames)?;
    if frame.rows == 0 || lo > hi {
        return Ok(out);
    }
    if (hi as i128 - lo as i128) / step as i128 > MAX_BUCKETS as i128 {
        return Err(Error::arg("interval: too many buckets for this duration"));
    }
    let key_names: Vec<&str> = knames.iter().map(|(n, _)| n.as_str()).collect();
    let label_shift = if label_right { d } else { 0 };
    fill_gaps(i, p, out, &key_names, &name, (lo, hi, step, label_shift), &fill)
}

/// The alignment point of `origin`: 'epoch', 'start', 'start_day', 'end', 'end_day' or a
/// value of X's type; the first and last values of X are `mn` and `mx`.
fn origin_of(v: &Value, ty: DataType, mn: i64, mx: i64) -> Result<i64> {
    let day = || -> Result<i64> {
        if !ty.is_temporal() {
            return Err(Error::arg("interval: origin 'start_day'/'end_day' needs a temporal X"));
        }
        duration_in_unit(1, "d", ty)
    };
    if let Some(s) = v.as_str() {
        return Ok(match s {
            "epoch" => 0,
            "start" => mn,
            "end" => mx,
            "start_day" => floor_bucket(mn, 0, day()?),
            "end_day" => floor_bucket(mx, 0, day()?).saturating_add(day()?),
            other => return Err(Error::arg(format!("Unknown origin {other} for interval"))),
        });
    }
    let c = v.column().ok_or_else(|| Error::arg("The origin of interval must be a string or a scalar of X's type"))?;
    let c = if c.ty != ty && c.ty.is_temporal() && ty.is_temporal() { crate::kernels::temporal_to(c, ty)? } else { c.clone() };
    c.i64_at(0).ok_or_else(|| Error::arg("The origin of interval can't be NULL"))
}

/// Fill nulls of rows [s, e) of every segment with the previous (or next) non-null row.
fn carry(v: &Column, segs: &[(usize, usize)], forward: bool) -> Column {
    let mut idx: Vec<i64> = (0..v.len() as i64).collect();
    for &(s, e) in segs {
        let mut last: i64 = -1;
        let order: Box<dyn Iterator<Item = usize>> = if forward { Box::new(s..e) } else { Box::new((s..e).rev()) };
        for r in order {
            if v.is_null(r) {
                idx[r] = last;
            } else {
                last = r as i64;
            }
        }
    }
    v.take(&idx)
}

/// Linear interpolation of inner nulls by row position (numeric columns).
fn linear(v: &Column, segs: &[(usize, usize)]) -> Result<Column> {
    if !v.ty.is_numeric() {
        return Ok(carry(v, segs, true));
    }
    let mut x: Vec<f64> = as_native::<f64>(v).into_owned();
    for &(s, e) in segs {
        let mut prev: Option<usize> = None;
        for r in s..e {
            if x[r].is_null() {
                continue;
            }
            if let Some(p) = prev {
                for q in p + 1..r {
                    x[q] = x[p] + (x[r] - x[p]) * (q - p) as f64 / (r - p) as f64;
                }
            }
            prev = Some(r);
        }
    }
    let c = Column::from_vec(DataType::Double, x);
    if v.ty == DataType::Double { Ok(c) } else { cast_column(&c, v.ty) }
}

fn fill_column(v: Column, segs: &[(usize, usize)], fill: &Fill) -> Result<Column> {
    Ok(match fill {
        Fill::Prev => carry(&v, segs, true),
        Fill::Post => carry(&v, segs, false),
        Fill::Linear => linear(&v, segs)?,
        Fill::Null | Fill::None => v,
        Fill::Value(x) => {
            let c = x.column().cloned().unwrap_or_else(|| Column::nulls(v.ty, 1));
            let c = if c.ty != v.ty && v.ty != DataType::Void { cast_column(&c, v.ty)? } else { c };
            let n = v.len();
            let both = Column::concat(v.ty, &[&v, &c]);
            let idx: Vec<usize> = (0..n).map(|r| if v.is_null(r) { n } else { r }).collect();
            both.take_usize(&idx)
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn fill_gaps(i: &mut Interpreter, p: &Prepared, out: Output, key_names: &[&str], bname: &str, (lo, hi, d, shift): (i64, i64, i64, i64), fill: &Fill) -> Result<Output> {
    let Output { names, cols, rows, keep, .. } = out;
    let sel: Vec<usize> = keep.unwrap_or_else(|| (0..rows).collect());
    let cols: Vec<Column> = cols.iter().map(|c| c.take_usize(&sel)).collect();
    let rows = sel.len();
    let find = |n: &str| names.iter().position(|m| m == n);
    let bcol = find(bname).ok_or_else(|| Error::runtime("interval: the bucket column is missing from the result"))?;
    let others: Vec<usize> = key_names.iter().filter(|n| **n != bname).filter_map(|n| find(n)).collect();
    let (gid, ng, first) = if others.is_empty() {
        (vec![0u32; rows], 1, vec![0usize])
    } else {
        let refs: Vec<&Column> = others.iter().map(|&c| &cols[c]).collect();
        let g = group_ids(&refs);
        (g.gid, g.n, g.first)
    };
    let nb = ((hi - lo) / d + 1) as usize;
    if (ng as u128) * (nb as u128) > MAX_BUCKETS as u128 {
        return Err(Error::arg("interval: too many buckets for this duration"));
    }
    let bvals = as_native::<i64>(&cols[bcol]).into_owned();
    let mut slot = vec![-1i64; ng * nb];
    for r in 0..rows {
        let b = bvals[r];
        if b.is_null() || b < lo || b > hi {
            continue;
        }
        slot[gid[r] as usize * nb + ((b - lo) / d) as usize] = r as i64;
    }
    let (mut src, mut grp, mut bnew, mut segs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for g in 0..ng {
        let start = src.len();
        for j in 0..nb {
            let s = slot[g * nb + j];
            if s < 0 && matches!(fill, Fill::None) {
                continue;
            }
            src.push(s);
            grp.push(if rows > 0 { first[g] } else { 0 });
            bnew.push(lo + j as i64 * d + shift);
        }
        segs.push((start, src.len()));
    }
    let n = src.len();
    let mut out_cols = Vec::with_capacity(cols.len());
    for (c, col) in cols.iter().enumerate() {
        out_cols.push(if c == bcol {
            bucket_column(bnew.clone(), col.ty)
        } else if others.contains(&c) {
            col.take_usize(&grp)
        } else {
            fill_column(col.take(&src), &segs, fill)?
        });
    }
    let order = if p.order.is_empty() {
        vec![]
    } else {
        order_keys(i, &p.order, &result_scope(Scope::new(), &names, &out_cols), n)?
    };
    Ok(Output { names, cols: out_cols, rows: n, keep: None, order, scalar: false, limited: false })
}
