//! Unparsing of syntax trees, for metacode (`< avg(bid) >`) and for lambdas printed as
//! values (`{def (x, k)->power(x, k)}{1}`). DolphinDB regenerates this text from its
//! parse tree: calls as `f(a, b)`, binary operators with spaces, canonical function names.

use super::num::{char_quoted, format_double, format_float};
use crate::temporal::format_temporal;
use beluga_lang::ast::*;

/// Aliases DolphinDB prints under their canonical name.
const CANONICAL: &[(&str, &str)] = &[("pow", "power")];

fn canonical(name: &str) -> &str {
    CANONICAL
        .iter()
        .find(|(a, _)| *a == name)
        .map(|(_, c)| *c)
        .unwrap_or(name)
}

/// The literal's data type (one mapping, shared with the evaluator).
pub use crate::temporal::temporal_type;

fn lit(l: &Literal) -> String {
    fn opt<T: ToString>(v: &Option<T>, null: &str) -> String {
        v.as_ref()
            .map(|x| x.to_string())
            .unwrap_or_else(|| null.to_string())
    }
    match l {
        Literal::Bool(b) => b
            .map(|b| if b { "true" } else { "false" }.to_string())
            .unwrap_or("00b".into()),
        Literal::Char(c) => c.map(char_quoted).unwrap_or("00c".into()),
        Literal::Short(v) => opt(v, "00h"),
        Literal::Int(v) => opt(v, "00i"),
        Literal::Long(v) => opt(v, "00l"),
        Literal::Float(v) => v.map(format_float).unwrap_or("00f".into()),
        Literal::Double(v) => v.map(format_double).unwrap_or("00F".into()),
        Literal::Str(s) => format!("\"{s}\""),
        Literal::StrVec(v) => format!(
            "[{}]",
            v.iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Literal::Temporal(t, v) => {
            let ty = temporal_type(*t);
            match v {
                Some(v) => format_temporal(ty, *v),
                None => super::num::null_literal(ty).to_string(),
            }
        }
        Literal::Duration(n, u) => format!("{n}{u}"),
        Literal::Decimal(v, s) => {
            let s = *s as u32;
            if s == 0 {
                v.to_string()
            } else {
                let p = 10i64.pow(s);
                let sign = if *v < 0 { "-" } else { "" };
                format!(
                    "{sign}{}.{:0w$}",
                    (v / p).abs(),
                    (v % p).abs(),
                    w = s as usize
                )
            }
        }
        Literal::Null => "NULL".into(),
    }
}

pub fn op_text(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        Ratio => "\\",
        Mod => "%",
        Dot => "**",
        Cast => "$",
        Join => "<-",
        Seq => "..",
        Pair => ":",
        Shl => "<<",
        Shr => ">>",
        BitAnd => "&",
        BitXor => "^",
        BitOr => "|",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        Eq => "==",
        Ne => "!=",
        In => "in",
        NotIn => "not in",
        Like => "like",
        NotLike => "not like",
        ILike => "ilike",
        Between => "between",
        NotBetween => "not between",
        And => "and",
        Or => "or",
        At => "@",
    }
}

fn args(a: &[Arg]) -> String {
    a.iter()
        .map(|x| match x {
            Arg::Pos(Some(e)) => expr_text(e),
            Arg::Pos(None) => String::new(),
            Arg::Named(n, e) => format!("{n}={}", expr_text(e)),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn list(v: &[Expr]) -> String {
    v.iter().map(expr_text).collect::<Vec<_>>().join(", ")
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, ..) | ExprKind::Quantified(op, ..) => op.precedence(),
        ExprKind::Compare(..) => 3,
        ExprKind::Ternary(..) => 0,
        _ => u8::MAX,
    }
}

fn operand(e: &Expr, min: u8) -> String {
    let s = expr_text(e);
    if prec(e) < min { format!("({s})") } else { s }
}

/// Source-like text of an expression.
pub fn expr_text(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(l) => lit(l),
        ExprKind::VecLit(v) => format!("[{}]", v.iter().map(lit).collect::<Vec<_>>().join(", ")),
        ExprKind::Ident(n) => n.clone(),
        ExprKind::QualIdent(p) => p.join("::"),
        ExprKind::FuncRef(n) => canonical(n).to_string(),
        ExprKind::OpFunc(op) => op_text(*op).to_string(),
        ExprKind::Vector(v) => format!("[{}]", list(v)),
        ExprKind::Tuple(v) => {
            if v.len() == 1 {
                format!("({},)", expr_text(&v[0]))
            } else {
                format!("({})", list(v))
            }
        }
        ExprKind::Dict(kv) => format!(
            "{{{}}}",
            kv.iter()
                .map(|(k, v)| format!("{}: {}", expr_text(k), expr_text(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Unary(op, x) => {
            let s = operand(x, u8::MAX);
            match op {
                UnOp::Neg => format!("-{s}"),
                UnOp::Not => format!("!{s}"),
                UnOp::BitNot => format!("~{s}"),
            }
        }
        ExprKind::Binary(op, a, b) => {
            let p = op.precedence();
            format!("{} {} {}", operand(a, p), op_text(*op), operand(b, p + 1))
        }
        ExprKind::Quantified(op, all, a, b) => {
            format!("{} {} {}({})", operand(a, 4), op_text(*op), if *all { "all" } else { "any" }, expr_text(b))
        }
        ExprKind::Compare(xs, ops) => {
            let mut s = operand(&xs[0], 4);
            for (op, x) in ops.iter().zip(&xs[1..]) {
                s.push_str(&format!(" {} {}", op_text(*op), operand(x, 4)));
            }
            s
        }
        ExprKind::Infix(a, f, b) => {
            format!("{} {} {}", operand(a, 11), expr_text(f), operand(b, 11))
        }
        ExprKind::Ternary(c, a, b) => {
            format!("{} ? {} : {}", operand(c, 1), operand(a, 1), operand(b, 1))
        }
        ExprKind::OpenPair(a, b) => format!(
            "{}:{}",
            a.as_ref().map(|x| expr_text(x)).unwrap_or_default(),
            b.as_ref().map(|x| expr_text(x)).unwrap_or_default()
        ),
        ExprKind::Call(f, a) => match (&f.kind, a.as_slice()) {
            // metacode alias `expr as name`
            (
                ExprKind::FuncRef(n),
                [Arg::Pos(Some(x)), Arg::Pos(Some(Expr { kind: ExprKind::Lit(Literal::Str(alias)), .. }))],
            ) if n == beluga_lang::ast::META_ALIAS => format!("{} as {alias}", expr_text(x)),
            _ => format!("{}({})", callee(f), args(a)),
        },
        ExprKind::Partial(f, a) => format!("{}{{{}}}", callee(f), args(a)),
        ExprKind::Index(x, idx) => format!(
            "{}[{}]",
            operand(x, u8::MAX),
            idx.iter()
                .map(|i| i.as_ref().map(expr_text).unwrap_or_default())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Member(x, n) => format!("{}.{n}", operand(x, u8::MAX)),
        ExprKind::Method(x, n, a) => {
            format!("{}.{}({})", operand(x, u8::MAX), canonical(n), args(a))
        }
        ExprKind::Template(f, t) => format!("{}:{t}", callee(f)),
        ExprKind::Lambda(d) => format!("{{{}}}", lambda_text(d, &[])),
        ExprKind::Select(q) => select_text(q),
        ExprKind::Union(a, b, all) => {
            format!("{} union {}{}", expr_text(a), if *all { "all " } else { "" }, expr_text(b))
        }
        ExprKind::With(ctes, body) => {
            let named: Vec<String> = ctes
                .iter()
                .map(|c| {
                    let cols = if c.columns.is_empty() { String::new() } else { format!("({})", c.columns.join(", ")) };
                    format!("{}{cols} as ({})", c.name, expr_text(&c.query))
                })
                .collect();
            format!("with {} {}", named.join(", "), expr_text(body))
        }
        ExprKind::Meta(x) => format!("< {} >", expr_text(x)),
        ExprKind::Case(arms, els) => {
            let mut s = String::from("case");
            for (c, v) in arms {
                s.push_str(&format!(" when {} then {}", expr_text(c), expr_text(v)));
            }
            if let Some(e) = els {
                s.push_str(&format!(" else {}", expr_text(e)));
            }
            s.push_str(" end");
            s
        }
        ExprKind::IsNull(x, neg) => {
            format!(
                "{} is {}null",
                operand(x, 4),
                if *neg { "not " } else { "" }
            )
        }
        ExprKind::Exists(q) => format!("exists({})", select_text(q)),
        ExprKind::Star => "*".into(),
        ExprKind::ColumnSeq(a, b) => format!("{a}...{b}"),
    }
}

fn callee(f: &Expr) -> String {
    match &f.kind {
        ExprKind::Ident(n) => canonical(n).to_string(),
        _ => operand(f, u8::MAX),
    }
}

/// Text of a function definition as DolphinDB regenerates it: `def (x, k)->power(x, k)`
/// for expression bodies (with `extra` leading parameters, e.g. captured variables);
/// block bodies keep their source text.
pub fn lambda_text(d: &FuncDef, extra: &[&str]) -> String {
    let mut params: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    params.extend(d.params.iter().map(|p| {
        if p.mutable {
            format!("mutable {}", p.name)
        } else {
            p.name.clone()
        }
    }));
    match &d.body {
        FuncBody::Expr(e) => {
            let kw = if d.aggregate { "defg" } else { "def" };
            match &d.name {
                Some(n) => format!("{kw} {n}({})->{}", params.join(", "), expr_text(e)),
                None => format!("{kw} ({})->{}", params.join(", "), expr_text(e)),
            }
        }
        _ if extra.is_empty() => d.text.clone(),
        _ => {
            // splice the captured names in front of the declared parameters
            let kw = if d.aggregate { "defg" } else { "def" };
            let body = d.text.find('{').map(|i| &d.text[i..]).unwrap_or("");
            format!("{kw} ({}){body}", params.join(", "))
        }
    }
}

fn items_text(items: &[SelectItem]) -> String {
    items
        .iter()
        .map(|it| match it.alias.len() {
            0 => expr_text(&it.expr),
            1 => format!("{} as {}", expr_text(&it.expr), it.alias[0]),
            _ => format!("{} as `{}", expr_text(&it.expr), it.alias.join("`")),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn from_text(f: &FromItem) -> String {
    match f {
        FromItem::Table(e, alias) => match alias {
            Some(a) => format!("{} as {a}", expr_text(e)),
            None => expr_text(e),
        },
        FromItem::Join(a, k, b, on) => {
            let kw = match k {
                JoinKind::Inner => "inner join",
                JoinKind::Left => "left join",
                JoinKind::LeftSemi => "left semi join",
                JoinKind::Right => "right join",
                JoinKind::Full => "full join",
                JoinKind::Cross => "cross join",
            };
            let mut s = format!("{} {kw} {}", from_text(a), from_text(b));
            if let Some(c) = on {
                s.push_str(&format!(" on {}", expr_text(c)));
            }
            s
        }
    }
}

fn order_text(o: &[OrderItem]) -> String {
    o.iter()
        .map(|x| format!("{}{}", expr_text(&x.expr), if x.asc { "" } else { " desc" }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Text of a select/exec query.
pub fn select_text(q: &SelectQuery) -> String {
    let mut s = String::from(if q.exec { "exec " } else { "select " });
    if let Some((a, b)) = &q.top {
        s.push_str(&format!("top {}", expr_text(a)));
        if let Some(b) = b {
            s.push_str(&format!(":{}", expr_text(b)));
        }
        s.push(' ');
    }
    if q.distinct {
        s.push_str("distinct ");
    }
    s.push_str(&items_text(&q.items));
    if let Some(f) = &q.from {
        s.push_str(&format!(" from {}", from_text(f)));
    }
    if !q.where_.is_empty() {
        s.push_str(&format!(" where {}", list(&q.where_)));
    }
    if let Some((k, items)) = &q.group {
        let kw = match k {
            GroupKind::GroupBy => "group by",
            GroupKind::ContextBy => "context by",
            GroupKind::PivotBy => "pivot by",
        };
        s.push_str(&format!(" {kw} {}", items_text(items)));
    }
    if !q.cgroup.is_empty() {
        s.push_str(&format!(" cgroup by {}", items_text(&q.cgroup)));
    }
    if !q.csort.is_empty() {
        s.push_str(&format!(" csort {}", order_text(&q.csort)));
    }
    if let Some(h) = &q.having {
        s.push_str(&format!(" having {}", expr_text(h)));
    }
    if !q.order.is_empty() {
        s.push_str(&format!(" order by {}", order_text(&q.order)));
    }
    if let Some((off, n)) = &q.limit {
        match off {
            Some(o) => s.push_str(&format!(" limit {}, {}", expr_text(o), expr_text(n))),
            None => s.push_str(&format!(" limit {}", expr_text(n))),
        }
    }
    s
}
