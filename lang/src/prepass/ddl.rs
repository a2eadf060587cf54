//! Pre-pass, DDL: the SQL statements `create database`, `create table`, `alter table` and
//! `drop database|table` (manual: progr/sql/create.md, alter.md, drop.md) become the calls
//! of the functions the manual names for them (`database`, `createPartitionedTable`,
//! `createDimensionTable`, `table`, `setColumnComment`, `addColumn`, `dropColumns!`,
//! `rename!`, `dropDatabase`, `dropTable`, `undef`), so DDL and the function forms share one
//! implementation. Runs on the raw tokens before the main pre-pass; a statement that does not
//! have a DDL shape is left alone (`create`, `alter`, `drop` stay ordinary names).

use crate::ast::Literal;
use crate::error::ParseError;
use crate::lexer::{RawTok, Tok};
use crate::span::Span;

/// Words that continue a DDL statement on the next line (`)` newline `partitioned by …`).
const CONT_WORDS: &[&str] = &[
    "partitioned", "sortcolumns", "keepduplicates", "engine", "atomic", "chunkgranularity",
    "sortkeymappingfunction", "softdelete", "comment", "primarykey", "encryptmode", "indexes",
    "latestkeycache", "compresshashsortkey", "on",
];

fn word(t: &RawTok) -> Option<&str> {
    match &t.tok {
        Tok::Ident(s) => Some(s.as_str()),
        _ => None,
    }
}

fn is_word(t: Option<&RawTok>, w: &str) -> bool {
    t.and_then(word).is_some_and(|s| s.eq_ignore_ascii_case(w))
}

fn at_stmt_start(toks: &[RawTok], i: usize) -> bool {
    i == 0 || matches!(toks[i - 1].tok, Tok::Newline | Tok::Semi | Tok::LBrace | Tok::RBrace)
}

/// Rewrites every DDL statement of `toks`.
pub fn rewrite(toks: Vec<RawTok>) -> Result<Vec<RawTok>, ParseError> {
    if !toks.iter().any(|t| matches!(word(t), Some(w) if ["create", "alter", "drop"].iter().any(|k| w.eq_ignore_ascii_case(k)))) {
        return Ok(toks);
    }
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if at_stmt_start(&toks, i) {
            if let Some(kind) = ddl_kind(&toks, i) {
                let end = stmt_end(&toks, i);
                let mut b = B { out: Vec::new(), at: (toks[i].start, toks[i].end) };
                kind(&mut b, &toks[i..end])?;
                out.extend(b.out);
                i = end;
                continue;
            }
        }
        out.push(toks[i].clone());
        i += 1;
    }
    Ok(out)
}

type Handler = fn(&mut B, &[RawTok]) -> Result<(), ParseError>;

fn ddl_kind(toks: &[RawTok], i: usize) -> Option<Handler> {
    let w = |k: usize| toks.get(i + k);
    let first = word(&toks[i])?.to_ascii_lowercase();
    match first.as_str() {
        "create" if is_word(w(1), "database") && !matches!(w(2).map(|t| &t.tok), Some(Tok::LParen | Tok::Assign | Tok::Newline | Tok::Semi) | None) => Some(create_database),
        "create" if is_word(w(1), "table") && !matches!(w(2).map(|t| &t.tok), Some(Tok::LParen | Tok::Assign | Tok::Newline | Tok::Semi) | None) => Some(create_table),
        "create" if is_word(w(1), "local") && is_word(w(2), "temporary") && is_word(w(3), "table") => Some(create_table),
        "alter" if is_word(w(1), "table") => Some(alter_table),
        "drop" if (is_word(w(1), "table") || is_word(w(1), "database")) && !matches!(w(2).map(|t| &t.tok), Some(Tok::LParen | Tok::Assign | Tok::Newline | Tok::Semi) | None) => Some(drop_stmt),
        _ => None,
    }
}

/// The end (exclusive) of the DDL statement starting at i: a newline or `;` outside
/// brackets, unless the line ends with `,` or the next line starts with a DDL clause word.
fn stmt_end(toks: &[RawTok], i: usize) -> usize {
    let mut depth = 0i32;
    let mut k = i;
    while k < toks.len() {
        match &toks[k].tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket => depth -= 1,
            Tok::RBrace => {
                if depth == 0 {
                    return k;
                }
                depth -= 1;
            }
            Tok::Semi if depth <= 0 => return k,
            Tok::Newline if depth <= 0 => {
                let prev_comma = k > i && toks[k - 1].tok == Tok::Comma;
                let mut n = k;
                while n < toks.len() && toks[n].tok == Tok::Newline {
                    n += 1;
                }
                let next_cont = toks.get(n).is_some_and(|t| {
                    t.tok == Tok::Comma || word(t).is_some_and(|w| CONT_WORDS.iter().any(|c| w.eq_ignore_ascii_case(c)))
                });
                if !(prev_comma || next_cont) {
                    return k;
                }
                k = n;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    toks.len()
}

/// Output builder: synthesized tokens carry the span of the statement's first word.
struct B {
    out: Vec<RawTok>,
    at: (usize, usize),
}

impl B {
    fn tok(&mut self, t: Tok) {
        self.out.push(RawTok { tok: t, start: self.at.0, end: self.at.1, ws: false });
    }
    fn id(&mut self, s: &str) {
        self.tok(Tok::Ident(s.to_string()));
    }
    fn s(&mut self, s: &str) {
        self.tok(Tok::Lit(Literal::Str(s.to_string())));
    }
    fn int(&mut self, v: i32) {
        self.tok(Tok::Lit(Literal::Int(Some(v))));
    }
    fn call(&mut self, f: &str) {
        self.id(f);
        self.tok(Tok::LParen);
    }
    /// Verbatim tokens (newlines dropped: they sit inside the brackets of a call).
    fn copy(&mut self, ts: &[RawTok]) {
        self.out.extend(ts.iter().filter(|t| t.tok != Tok::Newline).cloned());
    }
    fn err(&self, msg: &str) -> ParseError {
        ParseError::new(msg, Span::new(self.at.0, self.at.1))
    }
}

/// Splits at commas outside brackets (newlines dropped).
fn split_commas(ts: &[RawTok]) -> Vec<&[RawTok]> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut s = 0;
    for (k, t) in ts.iter().enumerate() {
        match t.tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => depth -= 1,
            Tok::Comma if depth == 0 => {
                parts.push(&ts[s..k]);
                s = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&ts[s..]);
    parts.into_iter().map(trim_nl).filter(|p| !p.is_empty()).collect()
}

fn trim_nl(mut ts: &[RawTok]) -> &[RawTok] {
    while ts.first().is_some_and(|t| t.tok == Tok::Newline) {
        ts = &ts[1..];
    }
    while ts.last().is_some_and(|t| t.tok == Tok::Newline) {
        ts = &ts[..ts.len() - 1];
    }
    ts
}

/// Index of the bracket closing the one at `open`.
fn matching(ts: &[RawTok], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, t) in ts.iter().enumerate().skip(open) {
        match t.tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// `name = value` at the top level of an item: a keyword option.
fn is_option(item: &[RawTok]) -> bool {
    item.len() >= 3 && word(&item[0]).is_some() && item[1].tok == Tok::Assign
}

/// Emits the options `k = v` of a DDL statement as named arguments (`, k = v`).
fn options(b: &mut B, opts: &[&[RawTok]]) {
    for o in opts {
        b.tok(Tok::Comma);
        b.copy(o);
    }
}

/// The source text of a partitioning function call `f(col, 6, "x")` (identifiers, numbers,
/// strings, `-`, commas and parentheses only); None for anything else.
fn call_text(ts: &[RawTok]) -> Option<String> {
    let mut out = String::new();
    for t in ts {
        match &t.tok {
            Tok::Ident(n) => out.push_str(n),
            Tok::LParen => out.push('('),
            Tok::RParen => out.push(')'),
            Tok::Comma => out.push_str(", "),
            Tok::Minus => out.push('-'),
            Tok::Lit(Literal::Int(Some(v))) => out.push_str(&v.to_string()),
            Tok::Lit(Literal::Long(Some(v))) => out.push_str(&format!("{v}l")),
            Tok::Lit(Literal::Short(Some(v))) => out.push_str(&format!("{v}h")),
            Tok::Lit(Literal::Double(Some(v))) if v.is_finite() => out.push_str(&format!("{v:?}")),
            Tok::Lit(Literal::Str(s)) if !s.contains(['"', '\\']) => out.push_str(&format!("\"{s}\"")),
            Tok::Lit(Literal::Bool(Some(v))) => out.push_str(if *v { "true" } else { "false" }),
            _ => return None,
        }
    }
    Some(out)
}

/// The position of `partitioned by` at the top level, if any.
fn find_partitioned(ts: &[RawTok]) -> Option<usize> {
    let mut depth = 0i32;
    for (k, t) in ts.iter().enumerate() {
        match t.tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => depth -= 1,
            _ if depth == 0 && is_word(Some(t), "partitioned") && is_word(ts.get(k + 1), "by") => return Some(k),
            _ => {}
        }
    }
    None
}

/// `create database D partitioned by T1(s1), [T2(s2), T3(s3)], [engine=…], [atomic=…], [chunkGranularity=…]`
/// → `database(D, T1, s1, …)`, or with several levels
/// `database(D, COMPO, [database("", T1, s1), database("", T2, s2)], …)`.
fn create_database(b: &mut B, ts: &[RawTok]) -> Result<(), ParseError> {
    let p = find_partitioned(ts).ok_or_else(|| b.err("create database: expected `partitioned by`"))?;
    let dir = trim_nl(&ts[2..p]);
    if dir.is_empty() {
        return Err(b.err("create database: the database path is missing"));
    }
    let items = split_commas(&ts[p + 2..]);
    let (opts, parts): (Vec<&[RawTok]>, Vec<&[RawTok]>) = items.into_iter().partition(|it| is_option(it));
    // every partition item is TYPE(scheme)
    let mut levels = Vec::new();
    for it in &parts {
        let ok = it.len() >= 3 && word(&it[0]).is_some() && it[1].tok == Tok::LParen && matching(it, 1) == Some(it.len() - 1);
        if !ok {
            return Err(b.err("create database: each partition is written TYPE(scheme), e.g. VALUE(2024.01.01..2024.12.31)"));
        }
        levels.push((&it[0], &it[2..it.len() - 1]));
    }
    if levels.is_empty() || levels.len() > 3 {
        return Err(b.err("create database: one to three partition levels"));
    }
    b.call("database");
    b.copy(dir);
    b.tok(Tok::Comma);
    if levels.len() == 1 {
        b.out.push(levels[0].0.clone());
        b.tok(Tok::Comma);
        b.copy(levels[0].1);
    } else {
        b.id("COMPO");
        b.tok(Tok::Comma);
        b.tok(Tok::LBracket);
        for (k, (ty, scheme)) in levels.iter().enumerate() {
            if k > 0 {
                b.tok(Tok::Comma);
            }
            b.call("database");
            b.s("");
            b.tok(Tok::Comma);
            b.out.push((*ty).clone());
            b.tok(Tok::Comma);
            b.copy(scheme);
            b.tok(Tok::RParen);
        }
        b.tok(Tok::RBracket);
    }
    options(b, &opts);
    b.tok(Tok::RParen);
    Ok(())
}

/// A table name written as a name or a string: the string.
fn name_tokens(b: &mut B, ts: &[RawTok]) {
    match ts {
        [RawTok { tok: Tok::Ident(n), .. }] => b.s(n),
        _ => b.copy(ts),
    }
}

/// `create table [dbPath.]name (col TYPE [comment="…", compress="…"], …) [partitioned by c1, …], [opt=…]…`
fn create_table(b: &mut B, ts: &[RawTok]) -> Result<(), ParseError> {
    let start = if is_word(ts.get(1), "local") { 4 } else { 2 };
    // the column list: the first top-level `(` after the name
    let open = (start..ts.len()).find(|&k| ts[k].tok == Tok::LParen).ok_or_else(|| b.err("create table: expected the column list in parentheses"))?;
    let close = matching(ts, open).ok_or_else(|| b.err("create table: unclosed column list"))?;
    let head = trim_nl(&ts[start..open]);
    if head.is_empty() {
        return Err(b.err("create table: the table name is missing"));
    }
    let dot = head.iter().rposition(|t| t.tok == Tok::Dot);
    let (db, name) = match dot {
        Some(d) => (Some(&head[..d]), &head[d + 1..]),
        None => (None, head),
    };
    if name.is_empty() || db.is_some_and(|d| d.is_empty()) {
        return Err(b.err("create table: expected dbPath.tableName or tableName"));
    }
    // columns
    let mut cols: Vec<(RawTok, &[RawTok], Option<&[RawTok]>)> = Vec::new();
    for c in split_commas(&ts[open + 1..close]) {
        let n = match &c[0].tok {
            Tok::Ident(n) => n.clone(),
            Tok::Lit(Literal::Str(n)) => n.clone(),
            _ => return Err(b.err("create table: each column is written `name TYPE`")),
        };
        let mut rest = &c[1..];
        let mut desc = None;
        // `[ … ]` at the end that is not the `[]` of an array vector type: the description
        if rest.last().is_some_and(|t| t.tok == Tok::RBracket) {
            if let Some(o) = rest.iter().position(|t| t.tok == Tok::LBracket).filter(|&o| o + 1 < rest.len() - 1) {
                if matching(rest, o) == Some(rest.len() - 1) {
                    desc = Some(&rest[o + 1..rest.len() - 1]);
                    rest = &rest[..o];
                }
            }
        }
        if rest.is_empty() {
            return Err(b.err(&format!("create table: the column {n} has no type")));
        }
        let mut nt = c[0].clone();
        nt.tok = Tok::Lit(Literal::Str(n));
        cols.push((nt, rest, desc));
    }
    if cols.is_empty() {
        return Err(b.err("create table: no columns"));
    }
    // after the column list: [on commit preserve rows] | [partitioned by …], options
    let mut tail = trim_nl(&ts[close + 1..]);
    if is_word(tail.first(), "on") {
        if !(is_word(tail.get(1), "commit") && is_word(tail.get(2), "preserve") && is_word(tail.get(3), "rows")) {
            return Err(b.err("create table: expected `on commit preserve rows`"));
        }
        tail = trim_nl(&tail[4..]);
    }
    let (part_cols, opts): (Vec<&[RawTok]>, Vec<&[RawTok]>) = match tail {
        [] => (vec![], vec![]),
        _ if is_word(tail.first(), "partitioned") && is_word(tail.get(1), "by") => {
            split_commas(&tail[2..]).into_iter().partition(|it| !is_option(it))
        }
        _ => {
            let items = split_commas(tail);
            if let Some(bad) = items.iter().find(|it| !is_option(it)) {
                let _ = bad;
                return Err(b.err("create table: expected `partitioned by` or options `name=value` after the column list"));
            }
            (vec![], items)
        }
    };
    let schema = |b: &mut B| {
        b.call("table");
        b.int(1);
        b.tok(Tok::Colon);
        b.int(0);
        b.tok(Tok::Comma);
        b.tok(Tok::LBracket);
        for (k, (n, _, _)) in cols.iter().enumerate() {
            if k > 0 {
                b.tok(Tok::Comma);
            }
            b.out.push(n.clone());
        }
        b.tok(Tok::RBracket);
        b.tok(Tok::Comma);
        b.tok(Tok::LBracket);
        for (k, (_, t, _)) in cols.iter().enumerate() {
            if k > 0 {
                b.tok(Tok::Comma);
            }
            b.copy(t);
        }
        b.tok(Tok::RBracket);
        b.tok(Tok::RParen);
    };
    let Some(db) = db else {
        // an in-memory table: `name = table(1:0, names, types)`
        if !part_cols.is_empty() || !opts.is_empty() {
            return Err(b.err("create table: an in-memory table takes no partitioning or options"));
        }
        let n = match name {
            [RawTok { tok: Tok::Ident(n), .. }] => n.clone(),
            [RawTok { tok: Tok::Lit(Literal::Str(n)), .. }] => n.clone(),
            _ => return Err(b.err("create table: the name of an in-memory table is a name or a string")),
        };
        b.id(&n);
        b.tok(Tok::Assign);
        schema(b);
        return Ok(());
    };
    // comments: [comment="…"] in the column descriptions
    let mut comments: Vec<(RawTok, &[RawTok])> = Vec::new();
    for (n, _, d) in &cols {
        let Some(d) = d else { continue };
        for o in split_commas(d) {
            if !is_option(o) {
                return Err(b.err("create table: a column description is written [comment=\"…\", compress=\"…\"]"));
            }
            if is_word(o.first(), "comment") {
                comments.push((n.clone(), &o[2..]));
            }
        }
    }
    let wrap = !comments.is_empty();
    if wrap {
        b.tok(Tok::LBrace);
    }
    if part_cols.is_empty() {
        b.call("createDimensionTable");
    } else {
        b.call("createPartitionedTable");
    }
    b.id("dbHandle");
    b.tok(Tok::Assign);
    b.call("database");
    b.copy(db);
    b.tok(Tok::RParen);
    b.tok(Tok::Comma);
    b.id("table");
    b.tok(Tok::Assign);
    schema(b);
    b.tok(Tok::Comma);
    b.id("tableName");
    b.tok(Tok::Assign);
    name_tokens(b, name);
    if !part_cols.is_empty() {
        b.tok(Tok::Comma);
        b.id("partitionColumns");
        b.tok(Tok::Assign);
        b.tok(Tok::LBracket);
        for (k, pc) in part_cols.iter().enumerate() {
            if k > 0 {
                b.tok(Tok::Comma);
            }
            match pc {
                [RawTok { tok: Tok::Ident(n), .. }] => b.s(n),
                [RawTok { tok: Tok::Lit(Literal::Str(n)), .. }] => b.s(n),
                // `partitioned by f(col, 6, 8)`: the call goes to createPartitionedTable as text
                [RawTok { tok: Tok::Ident(_), .. }, RawTok { tok: Tok::LParen, .. }, .., RawTok { tok: Tok::RParen, .. }] => {
                    let text = call_text(pc).ok_or_else(|| {
                        b.err("create table: a partitioning function is called on the column and constant numbers or strings, e.g. f(ts, 6, 8)")
                    })?;
                    b.s(&text)
                }
                _ => return Err(b.err("create table: a partitioning column is a column name or a function call on one")),
            }
        }
        b.tok(Tok::RBracket);
    }
    options(b, &opts);
    b.tok(Tok::RParen);
    if wrap {
        b.tok(Tok::Semi);
        b.call("setColumnComment");
        b.call("loadTable");
        b.copy(db);
        b.tok(Tok::Comma);
        name_tokens(b, name);
        b.tok(Tok::RParen);
        b.tok(Tok::Comma);
        b.tok(Tok::LBrace);
        for (k, (n, v)) in comments.iter().enumerate() {
            if k > 0 {
                b.tok(Tok::Comma);
            }
            b.out.push(n.clone());
            b.tok(Tok::Colon);
            b.copy(v);
        }
        b.tok(Tok::RBrace);
        b.tok(Tok::RParen);
        b.tok(Tok::RBrace);
    }
    Ok(())
}

/// `alter table t add c TYPE` | `drop [column] c` | `rename [column] a to b`.
fn alter_table(b: &mut B, ts: &[RawTok]) -> Result<(), ParseError> {
    let verb = (2..ts.len())
        .find(|&k| ["add", "drop", "rename"].iter().any(|w| is_word(ts.get(k), w)) && k > 2)
        .ok_or_else(|| b.err("alter table: expected add, drop or rename"))?;
    let table = trim_nl(&ts[2..verb]);
    let mut rest = trim_nl(&ts[verb + 1..]);
    let v = word(&ts[verb]).unwrap_or("").to_ascii_lowercase();
    if v != "add" && is_word(rest.first(), "column") && rest.len() > 1 {
        rest = &rest[1..];
    }
    let col = |b: &mut B, t: Option<&RawTok>| -> Result<(), ParseError> {
        match t.map(|t| &t.tok) {
            Some(Tok::Ident(n)) | Some(Tok::Lit(Literal::Str(n))) => {
                b.s(n);
                Ok(())
            }
            _ => Err(b.err("alter table: expected a column name")),
        }
    };
    match v.as_str() {
        "add" => {
            if rest.len() < 2 {
                return Err(b.err("alter table: add columnName columnType"));
            }
            b.call("addColumn");
            b.copy(table);
            b.tok(Tok::Comma);
            col(b, rest.first())?;
            b.tok(Tok::Comma);
            b.copy(&rest[1..]);
        }
        "drop" => {
            if rest.len() != 1 {
                return Err(b.err("alter table: drop [column] columnName"));
            }
            b.call("dropColumns!");
            b.copy(table);
            b.tok(Tok::Comma);
            col(b, rest.first())?;
        }
        _ => {
            if rest.len() != 3 || !is_word(rest.get(1), "to") {
                return Err(b.err("alter table: rename [column] columnName to newColumnName"));
            }
            b.call("rename!");
            b.copy(table);
            b.tok(Tok::Comma);
            col(b, rest.first())?;
            b.tok(Tok::Comma);
            col(b, rest.get(2))?;
        }
    }
    b.tok(Tok::RParen);
    Ok(())
}

/// `drop database [if exists] D`, `drop table [if exists] D.T`, `drop table [if exists] t`.
fn drop_stmt(b: &mut B, ts: &[RawTok]) -> Result<(), ParseError> {
    let database = is_word(ts.get(1), "database");
    let mut rest = trim_nl(&ts[2..]);
    let if_exists = rest.first().is_some_and(|t| t.tok == Tok::If) && (is_word(rest.get(1), "exists") || rest.get(1).is_some_and(|t| t.tok == Tok::Exists));
    if if_exists {
        rest = &rest[2..];
    }
    if rest.is_empty() {
        return Err(b.err("drop: the database or table is missing"));
    }
    if database {
        if if_exists {
            b.tok(Tok::If);
            b.tok(Tok::LParen);
            b.call("existsDatabase");
            b.copy(rest);
            b.tok(Tok::RParen);
            b.tok(Tok::RParen);
        }
        b.call("dropDatabase");
        b.copy(rest);
        b.tok(Tok::RParen);
        return Ok(());
    }
    let dot = rest.iter().rposition(|t| t.tok == Tok::Dot);
    match dot {
        Some(d) => {
            let (db, name) = (&rest[..d], &rest[d + 1..]);
            if db.is_empty() || name.is_empty() {
                return Err(b.err("drop table: expected dbPath.tableName"));
            }
            if if_exists {
                b.tok(Tok::If);
                b.tok(Tok::LParen);
                b.call("existsTable");
                b.copy(db);
                b.tok(Tok::Comma);
                name_tokens(b, name);
                b.tok(Tok::RParen);
                b.tok(Tok::RParen);
            }
            b.call("dropTable");
            b.call("database");
            b.copy(db);
            b.tok(Tok::RParen);
            b.tok(Tok::Comma);
            name_tokens(b, name);
            b.tok(Tok::RParen);
        }
        None => {
            // an in-memory table: the variable of that name is undefined
            if if_exists {
                b.tok(Tok::If);
                b.tok(Tok::LParen);
                b.call("defined");
                name_tokens(b, rest);
                b.tok(Tok::RParen);
                b.tok(Tok::RParen);
            }
            b.call("undef");
            name_tokens(b, rest);
            b.tok(Tok::RParen);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::ast::{Arg, ExprKind, StmtKind};
    use crate::parse_script;

    fn is_fn(n: &str) -> bool {
        matches!(n, "database" | "createPartitionedTable" | "createDimensionTable" | "table" | "dropDatabase" | "dropTable" | "existsDatabase" | "existsTable" | "addColumn" | "dropColumns!" | "rename!" | "undef" | "defined" | "setColumnComment" | "loadTable")
    }

    /// The called function's name and argument count of a one-statement script.
    fn call_of(src: &str) -> (String, usize) {
        let s = parse_script(src, &is_fn).unwrap_or_else(|e| panic!("{src}: {}", e.message));
        assert_eq!(s.len(), 1, "{src}");
        let e = match &s[0].kind {
            StmtKind::Expr(e) => e.clone(),
            StmtKind::If(_, body, None) => match &body.kind {
                StmtKind::Expr(e) => e.clone(),
                k => panic!("{src}: {k:?}"),
            },
            StmtKind::Assign(..) => return ("=".into(), 0),
            k => panic!("{src}: {k:?}"),
        };
        match &e.kind {
            ExprKind::Call(f, a) => match &f.kind {
                ExprKind::Ident(n) => (n.clone(), a.len()),
                k => panic!("{k:?}"),
            },
            k => panic!("{src}: {k:?}"),
        }
    }

    #[test]
    fn create_database_levels() {
        assert_eq!(call_of("create database \"dfs://a\" partitioned by VALUE(1..3)"), ("database".into(), 3));
        assert_eq!(call_of("create database \"dfs://a\" partitioned by VALUE(1..3), HASH([SYMBOL, 4]), engine='TSDB'"), ("database".into(), 4));
        let s = parse_script("create database \"dfs://a\" partitioned by RANGE(0 5 10),\n  engine='OLAP'", &is_fn).unwrap();
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn partitioning_function_text() {
        use super::{call_text, RawTok, Tok};
        let toks: Vec<RawTok> = crate::lexer::lex("f(s, 6, -8, \"x\")").unwrap().into_iter().filter(|t| t.tok != Tok::Newline).collect();
        assert_eq!(call_text(&toks).as_deref(), Some("f(s, 6, -8, \"x\")"));
        let toks: Vec<RawTok> = crate::lexer::lex("f(s, g(1))").unwrap();
        assert_eq!(call_text(&toks).as_deref(), Some("f(s, g(1))"));
        let toks: Vec<RawTok> = crate::lexer::lex("f(s, [1, 2])").unwrap();
        assert_eq!(call_text(&toks), None);
        let (f, n) = call_of("create table \"dfs://a\".\"pt\"(id STRING, sym SYMBOL) partitioned by myDay(id, 4, 8), sym");
        assert_eq!((f.as_str(), n), ("createPartitionedTable", 4));
    }

    #[test]
    fn create_table_forms() {
        let src = "create table \"dfs://a\".\"pt\"(\n id INT,\n d DATE[comment=\"day\", compress=\"delta\"],\n v DOUBLE\n)\npartitioned by id,\nsortColumns=`id`d,\nkeepDuplicates=LAST";
        let s = parse_script(src, &is_fn).unwrap();
        assert_eq!(s.len(), 1, "a column comment adds setColumnComment in one block");
        assert!(matches!(s[0].kind, StmtKind::Block(ref b) if b.len() == 2));
        let (f, n) = call_of("create table \"dfs://a\".\"dt\"(id INT, v DOUBLE)\nsortColumns=`id");
        assert_eq!((f.as_str(), n), ("createDimensionTable", 4));
        let (f, n) = call_of("create table \"dfs://a\".\"pt\"(id INT, v DOUBLE) partitioned by id");
        assert_eq!((f.as_str(), n), ("createPartitionedTable", 4));
        let s = parse_script("create table mem(id INT, v DOUBLE)", &is_fn).unwrap();
        assert!(matches!(s[0].kind, StmtKind::Assign(..)));
    }

    #[test]
    fn alter_and_drop() {
        assert_eq!(call_of("alter table pt add loc SYMBOL"), ("addColumn".into(), 3));
        assert_eq!(call_of("alter table pt drop column loc"), ("dropColumns!".into(), 2));
        assert_eq!(call_of("alter table pt rename loc to place"), ("rename!".into(), 3));
        assert_eq!(call_of("drop database \"dfs://a\""), ("dropDatabase".into(), 1));
        assert_eq!(call_of("drop database if exists \"dfs://a\""), ("dropDatabase".into(), 1));
        assert_eq!(call_of("drop table if exists \"dfs://a\".\"pt\""), ("dropTable".into(), 2));
        assert_eq!(call_of("drop table t"), ("undef".into(), 1));
    }

    #[test]
    fn ordinary_names_stay() {
        // `create`, `drop`, `alter` as variables and functions are untouched
        let s = parse_script("create = 1\ndrop = create + 1\nx = drop", &is_fn).unwrap();
        assert_eq!(s.len(), 3);
        let s = parse_script("def alter(t) { return t }\nalter(1)", &is_fn).unwrap();
        assert_eq!(s.len(), 2);
        let _ = Arg::Pos(None);
    }

    #[test]
    fn malformed_ddl_is_an_error() {
        assert!(parse_script("create database \"dfs://a\" partitioned by 1..3", &is_fn).is_err());
        assert!(parse_script("create table \"dfs://a\".\"t\"", &is_fn).is_err());
        assert!(parse_script("alter table t frobnicate x", &is_fn).is_err());
    }
}
