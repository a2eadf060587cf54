//! Parser tests: tricky constructs of LANGUAGE.md §4-6 checked through a compact
//! S-expression rendering, robustness, and a parse-rate check over the conformance files.

use crate::ast::*;
use crate::{parse_expr, parse_script};

const BUILTINS: &[&str] = &[
    "sum", "avg", "max", "min", "print", "typestr", "size", "count", "each", "eqObj", "abs", "sin",
    "cos", "add", "sub", "mul", "pow", "wavg", "cut", "move", "find", "binsrch", "isNull", "last",
    "first", "table", "take", "rand", "string", "int", "double", "date", "month", "time", "second",
    "minute", "til", "cumsum", "mavg", "msum", "rows", "cols", "keys", "values", "dict", "set",
    "iif", "accumulate", "reduce", "peach", "loop", "call", "eachPre", "eachPost", "ratio",
    "exp", "log", "sqrt", "floor", "ceil", "round", "neg", "not", "and", "or", "in", "like",
    "distinct", "left", "right", "std", "var", "med", "sort", "reverse", "flatten", "funcByName",
    "append!", "type", "form", "char", "short", "long", "float", "symbol", "bool", "nullFill",
    "deltas", "prev", "next", "rank", "cross", "matrix", "array", "seq", "pair", "join", "concat",
    "upper", "lower", "strlen", "substr", "format", "temporalAdd", "bar", "ej", "lj", "wj", "aj",
    "eval", "sqlCol", "makeCall", "wsum", "corr", "covar", "percentile", "prod", "all", "any",
    "isValid", "timestamp", "datetime", "nanotime", "nanotimestamp", "now", "today", "weekday",
    "ffill", "bfill", "cumprod", "cummax", "cummin", "mmax", "mmin", "mcount", "tmavg", "tmsum",
    "div", "mod", "xor", "asof", "rowSum", "rowAvg", "rowMax", "rowMin", "byRow", "shape",
    "transpose", "stretch", "at", "eachAt", "contextby", "groupby", "enlist", "unionAll", "dropna",
];

fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
}

fn all_builtins() -> impl Fn(&str) -> bool {
    let mut names: Vec<String> = BUILTINS.iter().map(|s| s.to_string()).collect();
    if let Ok(t) = std::fs::read_to_string("/work/shared/spec/functions.tsv") {
        for line in t.lines().skip(1) {
            if let Some(n) = line.split('\t').next() {
                names.push(n.trim().to_string());
            }
        }
    }
    let set: std::collections::HashSet<String> = names.into_iter().collect();
    move |n: &str| set.contains(n)
}

fn lit(l: &Literal) -> String {
    match l {
        Literal::Bool(Some(b)) => format!("{b}"),
        Literal::Int(Some(v)) => format!("{v}"),
        Literal::Long(Some(v)) => format!("{v}l"),
        Literal::Short(Some(v)) => format!("{v}h"),
        Literal::Char(Some(v)) => format!("{v}c"),
        Literal::Double(Some(v)) => format!("{v:?}"),
        Literal::Float(Some(v)) => format!("{v:?}f"),
        Literal::Str(s) => format!("{s:?}"),
        Literal::StrVec(v) => format!("`{}", v.join("`")),
        Literal::Temporal(t, Some(v)) => format!("{t:?}:{v}"),
        Literal::Duration(n, u) => format!("{n}{u}"),
        Literal::Decimal(v, s) => format!("{v}P{s}"),
        Literal::Null => "NULL".into(),
        other => format!("{other:?}"),
    }
}

fn args(a: &[Arg]) -> String {
    a.iter()
        .map(|a| match a {
            Arg::Pos(Some(e)) => sx(e),
            Arg::Pos(None) => "_".into(),
            Arg::Named(n, e) => format!("{n}={}", sx(e)),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn list(v: &[Expr]) -> String {
    v.iter().map(sx).collect::<Vec<_>>().join(" ")
}

fn sx(e: &Expr) -> String {
    use ExprKind::*;
    match &e.kind {
        Lit(l) => lit(l),
        VecLit(v) => format!("[{}]", v.iter().map(lit).collect::<Vec<_>>().join(" ")),
        Ident(n) => n.clone(),
        QualIdent(v) => v.join("::"),
        FuncRef(n) => format!("&{n}"),
        OpFunc(o) => format!("op:{}", o.func_name()),
        Vector(v) => format!("(vec {})", list(v)),
        Tuple(v) => format!("(tuple {})", list(v)),
        Dict(v) => format!(
            "(dict {})",
            v.iter().map(|(k, v)| format!("{}:{}", sx(k), sx(v))).collect::<Vec<_>>().join(" ")
        ),
        Unary(o, x) => format!("({o:?} {})", sx(x)),
        Binary(o, a, b) => format!("({} {} {})", o.func_name(), sx(a), sx(b)),
        Compare(v, ops) => format!(
            "(cmp {} {})",
            ops.iter().map(|o| o.func_name()).collect::<Vec<_>>().join(","),
            list(v)
        ),
        Infix(a, f, b) => format!("(infix {} {} {})", sx(f), sx(a), sx(b)),
        Ternary(c, a, b) => format!("(? {} {} {})", sx(c), sx(a), sx(b)),
        OpenPair(a, b) => format!(
            "(open {} {})",
            a.as_ref().map(|x| sx(x)).unwrap_or("_".into()),
            b.as_ref().map(|x| sx(x)).unwrap_or("_".into())
        ),
        Call(f, a) => format!("(call {} {})", sx(f), args(a)),
        Partial(f, a) => format!("(partial {} {})", sx(f), args(a)),
        Index(x, i) => format!(
            "(index {} {})",
            sx(x),
            i.iter().map(|o| o.as_ref().map(sx).unwrap_or("_".into())).collect::<Vec<_>>().join(" ")
        ),
        Member(x, n) => format!("(. {} {n})", sx(x)),
        Method(x, n, a) => format!("(method {} {n} {})", sx(x), args(a)),
        Template(f, t) => format!("(tmpl:{t} {})", sx(f)),
        Lambda(f) => format!(
            "(lambda ({}) {})",
            f.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(" "),
            match &f.body {
                FuncBody::Expr(e) => sx(e),
                FuncBody::Block(b) => format!("{{{} stmts}}", b.len()),
                FuncBody::Forward => "fwd".into(),
            }
        ),
        Select(q) => sq(q),
        Meta(x) => format!("(meta {})", sx(x)),
        Case(w, e) => format!(
            "(case {} else {})",
            w.iter().map(|(c, v)| format!("{}=>{}", sx(c), sx(v))).collect::<Vec<_>>().join(" "),
            e.as_ref().map(|x| sx(x)).unwrap_or("_".into())
        ),
        IsNull(x, n) => format!("(isnull{} {})", if *n { "-not" } else { "" }, sx(x)),
        Exists(_) => "(exists)".into(),
        Quantified(o, all, a, b) => format!("({} {} {} {})", o.func_name(), if *all { "all" } else { "any" }, sx(a), sx(b)),
        Union(a, b, all) => format!("({} {} {})", if *all { "union-all" } else { "union" }, sx(a), sx(b)),
        With(ctes, body) => format!(
            "(with {} {})",
            ctes.iter()
                .map(|c| {
                    let cols = if c.columns.is_empty() { String::new() } else { format!("({})", c.columns.join(",")) };
                    format!("{}{cols}={}", c.name, sx(&c.query))
                })
                .collect::<Vec<_>>()
                .join(" "),
            sx(body)
        ),
        Star => "*".into(),
        ColumnSeq(a, b) => format!("{a}...{b}"),
    }
}

fn items(v: &[SelectItem]) -> String {
    v.iter()
        .map(|i| if i.alias.is_empty() { sx(&i.expr) } else { format!("{} as {}", sx(&i.expr), i.alias.join("`")) })
        .collect::<Vec<_>>()
        .join(", ")
}

fn orders(v: &[OrderItem]) -> String {
    v.iter()
        .map(|o| format!("{}{}{}", sx(&o.expr), if o.asc { "" } else { " desc" }, match o.nulls_first { Some(true) => " nf", Some(false) => " nl", None => "" }))
        .collect::<Vec<_>>()
        .join(", ")
}

fn from(f: &FromItem) -> String {
    match f {
        FromItem::Table(e, a) => format!("{}{}", sx(e), a.as_ref().map(|a| format!(" as {a}")).unwrap_or_default()),
        FromItem::Join(a, k, b, on) => format!("({} {k:?}-join {}{})", from(a), from(b), on.as_ref().map(|c| format!(" on {}", sx(c))).unwrap_or_default()),
    }
}

fn sq(q: &SelectQuery) -> String {
    let mut o = format!("{{{}", if q.exec { "exec" } else { "select" });
    if let Some((a, b)) = &q.top {
        o += &format!(" top {}{}", sx(a), b.as_ref().map(|b| format!(":{}", sx(b))).unwrap_or_default());
    }
    if q.distinct { o += " distinct"; }
    o += &format!(" {}", items(&q.items));
    if let Some(f) = &q.from { o += &format!(" FROM {}", from(f)); }
    if !q.where_.is_empty() { o += &format!(" WHERE {}", list(&q.where_)); }
    if let Some((k, g)) = &q.group { o += &format!(" {k:?} {}", items(g)); }
    if !q.cgroup.is_empty() { o += &format!(" CGROUP {}", items(&q.cgroup)); }
    if !q.csort.is_empty() { o += &format!(" CSORT {}", orders(&q.csort)); }
    if let Some(h) = &q.having { o += &format!(" HAVING {}", sx(h)); }
    if !q.order.is_empty() { o += &format!(" ORDER {}", orders(&q.order)); }
    if let Some((a, b)) = &q.limit { o += &format!(" LIMIT {}{}", a.as_ref().map(|a| format!("{},", sx(a))).unwrap_or_default(), sx(b)); }
    if q.map { o += " MAP"; }
    o + "}"
}

fn e(src: &str) -> String {
    match parse_expr(src, &is_builtin) {
        Ok(x) => sx(&x),
        Err(err) => format!("ERR {} @{:?}", err.message, err.span),
    }
}

fn s(src: &str) -> Vec<Stmt> {
    match parse_script(src, &is_builtin) {
        Ok(v) => v,
        Err(err) => panic!("parse error in {src:?}: {} at {:?}", err.message, err.span),
    }
}

#[test]
fn literals() {
    assert_eq!(e("1"), "1");
    assert_eq!(e("3000000000"), "3000000000l");
    assert_eq!(e("5h"), "5h");
    assert_eq!(e("97c"), "97c");
    assert_eq!(e("2.5f"), "2.5f");
    assert_eq!(e("1e3"), "1000.0");
    assert_eq!(e("'a'"), "97c");
    assert_eq!(e("'ab'"), "\"ab\"");
    assert_eq!(e("\"a\\tb\""), "\"a\\tb\"");
    assert_eq!(e("`a`b`c"), "`a`b`c");
    assert_eq!(e("`a `b"), "[\"a\" \"b\"]");
    assert_eq!(e("1970.01.02"), "Date:1");
    assert_eq!(e("2012.06M"), "Month:24149");
    assert_eq!(e("13:30m"), "Minute:810");
    assert_eq!(e("00:00:01.500"), "Time:1500");
    assert_eq!(e("00:00:01"), "Second:1");
    assert_eq!(e("1970.01.01T00:00:01"), "DateTime:1");
    assert_eq!(e("1970.01.01 00:00:01.001"), "Timestamp:1001");
    assert_eq!(e("1970.01.01T00:00:00.000000005"), "NanoTimestamp:5");
    assert_eq!(e("00d"), "Temporal(Date, None)");
    assert_eq!(e("00i"), "Int(None)");
    assert_eq!(e("5m"), "5m");
    assert_eq!(e("100ms"), "100ms");
    assert_eq!(e("1.25P"), "125P2");
    assert_eq!(e("1..5"), "(seq 1 5)");
    assert!(e("2012.13.01").starts_with("ERR"));
    assert!(e("25:00:00").starts_with("ERR"));
    assert_eq!(e("_\"col name\""), "col name");
    assert_eq!(e("NULL"), "NULL");
}

#[test]
fn precedence_and_vectors() {
    assert_eq!(e("1 + 2 * 3"), "(add 1 (mul 2 3))");
    assert_eq!(e("3*a..10"), "(mul 3 (seq a 10))");
    assert_eq!(e("1..3+1"), "(add (seq 1 3) 1)");
    assert_eq!(e("-n..n"), "(seq (Neg n) n)");
    assert_eq!(e("!x-1"), "(sub (Not x) 1)");
    assert_eq!(e("1 2 3 -1"), "[1 2 3 -1]");
    assert_eq!(e("-1 2 6"), "[-1 2 6]");
    assert_eq!(e("n -1"), "(sub n 1)");
    assert_eq!(e("1 - 1"), "(sub 1 1)");
    assert_eq!(e("x/-5"), "(div x -5)");
    assert_eq!(e("a--1"), "(sub a -1)");
    assert_eq!(e("x[0] -1"), "(sub (index x 0) 1)");
    assert_eq!(e("1 2 3 + 1"), "(add [1 2 3] 1)");
    assert_eq!(e("a < b <= c"), "(cmp lt,le a b c)");
    assert_eq!(e("x > 1 and y < 2"), "(and (gt x 1) (lt y 2))");
    assert_eq!(e("sym in `a`b and x > 1"), "(and (in sym `a`b) (gt x 1))");
    assert_eq!(e("x not in y"), "(notIn x y)");
    assert_eq!(e("x between 1 and 5"), "(between x (pair 1 5))");
    assert_eq!(e("1..8$2:4"), "(cast (seq 1 8) (pair 2 4))");
    assert_eq!(e("(x < lo) ? lo : (x > hi) ? hi : x"), "(? (lt x lo) lo (? (gt x hi) hi x))");
    assert_eq!(e("c ? 1 : 2"), "(? c 1 2)");
}

#[test]
fn calls() {
    assert_eq!(e("sum x"), "(call sum x)");
    assert_eq!(e("sum 1 2 3 == 6"), "(call sum (eq [1 2 3] 6))");
    assert_eq!(e("sin x + cos x"), "(call sin (add x (call cos x)))");
    assert_eq!(e("avg sin abs -100..100"), "(call avg (call sin (call abs (seq -100 100))))");
    assert_eq!(e("typestr 3l"), "(call typestr 3l)");
    assert_eq!(e("x pow 2"), "(infix pow x 2)");
    assert_eq!(e("2 add 3 sub 5"), "(infix sub (infix add 2 3) 5)");
    assert_eq!(e("x move -2"), "(infix move x -2)");
    assert_eq!(e("f(,3)"), "(call f _ 3)");
    assert_eq!(e("f(b=3)"), "(call f b=3)");
    assert_eq!(e("sum (x)"), "(call sum x)");
    assert_eq!(e("x.f(1, 2)"), "(method x f 1 2)");
    assert_eq!(e("x.y"), "(. x y)");
    assert_eq!(e("t.\"col a\""), "(. t col a)");
    assert_eq!(e("x.f{p}(1)"), "(call (partial f x p) 1)");
    assert_eq!(e("add{1,,3}"), "(partial add 1 _ 3)");
    assert_eq!(e("rank{percent=true}"), "(partial rank percent=true)");
    assert_eq!(e("x[1:3]"), "(index x (pair 1 3))");
    assert_eq!(e("x[:3]"), "(index x (open _ 3))");
    assert_eq!(e("m[,1]"), "(index m _ 1)");
    assert_eq!(e("&sum"), "&sum");
    assert_eq!(e("::sum"), "::sum");
    assert_eq!(e("a::b::f(1)"), "(call a::b::f 1)");
    assert_eq!(e("[sin, cos]"), "(vec sin cos)");
    assert_eq!(e("(1,)"), "(tuple 1)");
    assert_eq!(e("()"), "(tuple )");
    assert_eq!(e("{\"a\": 1, \"b\": 2+3}"), "(dict \"a\":1 \"b\":(add 2 3))");
    assert_eq!(e("<x + 1>"), "(meta (add x 1))");
    assert_eq!(e("x is null"), "(isnull x)");
    assert_eq!(e("isNull x || isNull y"), "(call isNull (or x (call isNull y)))");
}

#[test]
fn open_pair_index() {
    assert_eq!(e("x[1:]"), "(index x (open 1 _))");
}

#[test]
fn templates_and_lambdas() {
    assert_eq!(e("+:A 1 2 3"), "(call (tmpl:A op:add) [1 2 3])");
    assert_eq!(e("x +:E y"), "(infix (tmpl:E op:add) x y)");
    assert_eq!(e("0 +:P x"), "(infix (tmpl:P op:add) 0 x)");
    assert_eq!(e("X f:E Y"), "(infix (tmpl:E f) X Y)");
    assert_eq!(e("f:E(x, y)"), "(call (tmpl:E f) x y)");
    assert_eq!(e("each(f:E, x)"), "(call each (tmpl:E f) x)");
    assert_eq!(e("c +:E:L c"), "(infix (tmpl:L (tmpl:E op:add)) c c)");
    assert_eq!(e("(x -> x*x) :E 1 2 3"), "(call (tmpl:E (lambda (x) (mul x x))) [1 2 3])");
    assert_eq!(e("{x -> x*x}:E 1 2 3"), "(call (tmpl:E (lambda (x) (mul x x))) [1 2 3])");
    assert_eq!(e("each(+, 1 2, 3 4)"), "(call each op:add [1 2] [3 4])");
    assert_eq!(e("x -> x + 1"), "(lambda (x) (add x 1))");
    assert_eq!(e("(x, y) -> x + y"), "(lambda (x y) (add x y))");
    assert_eq!(e("{x, y -> x + y}"), "(lambda (x y) (add x y))");
    assert_eq!(e("def (x): x*2"), "(lambda (x) (mul x 2))");
    assert_eq!(e("def(a,b){return (a+1)*(b+1)}(4,5)"), "(call (lambda (a b) {1 stmts}) 4 5)");
    assert_eq!(e("v.{x -> x*x+1}()"), "(call (lambda (x) (add (mul x x) 1)) v)");
    assert_eq!(e("*:T 1..10"), "(call (tmpl:T op:mul) (seq 1 10))");
}

#[test]
fn statements() {
    let v = s("x = 1\ny = 2; z = x + y\nif (x == 1) {\n print x\n} else if (y) print y else {z = 3}\n");
    assert_eq!(v.len(), 4);
    assert!(matches!(v[3].kind, StmtKind::If(..)));
    let v = s("def f(a, b = 2) {\n  return a + b\n}\nf(1)");
    assert_eq!(v.len(), 2);
    let v = s("def f(mutable a): a + 1");
    assert!(matches!(&v[0].kind, StmtKind::Def(d) if d.params[0].mutable));
    let v = s("for (i in 1..3) {\n x += i\n}\nwhile (x > 0) x -= 1\ndo {\n x += 1\n} while (x < 3)\n");
    assert_eq!(v.len(), 3);
    let v = s("try {\n throw \"e\"\n} catch (ex) {\n print ex\n}");
    assert!(matches!(v[0].kind, StmtKind::Try(..)));
    let v = s("a, b = 1 2 3, 2:5");
    assert!(matches!(&v[0].kind, StmtKind::Assign(t, _, _) if t.len() == 2));
    let v = s("x[1 3] += 10\nt[`c] = 1\nt.c = 2\n&y = x\nconst a = 1\nreturn a, b");
    assert_eq!(v.len(), 6);
    assert!(matches!(v[3].kind, StmtKind::RefAssign(..)));
    let v = s("share t as st\nundef all\nundef all, VAR\nmodule a::b\nuse a::b\ntimer x = 1\ntimer(10) { x = 1 }\nassert 1, x == 1\nassert x\nassert sub1, y");
    assert_eq!(v.len(), 10);
    assert!(matches!(&v[9].kind, StmtKind::Assert(Some(n), _) if n == "sub1"));
    let v = s("def f(a, b)\ndef g(x) { return f(x, 1) }");
    assert_eq!(v.len(), 2);
    let err = parse_script("if (x = 1) print 1", &is_builtin).unwrap_err();
    assert!(err.message.contains("Please use '=='"), "{}", err.message);
    let v = s("x = t.sum()\n  .abs()");
    assert_eq!(v.len(), 1);
}

#[test]
fn sql() {
    let v = s("select * from t where x > 1 order by x desc");
    let StmtKind::Expr(Expr { kind: ExprKind::Select(q), .. }) = &v[0].kind else { panic!() };
    assert_eq!(q.items.len(), 1);
    assert_eq!(q.order.len(), 1);
    assert!(!q.order[0].asc);
    let v = s("r = select top 2 sym, avg(price) as ap, count(*) c from t\n  where sym = `A, x > 1\n  group by sym having count(*) > 1 order by sym limit 5");
    let StmtKind::Assign(_, _, Expr { kind: ExprKind::Select(q), .. }) = &v[0].kind else { panic!() };
    assert!(q.top.is_some());
    assert_eq!(q.items.len(), 3);
    assert_eq!(q.items[1].alias, vec!["ap"]);
    assert_eq!(q.items[2].alias, vec!["c"]);
    assert_eq!(q.where_.len(), 2);
    assert_eq!(sx(&q.where_[0]), "(eq sym \"A\")");
    assert!(matches!(q.group, Some((GroupKind::GroupBy, _))));
    assert!(q.having.is_some() && q.limit.is_some());
    let v = s("SELECT a FROM t1 LEFT JOIN t2 ON t1.id = t2.id WHERE a BETWEEN 1 AND 5");
    let StmtKind::Expr(Expr { kind: ExprKind::Select(q), .. }) = &v[0].kind else { panic!() };
    assert!(matches!(q.from, Some(FromItem::Join(_, JoinKind::Left, _, Some(_)))));
    assert_eq!(sx(&q.where_[0]), "(between a (pair 1 5))");
    let v = s("update t set x = x + 1, y = 2 where z = 3\ndelete from t where x = 1\ninsert into t values (1, 2), (3, 4)\ninsert into t (a, b) values (1, 2)");
    assert_eq!(v.len(), 4);
    assert!(matches!(&v[0].kind, StmtKind::Update(u) if u.sets.len() == 2 && u.where_.len() == 1));
    let v = s("assert 4, eqObj(exec qty from t1 where sym=`C, qty>2000, [2200,2500,8800])");
    let StmtKind::Assert(_, Expr { kind: ExprKind::Call(_, a), .. }) = &v[0].kind else { panic!() };
    assert_eq!(a.len(), 2);
    let v = s("select sym, case when x > 1 then 1 else 0 end as flag from t context by sym csort time order by sym asc nulls first");
    assert_eq!(v.len(), 1);
    let v = s("x = select price1...price3 from t\ny = exec distinct sym from t map");
    assert_eq!(v.len(), 2);
    let v = s("select * from (select a from t) as x where a in (select a from u) and exists(select * from u)");
    assert_eq!(v.len(), 1);
    let v = s("t = table(1 2 as a, `x`y as b)\nselect avg price from t");
    assert_eq!(v.len(), 2);
}

#[test]
fn robustness() {
    for src in [
        "",
        ";;;",
        "\0",
        "((((",
        "))))",
        "{{{{",
        "x = = 1",
        "select",
        "`",
        "\"abc",
        "/* unterminated",
        "1.2.3.4",
        "def",
        "if (",
        "a ? b",
        "x[:",
        "<<<<",
        "f{",
        "case when",
        "1 2 3 - - - -",
        "中文 = 1",
        "@testing: case = \"x\"",
    ] {
        let _ = parse_script(src, &is_builtin);
    }
    let deep = "(".repeat(100_000) + "1" + &")".repeat(100_000);
    assert!(parse_script(&deep, &is_builtin).is_err());
    let deep = "[".repeat(100_000);
    assert!(parse_script(&deep, &is_builtin).is_err());
    let deep = "-".repeat(100_000) + "x";
    assert!(parse_script(&deep, &is_builtin).is_err());
    let deep = "sum ".repeat(100_000) + "x";
    assert!(parse_script(&deep, &is_builtin).is_err());
    let long = (0..5000).map(|i| i.to_string()).collect::<Vec<_>>().join("+");
    assert!(parse_script(&long, &is_builtin).is_err());
    let nested = "(1+".repeat(400) + "1" + &")".repeat(400);
    assert!(parse_script(&nested, &is_builtin).is_ok());
    // pseudo-random garbage
    let alphabet: Vec<char> = "ab1 2.:()[]{}`\"'-+*/<>=!&|,;\n?xsumselectfromwhere@$#\\".chars().collect();
    let mut seed: u64 = 12345;
    for _ in 0..3000 {
        let mut src = String::new();
        for _ in 0..(seed % 40) {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            src.push(alphabet[(seed >> 33) as usize % alphabet.len()]);
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let _ = parse_script(&src, &is_builtin);
    }
}

/// Splits a conformance file into cases (text between `@testing` lines).
fn cases(text: &str) -> Vec<(String, String, bool)> {
    let mut out = vec![];
    let mut name = String::from("(preamble)");
    let mut syntax_err = false;
    let mut cur = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("@testing") {
            out.push((name.clone(), std::mem::take(&mut cur), syntax_err));
            name = line.to_string();
            syntax_err = line.contains("syntaxError");
        } else {
            cur.push_str(line);
            cur.push('\n');
        }
    }
    out.push((name, cur, syntax_err));
    out
}

#[test]
fn conformance_parse_rate() {
    let dir = std::path::Path::new("/work/shared/conformance");
    let Ok(rd) = std::fs::read_dir(dir) else {
        eprintln!("conformance dir absent; skipped");
        return;
    };
    let is_fn = all_builtins();
    let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    files.sort();
    let (mut ok, mut total) = (0, 0);
    let mut failures = vec![];
    for f in files {
        if f.extension().and_then(|x| x.to_str()) != Some("dos") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for (name, body, syntax_err) in cases(&text) {
            if body.trim().is_empty() || syntax_err {
                continue;
            }
            total += 1;
            match parse_script(&body, &is_fn) {
                Ok(_) => ok += 1,
                Err(e) => {
                    let r = e.span.range();
                    let line_no = body[..r.start.min(body.len())].matches('\n').count();
                    let line = body.lines().nth(line_no).unwrap_or("");
                    failures.push(format!(
                        "{}: {name}\n    {}: {line}",
                        f.file_name().unwrap().to_string_lossy(),
                        e.message
                    ));
                }
            }
        }
    }
    for fl in &failures {
        eprintln!("{fl}");
    }
    eprintln!("conformance: {ok}/{total} cases parse");
    assert!(total == 0 || ok * 100 >= total * 95, "parse rate too low: {ok}/{total}");
}

/// `DUMP=file.dos cargo test -p beluga-lang dump -- --ignored --nocapture` prints trees.
#[test]
#[ignore]
fn dump() {
    let Ok(path) = std::env::var("DUMP") else { return };
    let text = std::fs::read_to_string(path).unwrap();
    let is_fn = all_builtins();
    for (name, body, _) in cases(&text) {
        println!("== {name}");
        match parse_script(&body, &is_fn) {
            Ok(v) => {
                for st in v {
                    println!("{}", sst(&st));
                }
            }
            Err(e) => println!("ERR {}", e.message),
        }
    }
}

fn sst(st: &Stmt) -> String {
    match &st.kind {
        StmtKind::Expr(e) => sx(e),
        StmtKind::Assign(t, op, e) => format!("{} {op:?}= {}", list(t), sx(e)),
        StmtKind::Assert(n, e) => format!("assert[{}] {}", n.clone().unwrap_or_default(), sx(e)),
        StmtKind::Block(b) => format!("{{ {} }}", b.iter().map(sst).collect::<Vec<_>>().join("; ")),
        StmtKind::If(c, a, b) => format!(
            "if {} then {} else {}",
            sx(c),
            sst(a),
            b.as_ref().map(|x| sst(x)).unwrap_or_default()
        ),
        StmtKind::For(v, e, b) => format!("for {v} in {} {}", sx(e), sst(b)),
        StmtKind::Def(d) => format!(
            "def {}({}) {}",
            d.name.clone().unwrap_or_default(),
            d.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(","),
            match &d.body {
                FuncBody::Block(b) => b.iter().map(sst).collect::<Vec<_>>().join("; "),
                FuncBody::Expr(e) => sx(e),
                FuncBody::Forward => "fwd".into(),
            }
        ),
        StmtKind::Return(e) => format!("return {}", e.as_ref().map(sx).unwrap_or_default()),
        StmtKind::Update(u) => format!(
            "update {} set {} from {} where {} context {}",
            sx(&u.table),
            u.sets.iter().map(|(n, e)| format!("{n}={}", sx(e))).collect::<Vec<_>>().join(", "),
            u.from.as_ref().map(from).unwrap_or_default(),
            list(&u.where_),
            items(&u.context_by)
        ),
        StmtKind::Delete(d) => format!("delete from {} where {}", sx(&d.table), list(&d.where_)),
        StmtKind::Insert(i) => format!("insert into {} ({}) {:?}", sx(&i.table), i.columns.join(","), i.source).chars().take(200).collect(),
        other => format!("{other:?}").chars().take(200).collect(),
    }
}

#[test]
fn misc_edges() {
    assert_eq!(e("x at x > 3"), "(infix at x (gt x 3))");
    assert_eq!(e("1..100 binsrch 12 6 88 102 == [11,5,87,-1]"), "(eq (infix binsrch (seq 1 100) [12 6 88 102]) (vec 11 5 87 -1))");
    assert_eq!(e("{x->x*x} 10 {x,y->x+y} 1"), "(call (lambda (x) (mul x x)) (infix (lambda (x y) (add x y)) 10 1))");
    assert_eq!(e("[1,,3]"), "(vec 1 NULL 3)");
    assert_eq!(e("subarray(x, 90:)"), "(call subarray x (open 90 _))");
    assert_eq!(e("v @ (:4)"), "(eachAt v (open _ 4))");
    assert_eq!(e("expr(6, <, 8)"), "(call expr 6 op:lt 8)");
    assert_eq!(e("-128c"), "-128c");
    let v = s("if (x) {\n  y = 1\n}\nelse {\n  y = 2\n}\n// comment\n/* block\n comment */ z = 3");
    assert_eq!(v.len(), 2);
    let v = s("def f(x)\n{\n  return x\n}\nf 1");
    assert_eq!(v.len(), 2);
    let v = s("x = select sym,\n  price from t\n  where price > 1\nprint x");
    assert_eq!(v.len(), 2);
    // spans are byte offsets
    let v = s("a = 1\nb = 22");
    assert_eq!((v[1].span.start, v[1].span.end), (6, 12));
}

/// The expression of a one-statement script (an expression statement or an assignment's
/// right side), rendered; `is_fn` tells which names are functions.
fn stmt1(src: &str, is_fn: &dyn Fn(&str) -> bool) -> String {
    let v = match parse_script(src, is_fn) {
        Ok(v) => v,
        Err(err) => return format!("ERR {} @{:?}", err.message, err.span),
    };
    assert_eq!(v.len(), 1, "{src:?} parsed as {} statements", v.len());
    match &v[0].kind {
        StmtKind::Expr(x) | StmtKind::Assign(_, _, x) => sx(x),
        other => format!("{other:?}"),
    }
}

#[test]
fn union_queries() {
    let f = |n: &str| is_builtin(n) || n == "union";
    let u = |src: &str| stmt1(src, &f);
    let (q1, q2) = ("{select * FROM t1}", "{select * FROM t2}");
    assert_eq!(u("select * from t1 union select * from t2"), format!("(union {q1} {q2})"));
    assert_eq!(u("r = select * from t1 union all select * from t2"), format!("(union-all {q1} {q2})"));
    assert_eq!(u("r = select * from t1 UNION ALL select * from t2"), format!("(union-all {q1} {q2})"));
    // chains are left-associative; parenthesised operands; newlines before `union`
    assert_eq!(
        u("(select * from t1 where id=3) union all (select * from t2 where id=3) union (select * from t3)"),
        "(union (union-all {select * FROM t1 WHERE (eq id 3)} {select * FROM t2 WHERE (eq id 3)}) {select * FROM t3})"
    );
    assert_eq!(
        u("r = select a from t1\n  union select b from t2\n  union all exec c from t3 where c > 1"),
        "(union-all (union {select a FROM t1} {select b FROM t2}) {exec c FROM t3 WHERE (gt c 1)})"
    );
    assert_eq!(u("(select * from t1 union select * from t2)"), format!("(union {q1} {q2})"));
    assert_eq!(u("(select * from t1)\nunion all\n(select * from t2)"), format!("(union-all {q1} {q2})"));
    assert_eq!(s("(select * from t1)\nunion(s1, s2)").len(), 2);
    assert_eq!(
        u("f(select * from t1 union select * from t2, 3)"),
        format!("(call f (union {q1} {q2}) 3)")
    );
    assert_eq!(
        u("x = (select * from t1 union select * from t2).rows()"),
        format!("(method (union {q1} {q2}) rows )")
    );
    assert_eq!(
        u("select a from t1 where a in (select a from t2 union select a from t3)"),
        "{select a FROM t1 WHERE (in a (union {select a FROM t2} {select a FROM t3}))}"
    );
    // `union` the set function: call, infix call, variable
    assert_eq!(u("union(s1, s2)"), "(call union s1 s2)");
    assert_eq!(u("x = s1 union s2"), "(infix union s1 s2)");
    assert_eq!(u("x = union(set(1 2), set(2 3)).size()"), "(method (call union (call set [1 2]) (call set [2 3])) size )");
    assert_eq!(stmt1("union = 3", &is_builtin), "3");
    assert_eq!(stmt1("x = union + 1", &is_builtin), "(add union 1)");
    assert!(u("select * from t1 union").starts_with("ERR"));
}

#[test]
fn with_queries() {
    let w = |src: &str| stmt1(src, &is_builtin);
    assert_eq!(
        w("with tmp as (select * from t1 inner join t2 on t1.id=t2.id) select count(*) from tmp"),
        "(with tmp={select * FROM (t1 Inner-join t2 on (eq (. t1 id) (. t2 id)))} {select (call count *) FROM tmp})"
    );
    assert_eq!(
        w("r = with a as (select x from t), b(y) as (select x from a where x > 1)\nselect * from b order by y"),
        "(with a={select x FROM t} b(y)={select x FROM a WHERE (gt x 1)} {select * FROM b ORDER y})"
    );
    assert_eq!(
        w("r = with a as (select x from t union select x from u) select x from a union all select x from a"),
        "(with a=(union {select x FROM t} {select x FROM u}) (union-all {select x FROM a} {select x FROM a}))"
    );
    assert_eq!(w("f(with a as (select x from t) exec x from a)"), "(call f (with a={select x FROM t} {exec x FROM a}))");
    // `with` as a name
    assert_eq!(w("with = 3"), "3");
    assert_eq!(w("x = with + 1"), "(add with 1)");
    assert_eq!(w("x = f(with, 2)"), "(call f with 2)");
    assert_eq!(w("x = with[0]"), "(index with 0)");
}

#[test]
fn metacode_aliases() {
    assert_eq!(e("<avg(x) as ax>"), "(meta (call &__alias (call avg x) \"ax\"))");
    assert_eq!(
        e("<[avg(bid) as ab, max(ask), x + 1 as `y`z]>"),
        "(meta (vec (call &__alias (call avg bid) \"ab\") (call max ask) (call &__alias (add x 1) \"y`z\")))"
    );
    assert_eq!(e("<x as y>"), "(meta (call &__alias x \"y\"))");
    // `<` `>` comparisons and plain metacode are unchanged
    assert_eq!(e("<a + 1>"), "(meta (add a 1))");
    assert_eq!(e("[1, 2]"), "(vec 1 2)");
}

// ---------------------------------------------------------------- issue 12 gaps

#[test]
fn trailing_dot_float_literals() {
    assert_eq!(e("1."), "1.0");
    assert_eq!(e("[0.  , 1.5, 2.]"), e("[0.0, 1.5, 2.0]"));
    assert_eq!(e("1. + 2"), e("1.0 + 2"));
    // ranges and member calls are not floats
    assert_eq!(e("1..3"), e("1 .. 3"));
}

#[test]
fn annotations_are_kept_on_the_definition() {
    let s = parse_script("@state\ndef f(x) { return x }\n@jit\n@state\ndef g(x): x", &is_builtin).expect("parse");
    let anns: Vec<Vec<String>> = s
        .iter()
        .filter_map(|st| match &st.kind {
            StmtKind::Def(d) => Some(d.annotations.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(anns, vec![vec!["state".to_string()], vec!["jit".to_string(), "state".to_string()]]);
    // no annotation: empty
    let s = parse_script("def h(x): x", &is_builtin).expect("parse");
    assert!(matches!(&s[0].kind, StmtKind::Def(d) if d.annotations.is_empty()));
}

#[test]
fn builtin_namespace_takes_keyword_names() {
    assert_eq!(e("::not(x)"), e("::sum(x)").replace("sum", "not"));
    assert!(parse_expr("::and(a, b)", &is_builtin).is_ok());
}

#[test]
fn keyword_like_words_as_variable_names() {
    assert!(parse_script("BETWEEN = select * from t where v between 1 and 2", &is_builtin).is_ok());
    assert!(parse_script("IN = 3\ny = IN + 1", &is_builtin).is_ok());
    assert!(parse_script("NOT = 1", &is_builtin).is_ok());
    // still operators where an operator belongs
    assert!(parse_script("select * from t where v BETWEEN 1 AND 3", &is_builtin).is_ok());
    assert!(parse_script("select * from t where sym not in `a`c", &is_builtin).is_ok());
    assert!(parse_script("select * from t where s not like \"a%\"", &is_builtin).is_ok());
}

#[test]
fn timer_repeat_without_braces_and_session_forms() {
    let s = parse_script("timer(10) x = 1 + 2", &is_builtin).expect("timer(n) stmt");
    assert!(matches!(&s[0].kind, StmtKind::Timer(Some(_), _)));
    assert!(parse_script("timer(10) { x = 1 }", &is_builtin).is_ok());
    let s = parse_script("undef(all)", &is_builtin).expect("undef(all)");
    assert!(matches!(&s[0].kind, StmtKind::UndefAll(None)));
    let s = parse_script("share(t, \"name\")", &is_builtin).expect("share(...)");
    assert!(matches!(&s[0].kind, StmtKind::Expr(_)));
}
